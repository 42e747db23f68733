//! Broad phase, pass 6: carry contact history from the old neighbour list to the new one by
//! matching (p, q). WGSL twin: `shaders/passes/history_carry.wgsl`. Only owning entries
//! (q > p) carry: each writes its pair's record (`nbr_pair`, see
//! [`crate::kernels::passes::pair_record`]), the record of (p, q) in the old list, or zero for a
//! pair absent from it. A record is `step.nbr_history_stride` words, copied bit for bit, with
//! its slot flag (`nbr_slot`: 0 while the record is zero, else 1 + the pair's packed slot,
//! see [`crate::kernels::passes::contact`]). The packed slots stay where they are, so the carried
//! flags still name them until the next contact passes rewrite both; a new pair starts
//! inactive.

use crate::gpu_types::StepParams;
use crate::kernels::passes::pair_record::find_sorted;

/// Fill the record of new entry `gid` from the old list, if the entry owns its pair: `history`
/// and `nbr_slot` are that record's (the elements at `nbr_pair[gid]` of the WGSL bindings);
/// an entry that does not own its pair writes nothing.
#[allow(clippy::too_many_arguments)]
pub fn history_carry(
    gid: usize,
    step: &StepParams,
    nbr_i: &[u32],
    nbr_j: &[u32],
    old_start: &[u32],
    old_j: &[u32],
    old_pair: &[u32],
    old_history: &[f32],
    old_slot: &[u32],
    history: &mut [f32],
    nbr_slot: &mut u32,
) {
    let stride = step.nbr_history_stride as usize;
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if p >= q {
        return;
    }
    history.fill(0.0);
    *nbr_slot = 0;
    if (p as usize) + 1 < old_start.len() {
        let k = find_sorted(old_j, old_start[p as usize], old_start[p as usize + 1], q);
        let r = if k == u32::MAX {
            u32::MAX
        } else {
            old_pair[k as usize]
        };
        if r != u32::MAX {
            let r = r as usize;
            history.copy_from_slice(&old_history[r * stride..(r + 1) * stride]);
            *nbr_slot = old_slot[r];
        }
    }
}
