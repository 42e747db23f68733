//! What the implicit solve's passes share on the GPU (`kernels/passes/solve_*.rs`): block
//! algebra, the walk over a particle's pairs, the workgroup sums. WGSL twins:
//! `shaders/lib/solve.wgsl` and `shaders/lib/solve_row.wgsl`, in the same f32 operations.
//!
//! The CPU backend solves in f64 over its own gathered matrix ([`crate::cpu`]'s `solve`); these
//! twins are the GPU's f32 solve, step for step, for its parity tests.

use crate::kernel_types::{MatBlock, SolveParams, StepParams, SymBlock, Wall};

/// A block of no pair.
pub const NO_BLOCK: u32 = u32::MAX;
/// What a row multiplies ([`solve_value`]).
pub const SRC_START: u32 = 0;
pub const SRC_VEL: u32 = 1;
pub const SRC_P: u32 = 2;
pub const SRC_END: u32 = 3;
/// What a walk sums ([`solve_walk`]).
pub const WALK_ROW: u32 = 0;
pub const WALK_FORM: u32 = 1;
pub const WALK_BLOCK: u32 = 2;
/// [`SolveParams::mode`].
pub const MODE_OVERDAMPED: u32 = 1;
pub const MODE_UNDERDAMPED: u32 = 2;
pub const MODE_STATIC: u32 = 3;

/// Threads of a workgroup of the solve's passes.
pub const WORKGROUP: usize = 64;

type V3 = [f32; 3];
/// A 3x3 matrix by columns.
pub type M3 = [V3; 3];

#[inline]
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
fn scale(k: f32, a: V3) -> V3 {
    [k * a[0], k * a[1], k * a[2]]
}

/// `a . b`, summed left to right.
#[inline]
pub fn dot3(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The weights `(a, b)` of a block under block coefficients `c` (friction, stiffness).
#[inline]
pub fn block_weights(blk: &MatBlock, c: [f32; 2]) -> [f32; 2] {
    [
        c[0] * blk.gamma_n + c[1] * blk.stiffness_n,
        c[0] * blk.gamma_t + c[1] * blk.stiffness_t,
    ]
}

/// `(a n n^T + b (I - n n^T)) y` for weights `w = (a, b)`.
#[inline]
pub fn block_times(n: V3, w: [f32; 2], y: V3) -> V3 {
    let ny = n[0] * y[0] + n[1] * y[1] + n[2] * y[2];
    add(scale(w[1], y), scale((w[0] - w[1]) * ny, n))
}

/// `P r` for a symmetric block.
#[inline]
pub fn sym_times(p: &SymBlock, r: V3) -> V3 {
    let (a, b) = (p.p0, p.p1);
    [
        a[0] * r[0] + a[3] * r[1] + b[0] * r[2],
        a[3] * r[0] + a[1] * r[1] + b[1] * r[2],
        b[0] * r[0] + b[1] * r[1] + a[2] * r[2],
    ]
}

/// The inverse of the symmetric block `m`, or of its diagonal where it is not safely
/// invertible: as `invert_block` in lib/solve.wgsl.
pub fn invert_block(m: &M3) -> SymBlock {
    let s = m[0][0].abs().max(m[1][1].abs().max(m[2][2].abs()));
    if s > 0.0 {
        let (a, d, f) = (m[0][0] / s, m[1][1] / s, m[2][2] / s);
        let (b, c, e) = (m[1][0] / s, m[2][0] / s, m[2][1] / s);
        let c00 = d * f - e * e;
        let c11 = a * f - c * c;
        let c22 = a * d - b * b;
        let c01 = c * e - b * f;
        let c02 = b * e - c * d;
        let c12 = b * c - a * e;
        let det = a * c00 + b * c01 + c * c02;
        if det > 1e-6 {
            let k = 1.0 / (det * s);
            return SymBlock {
                p0: [c00 * k, c11 * k, c22 * k, c01 * k],
                p1: [c02 * k, c12 * k, 0.0, 0.0],
            };
        }
    }
    let inv = |x: f32| if x > 0.0 { 1.0 / x } else { 1.0 };
    SymBlock {
        p0: [inv(m[0][0]), inv(m[1][1]), inv(m[2][2]), 0.0],
        p1: [0.0; 4],
    }
}

/// The sum of a workgroup's values (at most [`WORKGROUP`], the rest zero) as the tree of
/// `workgroup_total`: lane k takes lane k + s for s = 32, 16, ..., 1.
pub fn workgroup_total(values: &[[f32; 4]]) -> [f32; 4] {
    let mut w = [[0.0f32; 4]; WORKGROUP];
    w[..values.len()].copy_from_slice(values);
    let mut s = WORKGROUP / 2;
    while s > 0 {
        for l in 0..s {
            let other = w[l + s];
            for (a, b) in w[l].iter_mut().zip(other) {
                *a += b;
            }
        }
        s /= 2;
    }
    w[0]
}

/// Each workgroup's partial of a pass's per-invocation sums.
pub fn workgroup_partials(values: &[[f32; 4]]) -> Vec<[f32; 4]> {
    values.chunks(WORKGROUP).map(workgroup_total).collect()
}

/// The arrays a walk over the pairs reads (the bindings of lib/solve_row.wgsl and the
/// including pass's `vel`, `solve_p`, `solve_x`; a pass that does not read one passes it
/// empty).
#[derive(Clone, Copy)]
pub struct SolveView<'a> {
    pub step: &'a StepParams,
    pub params: &'a SolveParams,
    pub pair_start: &'a [u32],
    pub pair_j: &'a [u32],
    pub nbr_start: &'a [u32],
    pub head_pair: &'a [u32],
    pub mat_block: &'a [MatBlock],
    pub fixed_start: &'a [u32],
    pub fixed_entry: &'a [u32],
    pub fixed_pairs: &'a [[u32; 2]],
    pub mat_fixed: &'a [MatBlock],
    pub walls: &'a [Wall],
    pub pos: &'a [[f32; 4]],
    pub vel: &'a [[f32; 4]],
    pub solve_p: &'a [[f32; 4]],
    pub solve_x: &'a [[f32; 4]],
    /// The shells' node index, edges and edge viscosity (`World::shell_viscosity_to_matrix`).
    pub shell_start: &'a [u32],
    pub shell_entry: &'a [u32],
    pub edge_nodes: &'a [[u32; 4]],
    pub shell_viscosity: &'a [f32],
}

