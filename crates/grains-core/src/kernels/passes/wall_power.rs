//! The work moving walls do on each particle. WGSL twin: `shaders/passes/wall_power.wgsl`.
//!
//! A wall that exerts the force `F` and the torque `T` (about the particle's centre, the
//! slot's `torque1`, which includes the moment of `F` through the contact point) on a particle
//! at `x` delivers the power `F . (v + omega x (x - c)) + omega . T`: the force times the
//! surface velocity at the contact point, written through the particle's centre, plus the
//! work of any rolling torque against the wall's spin. One invocation per particle adds
//! `P dt` over its moving walls to `wall_work` (Kahan-compensated), after the gather; the
//! ledger subtracts the total (`energy.csv`'s `wall_work`). Dispatched only in a world with a
//! moving wall.

use crate::gpu_types::{PairSlot, StepParams, Wall};
use crate::kernels::passes::gather::kahan_add;
use crate::kernels::{v3, v4xyz};

/// Add the work of the moving walls on particle `gid` this step to `work`.
pub fn wall_power(
    gid: usize,
    step: &StepParams,
    walls: &[Wall],
    wall_slots: &[PairSlot],
    pos: &[[f32; 4]],
    work: &mut [f32; 2],
) {
    let nw = step.n_walls as usize;
    let x = v4xyz(pos[gid]);
    let mut p = 0.0f32;
    for (w, wall) in walls.iter().enumerate().take(nw) {
        if wall.moving == 0 {
            continue;
        }
        let s = &wall_slots[gid * nw + w];
        let om = v3(wall.omega);
        let v = v3(wall.velocity) + om.cross(x - v3(wall.center));
        p += v3(s.force).dot(v) + om.dot(v3(s.torque1));
    }
    let (a, c) = kahan_add(work[0], work[1], p * step.dt, step.unit);
    *work = [a, c];
}
