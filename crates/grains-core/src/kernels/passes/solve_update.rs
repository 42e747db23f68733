//! An iteration's update of the implicit solve on the GPU. WGSL twin:
//! `shaders/passes/solve_update.wgsl`.

use crate::kernel_types::SymBlock;
use crate::kernels::solve::{dot3, sym_times};

/// Invocation `gid`: `x += alpha p`, `r -= alpha q`; returns its share `(r.r, r.z, 0, 0)` of
/// its workgroup's partial, `z = P r`.
pub fn solve_update(
    alpha: f32,
    x: &mut [f32; 4],
    r: &mut [f32; 4],
    p: &[f32; 4],
    q: &[f32; 4],
    pre: &SymBlock,
) -> [f32; 4] {
    for k in 0..3 {
        x[k] += alpha * p[k];
        r[k] -= alpha * q[k];
    }
    (x[3], r[3]) = (0.0, 0.0);
    let rv = [r[0], r[1], r[2]];
    let z = sym_times(pre, rv);
    [dot3(rv, rv), dot3(rv, z), 0.0, 0.0]
}
