//! The neighbour-list source. WGSL twin: `shaders/sources/neighbour.wgsl`.
//!
//! One invocation per list entry; the list holds each pair twice (once from each side), and
//! only the owning entry (p < q) evaluates it, into the pair's record (`nbr_pair`, see
//! [`crate::kernels::passes::pair_record`]), which the gather reads from both entries. Entries
//! of walls (`q >= n_particles`) are the wall source's ([`super::wall`]).

use crate::gpu_types::{PairSlot, SourcePair, StepParams};

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

/// The record (slot flag) of entry `gid`: its pair's.
#[inline]
pub fn source_record(gid: usize, nbr_pair: &[u32]) -> usize {
    nbr_pair[gid] as usize
}

/// The history record of a pair in contact, appended to this step's packed `history`: last
/// step's at its flag (`history_in`, `stride` words per record), or zero for a pair that was
/// out of contact. The laws update it in place.
#[inline]
pub fn source_history<'a>(
    pair_active: u32,
    history_in: &[f32],
    stride: usize,
    history: &'a mut Vec<f32>,
) -> &'a mut [f32] {
    let at = history.len();
    match (pair_active as usize).checked_sub(1) {
        Some(k) => history.extend_from_slice(&history_in[k * stride..(k + 1) * stride]),
        None => history.resize(at + stride, 0.0),
    }
    &mut history[at..]
}

/// A pair in contact takes the next free packed slot and names it in its record's flag as
/// `1 + index` (the WGSL source takes it with an atomic counter). The wall source shares it.
#[inline]
pub fn place_slot(slot: PairSlot, slots: &mut Vec<PairSlot>, pair_active: &mut u32) {
    slots.push(slot);
    *pair_active = slots.len() as u32;
}

/// A pair out of contact keeps no slot and no history.
#[inline]
pub fn drop_slot(pair_active: &mut u32) {
    *pair_active = 0;
}
