//! Moves the walls by one step. WGSL twin: `shaders/passes/wall_motion.wgsl`.
//!
//! One invocation per wall, after the first half-step has moved the particles from `t` to
//! `t + dt`. A wall whose schedule covers `t` (`start <= t < stop`, `t = steps dt` by its own
//! clock) is marked `moving`, so that the resolvers see its surface velocity in the forces at
//! `t + dt`, and counts one more step of motion. Its pose is then its initial pose
//! (`wall_origin`, the world's walls) carried by `T = moved dt` of motion: the centre
//! translated by `velocity T`, point and normal turned by `omega T` about it (Rodrigues).
//! Computing the pose afresh, rather than adding a step's displacement to the last pose, keeps
//! f32 rounding from accumulating: a lid at 4 mm moving 1e-7 m a step would otherwise drift
//! by up to 0.2% of its travel, and the ledger's wall work (velocity times time) with it.
//! Dispatched only in a world with a moving wall.

use glam::Vec3;

use crate::kernel_types::{StepParams, Wall};
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

/// Advance wall `gid` by one step from its initial pose `wall_origin[gid]`.
pub fn wall_motion(gid: usize, step: &StepParams, wall_origin: &[Wall], walls: &mut [Wall]) {
    let o = &wall_origin[gid];
    let w = &mut walls[gid];
    let t = w.steps as f32 * step.dt;
    w.moving = (w.moves() && w.start <= t && t < w.stop) as u32;
    if w.moving != 0 {
        w.moved += 1;
        let time = w.moved as f32 * step.dt;
        let center = v3(o.center) + v3(w.velocity) * time;
        let turn = v3(w.omega) * time;
        w.center = center.to_array();
        w.point = (center + rotate(v3(o.point) - v3(o.center), turn)).to_array();
        w.normal = rotate(v3(o.normal), turn).normalize().to_array();
    }
    w.steps += 1;
}
