//! The energy an implicit step's friction takes, on the GPU. WGSL twin:
//! `shaders/passes/solve_book.wgsl`.

use super::gather::kahan_add;
use crate::kernels::solve::{dot3, SolveView, MODE_OVERDAMPED, SRC_END, WALK_FORM};

/// Invocation `gid`: its particle's share of the step's friction energy added to its damping
/// dissipation (`dissipated[0..2]`, Kahan-compensated).
pub fn solve_book(
    gid: usize,
    v: &SolveView<'_>,
    torque: &[[f32; 4]],
    material: &[u32],
    drag: &[[f32; 4]],
    dissipated: &mut [f32; 4],
) {
    if !v.solve_free(gid) {
        return;
    }
    let dt = v.step.dt;
    let dr = drag[material[gid] as usize];
    let vi = v.solve_value(gid as u32, SRC_END);
    let mut e = dt * v.solve_walk(gid, vi, dr[0], [1.0, 0.0], SRC_END, WALK_FORM)[0][0];
    if v.params.mode == MODE_OVERDAMPED {
        let k = v.solve_walk(gid, vi, 0.0, [0.0, 1.0], SRC_END, WALK_FORM)[0][0];
        e += (v.params.lambda - 0.5) * dt * dt * k;
        if dr[1] > 0.0 {
            let t = [torque[gid][0], torque[gid][1], torque[gid][2]];
            e += dt * dot3(t, t) / dr[1];
        }
    }
    if e != 0.0 {
        (dissipated[0], dissipated[1]) = kahan_add(dissipated[0], dissipated[1], e, v.step.unit);
    }
}
