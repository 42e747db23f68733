//! An iteration's product of the implicit solve on the GPU. WGSL twin:
//! `shaders/passes/solve_apply.wgsl`.

use crate::kernels::solve::{dot3, own_diagonal, SolveView, SRC_P};

/// Invocation `gid`: `q = A p` for its particle (zero for a known one), and its share
/// `(p.q, 0, 0, 0)` of its workgroup's partial.
pub fn solve_apply(
    gid: usize,
    v: &SolveView<'_>,
    material: &[u32],
    drag: &[[f32; 4]],
) -> ([f32; 4], [f32; 4]) {
    if !v.solve_free(gid) {
        return ([0.0; 4], [0.0; 4]);
    }
    let d = own_diagonal(v, gid, material, drag);
    let p = [v.solve_p[gid][0], v.solve_p[gid][1], v.solve_p[gid][2]];
    let c = [v.params.coef[0], v.params.coef[1]];
    let q = v.solve_row(gid, p, d, c, SRC_P);
    ([q[0], q[1], q[2], 0.0], [dot3(p, q), 0.0, 0.0, 0.0])
}
