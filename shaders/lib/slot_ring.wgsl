// The words of `slot_count` and the ring of packed slots given back, for the passes that take
// and give back the neighbour list's packed slots (lib/packed_slots.wgsl, passes/slot_carry.wgsl),
// which bind `slot_count` (atomic words) and `free_slots`. grains-gpu's control.wgsl moves the
// ring on before each step's contact passes and keeps the same words. CPU twin:
// `give_slot_back` in crates/grains-core/src/kernels/passes/slot_carry.rs.

//!include lib/slot_words.wgsl

// Slot `k` back to the ring, after the slots this step's takers read (those given back before
// it): no slot is read and written in one pass.
fn give_slot_back(k: u32) {
    let cap = atomicLoad(&slot_count[SLOT_CAPACITY]);
    let m = atomicAdd(&slot_count[SLOT_PUSHES], 1u);
    let at = atomicLoad(&slot_count[SLOT_HEAD]) + atomicLoad(&slot_count[SLOT_FREE]) + m;
    free_slots[at % cap] = k;
}
