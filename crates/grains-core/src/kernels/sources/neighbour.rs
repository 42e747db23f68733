//! The neighbour-list source. WGSL twin: `shaders/sources/neighbour.wgsl`.
//!
//! One invocation per list entry; the list holds each pair twice (once from each side), and
//! only the owning entry (p < q) evaluates it, into the pair's record (`nbr_pair`, see
//! [`crate::kernels::passes::pair_record`]), which the gather reads from both entries. Entries
//! of walls (`q >= n_particles`) are the wall source's ([`super::wall`]).

use crate::gpu_types::{SourcePair, StepParams};

/// Entry `gid` of the neighbour list as a pair of particles.
#[inline]
pub fn source_pair(
    gid: usize,
    step: &StepParams,
    material: &[u32],
    nbr_i: &[u32],
    nbr_j: &[u32],
) -> SourcePair {
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if p >= q || q >= step.n_particles {
        return SourcePair::default();
    }
    SourcePair {
        p,
        q,
        table: material[p as usize] * step.n_materials + material[q as usize],
        owns: 1,
    }
}

/// The record (history, slot, active flag) of entry `gid`: its pair's.
#[inline]
pub fn source_record(gid: usize, nbr_pair: &[u32]) -> usize {
    nbr_pair[gid] as usize
}
