// The words of `slot_count`, the neighbour list's packed slots' counts: for the passes that
// take and give back slots (lib/slot_ring.wgsl) and for grains-gpu's control kernels, which
// read and move them (control.wgsl, to which the host prepends this file). Written from the
// `SLOT_*` constants of crates/grains-core/src/kernels/passes/slot_carry.rs.
//!include generated/slot_words.wgsl
