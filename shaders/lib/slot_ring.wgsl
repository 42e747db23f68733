// The words of `slot_count` and the ring of packed slots given back, for the passes that take
// and give back the neighbour list's packed slots (lib/packed_slots.wgsl, passes/slot_carry.wgsl),
// which bind `slot_count` (atomic words) and `free_slots`. grains-gpu's control.wgsl moves the
// ring on before each step's contact passes and keeps the same words. CPU twin:
// `give_slot_back` in crates/grains-core/src/kernels/passes/slot_carry.rs.

// Slots ever taken: every slot below is in use or in the ring.
const SLOT_TAKEN: u32 = 0u;
// Where in the ring the slots given back before this step start, and how many there are.
const SLOT_HEAD: u32 = 1u;
const SLOT_FREE: u32 = 2u;
// Slots taken from the ring and given back to it in this step's contact passes (and its
// rebuild's carry).
const SLOT_POPS: u32 = 3u;
const SLOT_PUSHES: u32 = 4u;
// 1 while the contact passes run again for the PENDING records only.
const SLOT_PENDING: u32 = 5u;
// Slots there are (`slots` to `slots_hi3` together), the ring's length.
const SLOT_CAPACITY: u32 = 6u;
// A slot's pair (`slot_pair`) while no pair holds it.
const NO_PAIR: u32 = 0xffffffffu;

// Slot `k` back to the ring, after the slots this step's takers read (those given back before
// it): no slot is read and written in one pass.
fn give_slot_back(k: u32) {
    let cap = atomicLoad(&slot_count[SLOT_CAPACITY]);
    let m = atomicAdd(&slot_count[SLOT_PUSHES], 1u);
    let at = atomicLoad(&slot_count[SLOT_HEAD]) + atomicLoad(&slot_count[SLOT_FREE]) + m;
    free_slots[at % cap] = k;
}
