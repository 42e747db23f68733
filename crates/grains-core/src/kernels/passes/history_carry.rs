//! Broad phase, pass 6: carry contact history from the old neighbour list to the new one by
//! matching (p, q). WGSL twin: `shaders/passes/history_carry.wgsl`. Only owning entries
//! (p < q) hold history; a pair absent from the old list starts from zero.

use crate::gpu_types::PairHistory;
use crate::kernels::passes::pair_mirror::find_sorted;

/// Copy the history of new entry `gid` from the old list.
pub fn history_carry(
    gid: usize,
    nbr_i: &[u32],
    nbr_j: &[u32],
    old_start: &[u32],
    old_j: &[u32],
    old_history: &[PairHistory],
    history: &mut PairHistory,
) {
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    let mut h = PairHistory::default();
    if p < q && (p as usize) + 1 < old_start.len() {
        let k = find_sorted(old_j, old_start[p as usize], old_start[p as usize + 1], q);
        if k != u32::MAX {
            h = old_history[k as usize];
        }
    }
    *history = h;
}
