//! The work moving walls do on each particle. WGSL twin: `shaders/passes/wall_power.wgsl`.
//!
//! A wall that exerts the force `F` and the torque `T` (about the particle's centre, the
//! slot's `torque1`, which includes the moment of `F` through the contact point) on a particle
//! at `x` delivers the power `F . (v + omega x (x - c)) + omega . T`: the force times the
//! surface velocity at the contact point, written through the particle's centre, plus the
//! work of any rolling torque against the wall's spin. The force of step `n` acts over half of
//! the wall's motion before it and half of the motion after it (the trapezoid rule the
//! velocity-Verlet step applies to the particle's kinetic energy), so the power uses the mean
//! of the wall's velocity in the step just taken (`moving`) and in the next one (its schedule
//! at the wall's clock); booking `F_n` against the past step alone leaves a remainder of half
//! a step's work whenever the wall starts or stops under load. One invocation per particle
//! adds `P dt` over its walls to `wall_work` (Kahan-compensated), after the gather; the ledger
//! subtracts the total (`energy.csv`'s `wall_work`). Dispatched only in a world with a moving
//! wall. A particle's walls are its neighbour-list entries `n_particles + w` (a moving wall is
//! a candidate of every particle), the tail of its records (`pair_start`, `pair_j`), their
//! slots named by the records' flags (`nbr_slot`; a wall out of contact has none).

use crate::backend::PackedSlots;
use crate::kernel_types::{StepParams, Wall};
use crate::kernels::passes::gather::kahan_add;
use crate::kernels::sources::neighbour::FarSlot;
use crate::kernels::{v3, v4xyz};

/// Add the work of the moving walls on particle `gid` this step to `work`.
#[allow(clippy::too_many_arguments)]
pub fn wall_power(
    gid: usize,
    step: &StepParams,
    walls: &[Wall],
    pair_start: &[u32],
    pair_j: &[u32],
    nbr_slot: &[u32],
    slots: &[FarSlot],
    pos: &[[f32; 4]],
    work: &mut [f32; 2],
) {
    let range = pair_start[gid]..pair_start[gid + 1];
    wall_power_records(
        gid,
        step,
        walls,
        range.map(|r| (pair_j[r as usize], r)),
        nbr_slot,
        PackedSlots::Far(slots),
        pos,
        work,
    )
}

/// [`wall_power`] over particle `gid`'s records as `(partner, record)` (a wall is partner
/// `n_particles + w`), over the slots as the backend keeps them (a wall contact's keeps its
/// force and the particle's torque either way).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn wall_power_records(
    gid: usize,
    step: &StepParams,
    walls: &[Wall],
    candidates: impl Iterator<Item = (u32, u32)>,
    nbr_slot: &[u32],
    slots: PackedSlots<'_>,
    pos: &[[f32; 4]],
    work: &mut [f32; 2],
) {
    let n = step.n_particles;
    let x = v4xyz(pos[gid]);
    let mut p = 0.0f32;
    for (j, r) in candidates {
        if j < n {
            continue;
        }
        let wall = &walls[(j - n) as usize];
        let t = wall.steps as f32 * step.dt;
        let next = wall.moves() && wall.start <= t && t < wall.stop;
        let share = 0.5 * ((wall.moving != 0) as u32 as f32 + next as u32 as f32);
        if share == 0.0 {
            continue;
        }
        let a = nbr_slot[r as usize];
        if a == 0 {
            continue;
        }
        let Some(s) = slots.get(a as usize - 1, true) else {
            continue;
        };
        let om = v3(wall.omega);
        let v = v3(wall.velocity) + om.cross(x - v3(wall.center));
        p += share * (v3(s.force).dot(v) + om.dot(v3(s.torque1)));
    }
    let (a, c) = kahan_add(work[0], work[1], p * step.dt, step.unit);
    *work = [a, c];
}
