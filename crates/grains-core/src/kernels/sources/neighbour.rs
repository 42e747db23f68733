//! The neighbour-list source. WGSL twin: `shaders/sources/neighbour.wgsl`.
//!
//! One invocation per record: the list keeps each pair once, as a record of its lower particle
//! p (`pair_i[r]`) with its partner q > p (`pair_j[r]`), which the gather reads from both
//! sides (the other through `head_pair`, see [`crate::kernels::passes::pair_record`]). Records
//! of walls (`q >= n_particles`) are the wall source's ([`super::wall`]).

use crate::gpu_types::{PairSlot, SourcePair, StepParams};

/// Record `gid` of the neighbour list as a pair of particles.
#[inline]
pub fn source_pair(
    gid: usize,
    step: &StepParams,
    material: &[u32],
    pair_i: &[u32],
    pair_j: &[u32],
) -> SourcePair {
    let (p, q) = (pair_i[gid], pair_j[gid]);
    if q >= step.n_particles {
        return SourcePair::default();
    }
    SourcePair {
        p,
        q,
        table: material[p as usize] * step.n_materials + material[q as usize],
        owns: 1,
    }
}

/// The record (slot flag) of invocation `gid`: its own.
#[inline]
pub fn source_record(gid: usize) -> usize {
    gid
}

/// A contact block's share of the packed slots and history: the CPU sweep's stand-in for the
/// WGSL sources' atomic slot counter. Each block of particles owns a region of `slots` (and of
/// `history`, `stride` words per slot) reserved from its last count with a margin, and takes
/// its slots in record order from the region's start; a block with more pairs in contact than
/// its region keeps the rest in `spill` (its flags then run past the region), and the backend
/// lays the regions out anew after the sweep. Slots and history are written in place, once,
/// rather than into per-block lists copied together after every step. Last step's history,
/// which the flags name, is read from `history_in` (see [`source_history`]): a copy of the
/// block's region taken before the block writes it.
#[derive(Debug)]
pub struct SlotRegion<'a> {
    /// The region's first slot in the backend's `slots`.
    pub base: u32,
    pub slots: &'a mut [PairSlot],
    pub history: &'a mut [f32],
    /// Slots taken so far this step (those past `slots.len()` are in `spill`).
    pub used: usize,
    pub spill: &'a mut (Vec<PairSlot>, Vec<f32>),
}

/// The history record of a pair in contact, in the next free slot of this step's `region`:
/// last step's at its flag (`history_in`, `stride` words per record, a copy of the region
/// from its base), or zero for a pair that was out of contact. The laws update it in
/// place.
#[inline]
pub fn source_history<'a>(
    pair_active: u32,
    history_in: &[f32],
    stride: usize,
    region: &'a mut SlotRegion<'_>,
) -> &'a mut [f32] {
    let k = region.used;
    let h = if k < region.slots.len() {
        &mut region.history[k * stride..(k + 1) * stride]
    } else {
        let v = &mut region.spill.1;
        let at = v.len();
        v.resize(at + stride, 0.0);
        &mut v[at..]
    };
    match (pair_active as usize).checked_sub(1) {
        Some(r) => {
            // A flag names a slot of its block's region.
            let r = r - region.base as usize;
            h.copy_from_slice(&history_in[r * stride..(r + 1) * stride])
        }
        None => h.fill(0.0),
    }
    h
}

/// A pair in contact takes the next free slot of `region` and names it in its record's flag
/// as `1 + index` in the backend's `slots` (the WGSL source takes it with an atomic counter).
/// The wall source shares it.
#[inline]
pub fn place_slot(slot: PairSlot, region: &mut SlotRegion<'_>, pair_active: &mut u32) {
    let k = region.used;
    match region.slots.get_mut(k) {
        Some(s) => *s = slot,
        None => region.spill.0.push(slot),
    }
    region.used += 1;
    *pair_active = region.base + region.used as u32;
}

/// A pair out of contact keeps no slot and no history.
#[inline]
pub fn drop_slot(pair_active: &mut u32) {
    *pair_active = 0;
}
