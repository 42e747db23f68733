//! An iteration's new direction in the implicit solve on the GPU. WGSL twin:
//! `shaders/passes/solve_direction.wgsl`.

use crate::kernel_types::SymBlock;
use crate::kernels::solve::sym_times;

/// Invocation `gid`: `p = P r + beta p`.
pub fn solve_direction(beta: f32, r: &[f32; 4], p: &mut [f32; 4], pre: &SymBlock) {
    let z = sym_times(pre, [r[0], r[1], r[2]]);
    *p = [
        z[0] + beta * p[0],
        z[1] + beta * p[1],
        z[2] + beta * p[2],
        0.0,
    ];
}
