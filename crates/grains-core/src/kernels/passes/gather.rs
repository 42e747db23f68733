//! Per-particle gather of pair slots. WGSL twin: `shaders/passes/gather.wgsl`.
//!
//! Sums the slots a particle takes part in, each through its pair's record and the record's
//! packed slot (`nbr_slot`, 0 for a pair out of contact, which has none): first the records it
//! owns (partners above it, then the walls near it, `n_particles + w`), which the list's
//! contact passes already summed, in record order, into its `force` and `torque` (the damping
//! and friction dissipation in their `w`) where the world has list chains
//! ([`StepParams::own_sums`]); then the head of its range (partners below it), the partners'
//! records through `head_pair` (from `nbr_start[gid] - pair_start[gid]`), of whose slots
//! ([`FarSlot`]: what the list keeps of a slot) it reads the force and its own torque; then
//! its fixed pairs: no float atomics, so the totals are bitwise reproducible. Most candidates
//! are out of contact: this reads 4 bytes for one of the head and 8 for one in contact.
//!
//! A neighbour-list pair's dissipation is booked to its owner (the lower particle, or the
//! particle of a wall contact), summed with its own side; the CPU backend sums each owner's
//! side in its contact sweep alike ([`crate::kernels::sources::neighbour::OwnSums`]): the same
//! operations in the same order. A fixed pair's is booked half to each side. Dissipation
//! accumulates over the run with Kahan compensation (`acc = [damping, its compensation,
//! friction, its compensation]`) because single increments are tiny against the running total.

use crate::kernel_types::{PairSlot, StepParams};
use crate::kernels::a3;
use crate::kernels::passes::pair_record::first_owned;
use crate::kernels::sources::neighbour::FarSlot;
use glam::Vec3A;

/// Kahan step: add `x` to `(sum, comp)`. `unit` is [`StepParams::unit`] (1.0), which keeps
/// shader compilers from simplifying the compensation away.
#[inline]
pub fn kahan_add(sum: f32, comp: f32, x: f32, unit: f32) -> (f32, f32) {
    let y = x - comp;
    let t = sum + y;
    let c = (t - sum * unit) - y;
    (t, c)
}

/// Total contact force and torque on particle `gid`, and its dissipation this step: `force`
/// and `torque` hold its own records' sums on entry (read only where `step.own_sums` is 1) and
/// the totals on return.
#[allow(clippy::too_many_arguments)]
pub fn gather(
    gid: usize,
    step: &StepParams,
    nbr_start: &[u32],
    head_pair: &[u32],
    pair_start: &[u32],
    slots: &[FarSlot],
    nbr_slot: &[u32],
    fixed_start: &[u32],
    fixed_entry: &[u32],
    fixed_slots: &[PairSlot],
    force: &mut [f32; 4],
    torque: &mut [f32; 4],
    dissipated: &mut [f32; 4],
) {
    let (mut f, mut t, mut damp, mut fric) = (Vec3A::ZERO, Vec3A::ZERO, 0.0f32, 0.0f32);
    if step.own_sums != 0 {
        (f, damp) = (a3(*force), force[3]);
        (t, fric) = (a3(*torque), torque[3]);
    }
    let (start, end) = (nbr_start[gid], nbr_start[gid + 1]);
    let r0 = pair_start[gid];
    let own = end - first_owned(gid, nbr_start, pair_start);
    let h0 = start - r0;
    let head = &head_pair[h0 as usize..(h0 + (end - start - own)) as usize];
    let far = |k: usize| {
        let s = &slots[k];
        (Vec3A::from_array(s.force), Vec3A::from_array(s.torque))
    };
    let (f, t) = gather_head(head, nbr_slot, (f, t), far);
    let sums = GatherSlots {
        slots,
        nbr_slot,
        fixed_start,
        fixed_entry,
        fixed_slots,
    };
    gather_fixed(
        gid,
        step,
        &sums,
        (f, t, damp, fric),
        force,
        torque,
        dissipated,
    );
}

/// What a particle's gather sums: the neighbour list's packed slots through its records' flags,
/// and the fixed pairs' slots through each particle's fixed entries.
#[derive(Clone, Copy, Debug)]
pub struct GatherSlots<'a> {
    pub slots: &'a [FarSlot],
    pub nbr_slot: &'a [u32],
    pub fixed_start: &'a [u32],
    pub fixed_entry: &'a [u32],
    pub fixed_slots: &'a [PairSlot],
}

/// The head's side of a particle's sums, added to `(f, t)`: for each record of `head` in
/// contact, the force of its slot `far(k)` subtracted and its torque on body 2 added (`far`
/// gives both for packed slot `k`). The pair's dissipation is its owner's.
#[inline(always)]
pub fn gather_head(
    head: &[u32],
    nbr_slot: &[u32],
    (mut f, mut t): (Vec3A, Vec3A),
    far: impl Fn(usize) -> (Vec3A, Vec3A),
) -> (Vec3A, Vec3A) {
    for &r in head {
        if r == u32::MAX {
            continue;
        }
        let a = nbr_slot[r as usize];
        if a == 0 {
            continue;
        }
        let (sf, st2) = far(a as usize - 1);
        f -= sf;
        t += st2;
    }
    (f, t)
}

/// A slot's force, torque on body 1 and torque on body 2, each as one vector (its w lane the
/// word after it).
#[inline(always)]
fn slot_lanes(s: &PairSlot) -> [Vec3A; 3] {
    let w: &[[f32; 4]; 3] = bytemuck::cast_ref(s);
    [a3(w[0]), a3(w[1]), a3(w[2])]
}

/// The end of [`gather_records`]: particle `gid`'s fixed pairs added to `sums` (force, torque,
/// damping and friction dissipation, as the list's records left them), then the totals stored
/// and the force and torque returned, for a caller that integrates next to use without loading
/// them back.
/// A particle with no record in contact starts from zero sums: the CPU backend calls it inline
/// for those, the same operations without the call and the list's loops.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn gather_fixed(
    gid: usize,
    step: &StepParams,
    sums: &GatherSlots<'_>,
    (mut f, mut t, mut damp, mut fric): (Vec3A, Vec3A, f32, f32),
    force: &mut [f32; 4],
    torque: &mut [f32; 4],
    dissipated: &mut [f32; 4],
) -> (Vec3A, Vec3A) {
    let GatherSlots {
        fixed_start,
        fixed_entry,
        fixed_slots,
        ..
    } = *sums;
    // An empty index has no fixed pairs: the CPU backend keeps none for a world without bonds.
    let fixed = fixed_start.get(gid..gid + 2).map_or(0..0, |w| w[0]..w[1]);
    for k in fixed {
        let e = fixed_entry[k as usize];
        let s = &fixed_slots[(e / 2) as usize];
        let [sf, st1, st2] = slot_lanes(s);
        if e.is_multiple_of(2) {
            f += sf;
            t += st1;
        } else {
            f -= sf;
            t += st2;
        }
        damp += 0.5 * s.damping_dissipated;
        fric += 0.5 * s.friction_dissipated;
    }
    // Stored whole, as the half-steps load them: a vector load of four scalar stores cannot be
    // forwarded from them and waits (store forwarding).
    *force = f.extend(0.0).to_array();
    *torque = t.extend(0.0).to_array();
    let a = *dissipated;
    let (d0, d1) = kahan_add(a[0], a[1], damp, step.unit);
    let (f0, f1) = kahan_add(a[2], a[3], fric, step.unit);
    *dissipated = [d0, d1, f0, f1];
    (f, t)
}
