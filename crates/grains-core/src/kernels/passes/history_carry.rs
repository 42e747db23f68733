//! Broad phase, pass 6: carry contact history from the old neighbour list to the new one by
//! matching (p, q). WGSL twin: `shaders/passes/history_carry.wgsl`. One invocation per record
//! of the new list (its owner `pair_i`, which `pair_record` writes, and the partner of its
//! owning entry): each writes its flag from the record of (p, q) in the old list, or zero for
//! a pair absent from it. An owning entry's record follows from its list's record starts
//! ([`owned_record`]), so neither list's `nbr_pair` is read: the GPU's `pair_record` writes
//! the new one in place. A record is its slot flag (`nbr_slot`: 0 out of contact, else
//! 1 + the pair's packed slot and history record, see [`crate::kernels::passes::contact`]).
//! The packed slots and history stay where they are, so the carried flag still names the
//! pair's until the next contact passes take new ones: a rebuild moves 4 bytes per pair, not
//! its history.

use crate::gpu_types::StepParams;
use crate::kernels::passes::pair_record::{find_sorted, owned_record};

/// Fill the flag of new record `gid` in `nbr_slot` from the old list.
#[allow(clippy::too_many_arguments)]
pub fn history_carry(
    gid: usize,
    _step: &StepParams,
    pair_i: &[u32],
    nbr_j: &[u32],
    old_start: &[u32],
    old_j: &[u32],
    nbr_start: &[u32],
    old_slot: &[u32],
    old_pair_start: &[u32],
    pair_start: &[u32],
    nbr_slot: &mut [u32],
) {
    let p = pair_i[gid];
    let end = p as usize + 1;
    let q = nbr_j[(nbr_start[end] - (pair_start[end] - gid as u32)) as usize];
    let old_record = |k| owned_record(p as usize, k, old_start, old_pair_start);
    nbr_slot[gid] = carried_flag(p, q, old_start, old_j, old_record, old_slot);
}

/// The flag pair (p, q) (q > p) had in the old list (0 if it was absent), found in p's old
/// candidates (`old_start`, `old_j`) and through `old_record(k)`, the record of old entry `k`
/// (of an owning entry: k is in p's tail): [`history_carry`]'s own step, which the CPU
/// backend, whose candidates are its records, takes with the identity.
#[inline]
pub fn carried_flag(
    p: u32,
    q: u32,
    old_start: &[u32],
    old_j: &[u32],
    old_record: impl Fn(u32) -> u32,
    old_slot: &[u32],
) -> u32 {
    if (p as usize) + 1 >= old_start.len() {
        return 0;
    }
    let k = find_sorted(old_j, old_start[p as usize], old_start[p as usize + 1], q);
    let r = if k == u32::MAX {
        u32::MAX
    } else {
        old_record(k)
    };
    if r == u32::MAX {
        0
    } else {
        old_slot[r as usize]
    }
}
