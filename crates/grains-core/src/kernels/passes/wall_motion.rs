//! Moves the walls by one step. WGSL twin: `shaders/passes/wall_motion.wgsl`.
//!
//! One invocation per wall, after the first half-step has moved the particles from `t` to
//! `t + dt`: a wall whose schedule covers `t` (`start <= t < stop`, `t = steps dt` by its own
//! clock) translates by `velocity dt` and turns by `|omega| dt` about `omega` around its
//! `center` (Rodrigues' rotation of its point and normal), and is marked `moving` so that the
//! resolvers see its surface velocity for the forces at `t + dt`. Dispatched only in a world
//! with a moving wall.

use glam::Vec3;

use crate::gpu_types::{StepParams, Wall};
use crate::kernels::v3;

/// Rotate `x` by the rotation vector `angle` (rad, about its direction).
#[inline]
pub fn rotate(x: Vec3, angle: Vec3) -> Vec3 {
    let th = angle.length();
    if th == 0.0 {
        return x;
    }
    let k = angle / th;
    let (s, c) = th.sin_cos();
    x * c + k.cross(x) * s + k * (k.dot(x) * (1.0 - c))
}

/// Advance wall `gid` by one step.
pub fn wall_motion(gid: usize, step: &StepParams, walls: &mut [Wall]) {
    let w = &mut walls[gid];
    let t = w.steps as f32 * step.dt;
    let moves = w.moves();
    w.moving = (moves && w.start <= t && t < w.stop) as u32;
    if w.moving != 0 {
        let shift = v3(w.velocity) * step.dt;
        let center = v3(w.center) + shift;
        let turn = v3(w.omega) * step.dt;
        let point = center + rotate(v3(w.point) + shift - center, turn);
        w.center = center.to_array();
        w.point = point.to_array();
        w.normal = rotate(v3(w.normal), turn).normalize().to_array();
    }
    w.steps += 1;
}
