//! Broad phase, pass 6: carry contact history from the old neighbour list to the new one by
//! matching (p, q). WGSL twin: `shaders/passes/history_carry.wgsl`. One invocation per record
//! of the new list (its owner `pair_i` and partner `pair_j`, which `pair_fill` writes): each
//! writes its flag from the record of (p, q) among p's old records (the old list as it is
//! kept, each pair once), or zero for a pair absent from it. A record is its slot flag (`nbr_slot`: 0 out of contact, else
//! 1 + the pair's packed slot and history record, see [`crate::kernels::passes::contact`]).
//! The packed slots and history stay where they are, so the carried flag still names the
//! pair's until the next contact passes take new ones: a rebuild moves 4 bytes per pair, not
//! its history.

use crate::gpu_types::StepParams;
use crate::kernels::passes::pair_record::find_sorted;

/// Fill the flag of new record `gid` in `nbr_slot` from the old list.
#[allow(clippy::too_many_arguments)]
pub fn history_carry(
    gid: usize,
    _step: &StepParams,
    pair_i: &[u32],
    pair_j: &[u32],
    old_j: &[u32],
    old_slot: &[u32],
    old_pair_start: &[u32],
    nbr_slot: &mut [u32],
) {
    nbr_slot[gid] = carried_flag(pair_i[gid], pair_j[gid], old_pair_start, old_j, old_slot);
}

/// The flag pair (p, q) (q > p) had in the old list (0 if it was absent), found among p's old
/// records (`old_pair_start`, `old_j`, their partners): [`history_carry`]'s own step, which
/// the CPU backend takes too.
#[inline]
pub fn carried_flag(
    p: u32,
    q: u32,
    old_pair_start: &[u32],
    old_j: &[u32],
    old_slot: &[u32],
) -> u32 {
    if (p as usize) + 1 >= old_pair_start.len() {
        return 0;
    }
    let (lo, hi) = (old_pair_start[p as usize], old_pair_start[p as usize + 1]);
    match find_sorted(old_j, lo, hi, q) {
        u32::MAX => 0,
        r => old_slot[r as usize],
    }
}
