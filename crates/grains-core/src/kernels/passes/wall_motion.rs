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
//!
//! A wall driven by a table of poses (`table_rows > 0`, rows `(t, d, r)` of
//! `motion_table`) moves while its clock is within the table's times: its velocity and spin
//! are those of the segment holding `t`, `(d1 - d0) / (t1 - t0)` and `(r1 - r0) / (t1 - t0)`,
//! and its pose at `t + dt` is the table's, interpolated linearly (clamped to the last row): its
//! centre displaced by `d`, turned by the rotation vector `r`. Interpolating the rotation
//! vector is exact for a turn about a fixed axis, and the segment's spin with it.
//!
//! The walls' records are followed by the mesh walls' bodies (`step.n_bodies` of them), which
//! move alike. Dispatched only in a world where a wall or a mesh wall moves.

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

/// The segment of table `rows` holding time `t`: the last row whose time is at most `t`,
/// and never the last row (binary search; `rows` has at least two rows).
pub fn table_segment(rows: &[[f32; 8]], t: f32) -> usize {
    let (mut lo, mut hi) = (0usize, rows.len() - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if rows[mid][0] <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Displacement and rotation vector of table `rows` at time `t`, clamped to its span.
pub fn table_pose(rows: &[[f32; 8]], t: f32) -> (Vec3, Vec3) {
    let k = table_segment(rows, t);
    let (a, b) = (&rows[k], &rows[k + 1]);
    let s = ((t - a[0]) / (b[0] - a[0])).clamp(0.0, 1.0);
    let at = |i: usize| Vec3::new(a[i], a[i + 1], a[i + 2]);
    let bt = |i: usize| Vec3::new(b[i], b[i + 1], b[i + 2]);
    (at(1) + (bt(1) - at(1)) * s, at(4) + (bt(4) - at(4)) * s)
}

/// Advance wall `gid` by one step from its initial pose `wall_origin[gid]`.
pub fn wall_motion(
    gid: usize,
    step: &StepParams,
    wall_origin: &[Wall],
    motion_table: &[[f32; 8]],
    walls: &mut [Wall],
) {
    let o = &wall_origin[gid];
    let w = &mut walls[gid];
    let t = w.steps as f32 * step.dt;
    let (shift, turn);
    if w.table_rows > 0 {
        let start = w.table_start as usize;
        let rows = &motion_table[start..start + w.table_rows as usize];
        w.moving = (rows[0][0] <= t && t < rows[rows.len() - 1][0]) as u32;
        let k = table_segment(rows, t);
        let (a, b) = (&rows[k], &rows[k + 1]);
        let span = b[0] - a[0];
        w.velocity = [1, 2, 3].map(|i| (b[i] - a[i]) / span);
        w.omega = [4, 5, 6].map(|i| (b[i] - a[i]) / span);
        (shift, turn) = table_pose(rows, (w.steps + 1) as f32 * step.dt);
    } else {
        w.moving = (w.moves() && w.start <= t && t < w.stop) as u32;
        let time = (w.moved + 1) as f32 * step.dt;
        (shift, turn) = (v3(w.velocity) * time, v3(w.omega) * time);
    }
    if w.moving != 0 {
        w.moved += 1;
        let center = v3(o.center) + shift;
        w.center = center.to_array();
        w.point = (center + rotate(v3(o.point) - v3(o.center), turn)).to_array();
        w.normal = rotate(v3(o.normal), turn).normalize().to_array();
    }
    w.steps += 1;
}
