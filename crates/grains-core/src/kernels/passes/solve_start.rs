//! The start of the implicit solve on the GPU. WGSL twin: `shaders/passes/solve_start.wgsl`.

use crate::kernel_types::SymBlock;
use crate::kernels::solve::{
    dot3, invert_block, own_diagonal, sym_times, SolveView, MODE_UNDERDAMPED, SRC_START, SRC_VEL,
    WALK_BLOCK,
};

/// The outputs of one invocation of `solve_start`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Started {
    pub x: [f32; 4],
    pub r: [f32; 4],
    pub p: [f32; 4],
    pub pre: SymBlock,
    /// `(r.r, r.z, b.b, 0)`, this invocation's share of its workgroup's partial.
    pub sums: [f32; 4],
}

/// Invocation `gid` (a particle): its right-hand side, start, residual, preconditioner and
/// first direction. `force`: the gathered forces; `drag`: each material's drag.
pub fn solve_start(
    gid: usize,
    v: &SolveView<'_>,
    force: &[[f32; 4]],
    material: &[u32],
    drag: &[[f32; 4]],
) -> Started {
    let x0 = v.solve_value(gid as u32, SRC_START);
    let mut out = Started {
        x: [x0[0], x0[1], x0[2], 0.0],
        ..Default::default()
    };
    if !v.solve_free(gid) {
        return out;
    }
    let (f, m_inv) = (force[gid], v.vel[gid][3]);
    let g = v.step.gravity;
    let mut b = [
        f[0] + g[0] / m_inv,
        f[1] + g[1] / m_inv,
        f[2] + g[2] / m_inv,
    ];
    if v.step.planar != 0 {
        b[2] = 0.0;
    }
    if v.params.mode == MODE_UNDERDAMPED {
        let ce = [v.params.explicit_gamma, v.params.explicit_stiffness];
        let d = drag[material[gid] as usize][0];
        let vi = [v.vel[gid][0], v.vel[gid][1], v.vel[gid][2]];
        let e = v.solve_row(gid, vi, d, ce, SRC_VEL);
        b = [b[0] - e[0], b[1] - e[1], b[2] - e[2]];
    }
    let d = own_diagonal(v, gid, material, drag);
    let c = [v.params.coef[0], v.params.coef[1]];
    let ax = v.solve_row(gid, x0, d, c, SRC_START);
    let r = [b[0] - ax[0], b[1] - ax[1], b[2] - ax[2]];
    let pre = invert_block(&v.solve_walk(gid, x0, d, c, SRC_START, WALK_BLOCK));
    let z = sym_times(&pre, r);
    out.r = [r[0], r[1], r[2], 0.0];
    out.p = [z[0], z[1], z[2], 0.0];
    out.pre = pre;
    out.sums = [dot3(r, r), dot3(r, z), dot3(b, b), 0.0];
    out
}