#[inline]
fn xyz(v: [f32; 4]) -> V3 {
    [v[0], v[1], v[2]]
}

impl SolveView<'_> {
    /// Whether particle `j` is an unknown.
    pub fn solve_free(&self, j: usize) -> bool {
        self.vel[j][3] > 0.0 && self.pos[j][3] > 0.0
    }

    /// Body `j`'s value of `src`, as `solve_value` in lib/solve_row.wgsl.
    pub fn solve_value(&self, j: u32, src: u32) -> V3 {
        let n = self.step.n_particles;
        if j >= n {
            let w = &self.walls[(j - n) as usize];
            let v = if w.moving != 0 { w.velocity } else { [0.0; 3] };
            return match src {
                SRC_START => scale(self.params.wall_factor, v),
                SRC_P => [0.0; 3],
                _ => v,
            };
        }
        let j = j as usize;
        if src == SRC_P {
            return xyz(self.solve_p[j]);
        }
        let v = xyz(self.vel[j]);
        if src == SRC_VEL {
            return v;
        }
        if src == SRC_END {
            if !self.solve_free(j) {
                return v;
            }
            if self.params.mode == MODE_UNDERDAMPED {
                return add(v, scale(self.step.dt, xyz(self.solve_x[j])));
            }
            return xyz(self.solve_x[j]);
        }
        if self.params.mode == MODE_OVERDAMPED {
            return v;
        }
        if self.params.mode == MODE_UNDERDAMPED || self.solve_free(j) {
            return [0.0; 3];
        }
        scale(self.step.dt, v)
    }

    /// One pair's term of a walk, as `pair_term`.
    fn pair_term(
        &self,
        blk: &MatBlock,
        partner: u32,
        xi: V3,
        c: [f32; 2],
        src: u32,
        what: u32,
    ) -> M3 {
        let w = block_weights(blk, c);
        let n = blk.normal;
        if what == WALK_BLOCK {
            let k = w[0] - w[1];
            let col = |j: usize| {
                let mut e = [0.0; 3];
                e[j] = w[1];
                add(e, scale(k * n[j], n))
            };
            return [col(0), col(1), col(2)];
        }
        let rel = sub(xi, self.solve_value(partner, src));
        let m = block_times(n, w, rel);
        if what == WALK_FORM {
            let half = if partner >= self.step.n_particles {
                1.0
            } else {
                0.5
            };
            return [[half * dot3(m, rel), 0.0, 0.0], [0.0; 3], [0.0; 3]];
        }
        [m, [0.0; 3], [0.0; 3]]
    }

    /// A walk over particle `i`'s pairs, as `solve_walk`: its own records, the head of its
    /// range, its fixed pairs, its viscous shell edges.
    pub fn solve_walk(&self, i: usize, xi: V3, d: f32, c: [f32; 2], src: u32, what: u32) -> M3 {
        let mut s: M3 = match what {
            WALK_FORM => [[d * dot3(xi, xi), 0.0, 0.0], [0.0; 3], [0.0; 3]],
            WALK_BLOCK => [[d, 0.0, 0.0], [0.0, d, 0.0], [0.0, 0.0, d]],
            _ => [scale(d, xi), [0.0; 3], [0.0; 3]],
        };
        let mut acc = |t: M3| {
            for k in 0..3 {
                s[k] = add(s[k], t[k]);
            }
        };
        let (r0, r1) = (self.pair_start[i], self.pair_start[i + 1]);
        for r in r0..r1 {
            let blk = &self.mat_block[r as usize];
            if blk.partner != NO_BLOCK {
                acc(self.pair_term(blk, self.pair_j[r as usize], xi, c, src, what));
            }
        }
        let (start, end) = (self.nbr_start[i], self.nbr_start[i + 1]);
        let own = (r1 - r0).min(end - start);
        let h0 = start - r0;
        for k in h0..h0 + (end - start - own) {
            let r = self.head_pair[k as usize];
            if r == u32::MAX {
                continue;
            }
            let blk = &self.mat_block[r as usize];
            if blk.partner != NO_BLOCK {
                acc(self.pair_term(blk, blk.partner, xi, c, src, what));
            }
        }
        for k in self.fixed_start[i]..self.fixed_start[i + 1] {
            let e = self.fixed_entry[k as usize];
            let blk = &self.mat_fixed[(e / 2) as usize];
            if blk.partner != NO_BLOCK {
                let pq = self.fixed_pairs[(e / 2) as usize];
                let other = if e.is_multiple_of(2) { pq[1] } else { pq[0] };
                acc(self.pair_term(blk, other, xi, c, src, what));
            }
        }
        if i + 1 < self.shell_start.len() {
            for k in self.shell_start[i]..self.shell_start[i + 1] {
                let e = self.shell_entry[k as usize];
                if e & crate::shells::TRIANGLE_ENTRY != 0 || e % 4 >= 2 {
                    continue;
                }
                let gamma = self.shell_viscosity[(e / 4) as usize];
                if gamma > 0.0 {
                    let nodes = self.edge_nodes[(e / 4) as usize];
                    let other = if e.is_multiple_of(4) {
                        nodes[1]
                    } else {
                        nodes[0]
                    };
                    let blk = MatBlock {
                        normal: [1.0, 0.0, 0.0],
                        partner: other,
                        gamma_n: gamma,
                        gamma_t: gamma,
                        ..Default::default()
                    };
                    acc(self.pair_term(&blk, other, xi, c, src, what));
                }
            }
        }
        s
    }

    /// Row `i` of the operator with diagonal `d` and block coefficients `c` applied to `src`.
    pub fn solve_row(&self, i: usize, xi: V3, d: f32, c: [f32; 2], src: u32) -> V3 {
        self.solve_walk(i, xi, d, c, src, WALK_ROW)[0]
    }
}

