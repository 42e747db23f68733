//! The fixed-topology source. WGSL twin: `shaders/sources/fixed.wgsl`.
//!
//! Pairs given by the scene (bonds, mesh edges, bending hinges), never found by the hash and
//! never dropped by it: slot `gid` is pair `fixed_pairs[gid]` for the whole run, so its history
//! stays in place. The gather finds a particle's fixed slots through a per-particle index
//! (`fixed_start`, `fixed_entry`), built once.

use crate::gpu_types::{SourcePair, StepParams};

/// Fixed pair `gid` as (particle, particle).
#[inline]
pub fn source_pair(
    gid: usize,
    step: &StepParams,
    material: &[u32],
    fixed_pairs: &[[u32; 2]],
) -> SourcePair {
    let [p, q] = fixed_pairs[gid];
    SourcePair {
        p,
        q,
        table: material[p as usize] * step.n_materials + material[q as usize],
        owns: 1,
    }
}

/// Per-particle index of the fixed pairs, in the CSR form the gather reads: particle `p`'s
/// entries are `entry[start[p]..start[p + 1]]`, each `2 * pair + side` (side 0: the pair's
/// first body, 1: its second), in increasing order.
pub fn fixed_index(n: usize, fixed_pairs: &[[u32; 2]]) -> (Vec<u32>, Vec<u32>) {
    let mut count = vec![0u32; n + 1];
    for &[p, q] in fixed_pairs {
        count[p as usize + 1] += 1;
        count[q as usize + 1] += 1;
    }
    for k in 0..n {
        count[k + 1] += count[k];
    }
    let start = count;
    let mut cursor = start.clone();
    let mut entry = vec![0u32; 2 * fixed_pairs.len()];
    for (k, &[p, q]) in fixed_pairs.iter().enumerate() {
        for (side, b) in [(0u32, p), (1, q)] {
            entry[cursor[b as usize] as usize] = 2 * k as u32 + side;
            cursor[b as usize] += 1;
        }
    }
    (start, entry)
}
