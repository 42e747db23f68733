// The neighbour list's packed slots in two bindings: `slots` holds the first
// `arrayLength(&slots)` (as many as one storage binding takes on the adapter, or fewer), and
// `slots_hi` the rest (one unused element while all fit in `slots`). A dense million-sphere
// pack takes about 3 million slots of 48 B, over the 128 MiB binding many adapters have.
// Shaders that include this file bind both. The CPU twins keep the slots in one array.

// Packed slot `k`.
fn slot_read(k: u32) -> PairSlot {
    let lo = arrayLength(&slots);
    if (k < lo) {
        return slots[k];
    }
    return slots_hi[k - lo];
}
