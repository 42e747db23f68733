//! The fixed-topology source. WGSL twin: `shaders/sources/fixed.wgsl`.
//!
//! Pairs given by the scene (bonds, mesh edges, bending hinges), never found by the hash and
//! never dropped by it: slot `gid` is pair `fixed_pairs[gid]` for the whole run, so its history
//! stays in place. The gather finds a particle's fixed slots through a per-particle index
//! (`fixed_start`, `fixed_entry`), built once.

use crate::kernel_types::{PairSlot, SourcePair, StepParams};

/// A fixed pair's `fixed_active` word while it is switched off: it is not evaluated, and its
/// history and slot are zero. A division pair is off until its cell divides and again once the
/// cytokinesis ends ([`crate::cells`]).
pub const FIXED_OFF: u32 = u32::MAX;

/// Whether invocation `gid` evaluates its pair: not while the pair is switched off. The CPU form
/// of `source_pairs`.
#[inline]
pub fn source_runs(pair_active: u32) -> bool {
    pair_active != FIXED_OFF
}

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

/// The record (history, slot, flag) of pair `gid`: slot `gid`.
#[inline]
pub fn source_record(gid: usize) -> usize {
    gid
}

/// A pair in contact writes its own slot, in place (its history, `source_history`, is its
/// own record, updated in place by the laws).
#[inline]
pub fn place_slot(slot: PairSlot, own: &mut PairSlot, pair_active: &mut u32) {
    *own = slot;
    *pair_active = 1;
}

/// A pair out of contact zeroes its own slot (the gather reads every fixed slot) and history.
#[inline]
pub fn drop_slot(own: &mut PairSlot, history: &mut [f32], pair_active: &mut u32) {
    history.fill(0.0);
    *own = PairSlot::default();
    *pair_active = 0;
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

/// The fixed pairs that have broken for good, from the fixed source's history
/// (`BackendState::fixed_history`): `(fixed pair index, step at which it broke)`, in pair
/// order, as each pair's chain reads its laws' history ([`crate::LawKind::broken_at`]). The
/// pair table names each pair's chain from its particles' `material` indices.
pub fn broken_fixed_pairs(
    table: &crate::materials::PairTable,
    fixed_pairs: &[[u32; 2]],
    material: &[u32],
    fixed_history: &[f32],
) -> Vec<(usize, u64)> {
    use crate::kernels::sources::SourceKind;
    let stride = table.fixed_history_stride;
    let chains = table.chain_map(SourceKind::Fixed);
    let mut out = Vec::new();
    for (k, &[i, j]) in fixed_pairs.iter().enumerate() {
        let entry =
            material[i as usize] as usize * table.n_materials + material[j as usize] as usize;
        let Some(chain) = chains
            .get(entry)
            .and_then(|&c| table.chains.get(c as usize))
        else {
            continue;
        };
        let layout = chain.layout();
        let broke = chain
            .laws
            .iter()
            .zip(&layout.laws)
            .filter_map(|(law, &(_, _, at, words))| {
                let h = fixed_history.get(k * stride + at..k * stride + at + words)?;
                law.broken_at(h)
            })
            .min();
        if let Some(step) = broke {
            out.push((k, step));
        }
    }
    out
}
