//! The wall source. WGSL twin: `shaders/sources/wall.wgsl`.
//!
//! Walls are few, so every (particle, wall) pair has the fixed slot `p * n_walls + w` and is
//! checked every step: no candidate list, and no wall contact can be missed. `q` is the wall's
//! index.

use crate::gpu_types::{SourcePair, StepParams, Wall};

/// Slot `gid` as (particle, wall).
#[inline]
pub fn source_pair(gid: usize, step: &StepParams, material: &[u32], walls: &[Wall]) -> SourcePair {
    let nw = step.n_walls as usize;
    let p = gid / nw;
    let w = gid % nw;
    SourcePair {
        p: p as u32,
        q: w as u32,
        // One block of material pairs per wall kind, each with its resolver's chains.
        table: (walls[w].kind * step.n_materials + material[p]) * step.n_materials
            + walls[w].material,
        owns: 1,
    }
}
