// The words of `slot_count`, the neighbour list's packed slots' counts: for the passes that
// take and give back slots (lib/slot_ring.wgsl) and for grains-gpu's control kernels, which
// read and move them (control.wgsl, to which the host prepends this file). CPU twin: the
// `SLOT_*` constants in crates/grains-core/src/kernels/passes/slot_carry.rs.

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
// Slots there are, the ring's length.
const SLOT_CAPACITY: u32 = 6u;
// A slot's pair (`slot_pair`) while no pair holds it.
const NO_PAIR: u32 = 0xffffffffu;