/// Particle `i`'s own diagonal: its mass and drag under the solve's weights, as
/// `own_diagonal` in lib/solve_row.wgsl (`drag`: each material's).
pub fn own_diagonal(v: &SolveView<'_>, i: usize, material: &[u32], drag: &[[f32; 4]]) -> f32 {
    let mass = 1.0 / v.vel[i][3];
    let d = drag[material[i] as usize][0];
    v.params.coef[2] * mass + v.params.coef[3] * d
}

impl SolveParams {
    /// The solve's constants for `world`, whose dynamics is implicit.
    pub fn of(world: &crate::world::World) -> SolveParams {
        use crate::dynamics::Mode;
        let d = &world.dynamics;
        let dt = world.dt;
        let c = d.coefficients(dt);
        let (mode, wall_factor) = match d.mode {
            Mode::Underdamped => (MODE_UNDERDAMPED, 0.0),
            Mode::Static => (MODE_STATIC, dt as f32),
            _ => (MODE_OVERDAMPED, 1.0),
        };
        SolveParams {
            coef: [c.gamma, c.stiffness, c.mass, c.drag].map(|x| x as f32),
            explicit_gamma: 1.0,
            explicit_stiffness: (d.implicitness * dt) as f32,
            wall_factor,
            mode,
            history_words: world.table.nbr_history_words as u32,
            fixed_stride: world.table.fixed_history_stride as u32,
            lambda: d.implicitness as f32,
            _pad1: 0,
        }
    }
}
