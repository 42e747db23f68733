// The neighbour list's packed slots in up to four bindings: `slots` holds the first
// `arrayLength(&slots)` (as many as one storage binding takes on the adapter, or fewer), and
// `slots_hi`, `slots_hi2` and `slots_hi3` as many more each (one unused element while they
// hold none). A dense million-sphere pack takes about 3.4 million slots of 28 B, under the 128
// MiB binding many adapters have; four bindings hold the slots of a dense pack of about 14
// million spheres there, more than the list's per-record arrays do. Shaders that include this
// file bind all four. The CPU twins keep the slots in one array.

// Packed slot `k`.
fn slot_read(k: u32) -> FarSlot {
    let c = arrayLength(&slots);
    if (k < c) {
        return slots[k];
    }
    if (k < 2u * c) {
        return slots_hi[k - c];
    }
    if (k < 3u * c) {
        return slots_hi2[k - 2u * c];
    }
    return slots_hi3[k - 3u * c];
}
