//! Each neighbour-list entry's owner, from the list's starts. WGSL twin:
//! `shaders/passes/list_owners.wgsl`.
//!
//! A GPU replay (after an overflow or a fault) restores the list's starts, partners and record
//! starts but not its owners and records: this pass writes the owners again, `pair_record` the
//! records, so the saved copy holds 8 bytes per entry less. The CPU backend, which keeps no
//! owners, writes them with it when it gives its list back in full
//! ([`crate::cpu::NeighbourList::to_full`]).

use crate::gpu_types::StepParams;

/// Write particle `gid` as the owner of its entries, `nbr_start[gid]..nbr_start[gid + 1]` of
/// `nbr_i`.
pub fn list_owners(gid: usize, step: &StepParams, nbr_start: &[u32], nbr_i: &mut [u32]) {
    if gid >= step.n_particles as usize {
        return;
    }
    nbr_i[nbr_start[gid] as usize..nbr_start[gid + 1] as usize].fill(gid as u32);
}
