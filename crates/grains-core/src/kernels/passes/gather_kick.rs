//! The gather and the second half-step of a particle in one pass. WGSL twin:
//! `shaders/passes/gather_kick.wgsl`.
//!
//! The GPU step uses it where nothing runs between the two (no shells, clumps or moving
//! walls): the kick takes the force and torque in registers instead of reading back the
//! arrays the gather has just written, and the step has one dispatch fewer. The CPU backend's
//! own fused sweep goes further (it also takes the next step's first half); this twin is the
//! GPU pass's reference, the two twins it is made of called in order.

use super::{gather, integrate_second_half};
use crate::kernel_types::{PairSlot, StepParams};
use crate::kernels::sources::neighbour::FarSlot;
use crate::shapes::ShapeRecord;

/// [`gather`] of particle `gid` into `force[gid]`, `torque[gid]` (which hold its own records'
/// sums on entry) and `dissipated`, then
/// [`integrate_second_half`] of its velocity and spin from them.
#[allow(clippy::too_many_arguments)]
pub fn gather_kick(
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
    force: &mut [[f32; 4]],
    torque: &mut [[f32; 4]],
    dissipated: &mut [f32; 4],
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    quat: &[[f32; 4]],
    shape: &[u32],
    shapes: &[ShapeRecord],
) {
    gather(
        gid,
        step,
        nbr_start,
        head_pair,
        pair_start,
        slots,
        nbr_slot,
        fixed_start,
        fixed_entry,
        fixed_slots,
        &mut force[gid],
        &mut torque[gid],
        dissipated,
    );
    integrate_second_half(gid, step, vel, omega, quat, force, torque, shape, shapes);
}
