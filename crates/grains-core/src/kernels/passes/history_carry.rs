//! Broad phase, pass 6: carry contact history from the old neighbour list to the new one by
//! matching (p, q). WGSL twin: `shaders/passes/history_carry.wgsl`. Only owning entries
//! (q > p) carry: each writes its pair's record (`nbr_pair`, see
//! [`crate::kernels::passes::pair_record`]), the record of (p, q) in the old list, or zero for a
//! pair absent from it. A record is `step.nbr_history_stride` words, copied bit for bit, with
//! its active flag (`nbr_active`: 1 while the record or the slot may be non-zero, see
//! [`crate::kernels::passes::contact`]); a new pair starts inactive.

use crate::gpu_types::StepParams;
use crate::kernels::passes::pair_record::find_sorted;

/// Fill the record of new entry `gid` from the old list, if the entry owns its pair: `history`
/// and `nbr_active` are that record's (the elements at `nbr_pair[gid]` of the WGSL bindings);
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
    old_active: &[u32],
    history: &mut [f32],
    nbr_active: &mut u32,
) {
    let stride = step.nbr_history_stride as usize;
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if p >= q {
        return;
    }
    history.fill(0.0);
    *nbr_active = 0;
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
            *nbr_active = old_active[r];
        }
    }
}
