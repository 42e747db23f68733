//! The neighbour-list source. WGSL twin: `shaders/sources/neighbour.wgsl`.
//!
//! One invocation per list entry; the list holds each pair twice (once from each side), and
//! only the owning entry (p < q) evaluates it. The gather reads the other entry through
//! `nbr_mirror`. Entries of walls (`q >= n_particles`) are the wall source's
//! ([`super::wall`]).

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
