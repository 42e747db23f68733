//! The neighbour-list source. WGSL twin: `shaders/sources/neighbour.wgsl`.
//!
//! One invocation per particle p over its records of particles: the list keeps each pair
//! once, as a record of its lower particle p with its partner q > p (`pair_j[r]`), which the
//! gather reads from both sides (the other through `head_pair`, see
//! [`crate::kernels::passes::pair_record`]). Records of walls (`q >= n_particles`) are the wall
//! source's ([`super::wall`]). The device keeps no owner per record: 4 bytes a record, 36 a
//! sphere in a dense pack.

use crate::kernel_types::{PairSlot, SourcePair, StepParams};
use bytemuck::{Pod, Zeroable};
use glam::Vec3A;

/// Record `gid` of the neighbour list, of particle `owner`, as a pair of
/// particles; none for the two halves of a dividing cell, which their division pair drives
/// alone ([`divides_with`]).
#[inline]
pub fn source_pair(
    gid: usize,
    owner: u32,
    step: &StepParams,
    material: &[u32],
    (pair_j, fixed_active): (&[u32], &[u32]),
) -> SourcePair {
    let (p, q) = (owner, pair_j[gid]);
    if q >= step.n_particles || divides_with(p, q, step, fixed_active) {
        return SourcePair::default();
    }
    SourcePair {
        p,
        q,
        table: material[p as usize] * step.n_materials + material[q as usize],
        owns: 1,
    }
}

/// Whether `p < q` are the two halves of a division pair in cytokinesis
/// ([`crate::cells`]): particles `first + 2k` and `first + 2k + 1` of the division pool, their
/// fixed pair `division_pairs + k` switched on. Every other chain is then silent for them, as
/// Mpacts' division laws silence the rest of theirs.
#[inline]
pub fn divides_with(p: u32, q: u32, step: &StepParams, fixed_active: &[u32]) -> bool {
    let first = step.division_first;
    if first == 0 || p < first || q != p + 1 || !(p - first).is_multiple_of(2) {
        return false;
    }
    let k = step.division_pairs + (p - first) / 2;
    // The implicit solve's lookups of records in contact pass no flags: none is a dividing pair.
    fixed_active
        .get(k as usize)
        .is_some_and(|&a| a != super::fixed::FIXED_OFF)
}

/// The record (slot flag) of invocation `gid`: its own.
#[inline]
pub fn source_record(gid: usize) -> usize {
    gid
}

/// What the CPU keeps of the slot of a record in contact: the [`PairSlot`] less the owner's
/// side, which the sweep sums per particle as it goes ([`OwnSums`]). 28 bytes where the slot
/// takes 48, for about three pairs in contact per sphere of a dense pack.
///
/// `torque` is the torque the record's other reader needs: on body 2 for a particle pair (its
/// partner's gather), on the particle (body 1) for a wall (the wall's loads and power, which
/// read no torque on the wall). The pair's dissipation is its owner's alone
/// ([`crate::kernels::passes::gather`]), so no share of it is kept for the other side.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FarSlot {
    /// Force on body 1 (N).
    pub force: [f32; 3],
    /// Elastic energy stored in the contact (J).
    pub elastic: f32,
    /// Torque on body 2 of a particle pair, on the particle of a wall contact (N m).
    pub torque: [f32; 3],
}

impl FarSlot {
    /// What is kept of `s`, the slot of a particle pair or (`wall`) of a wall contact.
    #[inline(always)]
    pub fn of(s: &PairSlot, wall: bool) -> FarSlot {
        FarSlot {
            force: s.force,
            elastic: s.elastic,
            torque: if wall { s.torque1 } else { s.torque2 },
        }
    }

    /// The slot as a state holds it: force, elastic energy and the torque kept; the owner's
    /// torque of a particle pair, the wall's torque and the step's dissipation are zero (they
    /// went into the owner's sums, which nothing reads after the gather, and a state's slots
    /// are evaluated again before any gather reads them).
    pub fn slot(&self, wall: bool) -> PairSlot {
        let (torque1, torque2) = if wall {
            (self.torque, [0.0; 3])
        } else {
            ([0.0; 3], self.torque)
        };
        PairSlot {
            force: self.force,
            elastic: self.elastic,
            torque1,
            torque2,
            ..PairSlot::default()
        }
    }
}

/// The owner's side of its records in contact, summed in record order with the operations of
/// the gather's own records (`gather_records`), so that the gather starts from them and gives
/// the bits of a gather over whole slots.
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnSums {
    /// Force (N) and torque (N m) on the owner.
    pub force: Vec3A,
    pub torque: Vec3A,
    /// Damping and friction dissipation this step (J).
    pub damping: f32,
    pub friction: f32,
    /// Whether a record was added since the sums were last taken.
    pub any: bool,
}

impl OwnSums {
    /// Add a record's slot.
    #[inline(always)]
    pub fn add(&mut self, s: &PairSlot) {
        self.force += Vec3A::from_array(s.force);
        self.torque += Vec3A::from_array(s.torque1);
        self.damping += s.damping_dissipated;
        self.friction += s.friction_dissipated;
        self.any = true;
    }
}

/// A contact block's share of the packed slots and history: the CPU sweep's stand-in for the
/// WGSL sources' atomic slot counter. Each block of particles owns a region of `slots` (and of
/// `history`, `stride` words per slot) reserved from its last count with a margin, and takes
/// its slots in record order from the region's start; a block with more pairs in contact than
/// its region keeps the rest in `spill` (its flags then run past the region), and the backend
/// lays the regions out anew after the sweep. Slots and history are written in place, once,
/// rather than into per-block lists copied together after every step. Last step's history,
/// which the flags name, is read from `history_in` (see [`source_history`]): a copy of the
/// block's region taken before the block writes it. A slot goes in as its [`FarSlot`] and
/// its owner's side into `own`, which the sweep takes at each change of owner.
#[derive(Debug)]
pub struct SlotRegion<'a> {
    /// The region's first slot in the backend's `slots`.
    pub base: u32,
    pub slots: &'a mut [FarSlot],
    pub history: &'a mut [f32],
    /// Slots taken so far this step (those past `slots.len()` are in `spill`).
    pub used: usize,
    pub spill: &'a mut (Vec<FarSlot>, Vec<f32>),
    /// The owner's sums of the records placed since the sweep last took them.
    pub own: OwnSums,
    /// Whether the record being evaluated is a wall's.
    pub wall: bool,
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
/// as `1 + index` in the backend's `slots` (the WGSL source takes it with an atomic counter);
/// its owner's side goes into `region.own`. The wall source shares it.
#[inline]
pub fn place_slot(slot: PairSlot, region: &mut SlotRegion<'_>, pair_active: &mut u32) {
    let k = region.used;
    let far = FarSlot::of(&slot, region.wall);
    match region.slots.get_mut(k) {
        Some(s) => *s = far,
        None => region.spill.0.push(far),
    }
    region.own.add(&slot);
    region.used += 1;
    *pair_active = region.base + region.used as u32;
}

/// A pair out of contact keeps no slot and no history.
#[inline]
pub fn drop_slot(pair_active: &mut u32) {
    *pair_active = 0;
}
