//! The implicit dynamics modes' solve on the CPU ([`crate::dynamics`]): the contact matrix
//! gathered from the blocks every chain's `contact_matrix` left in its pairs' history, and a
//! conjugate-gradient solve preconditioned by each particle's 3x3 diagonal block (Jacobi by
//! blocks), matrix-free over the pairs in contact.
//!
//! The vectors are f64 so that the default tolerance, 1e-8 of the right-hand side, is within
//! reach; the blocks are the f32 the chains wrote. Every sum runs in a fixed order (partial
//! sums over fixed chunks of particles, added in chunk order), so a solve gives the same bits
//! whatever the thread count.

use rayon::prelude::*;

use crate::dynamics::{Coefficients, Dynamics};
use crate::kernels::laws::contact_matrix::ContactMatrixHistory;
use crate::kernels::sources::{fixed, list_record_pair, SourceKind};
use crate::registry::LawKind;

/// Particles per chunk of a sum: the order of the partial sums is fixed by it.
const SUM_CHUNK: usize = 2048;

/// One side of a pair in the matrix: the other body and the pair's blocks.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The other particle, or `n + w` for wall `w`.
    pub partner: u32,
    pub block: ContactMatrixHistory,
}

/// The contact matrix of a step, per particle (each pair on both sides, a wall's pair on its
/// particle's side only), in a fixed order: a particle's owned records, then the pairs it
/// takes part in from below, then its fixed pairs.
#[derive(Clone, Debug, Default)]
pub struct ContactMatrix {
    pub start: Vec<u32>,
    pub entries: Vec<Entry>,
}

/// Where each chain keeps its `contact_matrix` record in a history record (words), `None` for
/// a chain without one.
pub fn matrix_offsets(table: &crate::materials::PairTable) -> Vec<Option<usize>> {
    table
        .chains
        .iter()
        .map(|c| {
            let layout = c.layout();
            c.laws
                .iter()
                .zip(&layout.laws)
                .find(|(l, _)| **l == LawKind::ContactMatrix)
                .map(|(_, &(_, _, h, _))| h)
        })
        .collect()
}

/// The record of `words` at `at`.
fn record(words: &[f32], at: usize) -> ContactMatrixHistory {
    let n = std::mem::size_of::<ContactMatrixHistory>() / 4;
    *bytemuck::from_bytes(bytemuck::cast_slice(&words[at..at + n]))
}

/// What the matrix is gathered from.
pub struct MatrixSources<'a> {
    pub table: &'a crate::materials::PairTable,
    pub step: &'a crate::kernel_types::StepParams,
    pub material: &'a [u32],
    pub walls: &'a [crate::kernel_types::Wall],
    /// Owned records' range per particle (`pair_start`) and partners (`pair_j`).
    pub pair_start: &'a [u32],
    pub pair_j: &'a [u32],
    pub nbr_slot: &'a [u32],
    /// The list's packed history, `stride` words a record.
    pub history: &'a [f32],
    pub stride: usize,
    pub fixed_pairs: &'a [[u32; 2]],
    pub fixed_history: &'a [f32],
    pub fixed_stride: usize,
    /// Shell edges `(i, j, k, l)` and each one's viscosity `Gamma` (N s/m), a block `Gamma I`
    /// between nodes i and j where positive (empty outside an implicit world with shells).
    pub shell_edges: &'a [[u32; 4]],
    pub shell_viscosity: &'a [f32],
}

impl MatrixSources<'_> {
    /// The chain of a list record of particle `p` with partner `q` (a wall beyond the
    /// particles), as the contact passes find it.
    fn list_chain(&self, p: usize, q: usize) -> u32 {
        let (src, pr) = // A record in contact is never a dividing pair's (`divides_with`): no flags needed.
        list_record_pair(p as u32, q as u32, (self.walls, &[]), self.step, self.material);
        self.table.chain_map(src)[pr.table as usize]
    }

    /// Every pair in contact with a matrix record: `(p, q, record)`, in record order, then the
    /// fixed pairs.
    fn pairs(&self, n: usize) -> Vec<(u32, u32, ContactMatrixHistory)> {
        let offsets = matrix_offsets(self.table);
        let mut out: Vec<(u32, u32, ContactMatrixHistory)> = (0..n)
            .into_par_iter()
            .with_min_len(SUM_CHUNK)
            .flat_map_iter(|p| {
                let records = self.pair_start[p] as usize..self.pair_start[p + 1] as usize;
                let offsets = &offsets;
                records.filter_map(move |r| {
                    let flag = self.nbr_slot[r];
                    if flag == 0 {
                        return None;
                    }
                    let q = self.pair_j[r] as usize;
                    let off = (*offsets.get(self.list_chain(p, q) as usize)?)?;
                    let at = (flag as usize - 1) * self.stride + off;
                    Some((p as u32, q as u32, record(self.history, at)))
                })
            })
            .collect();
        let map = self.table.chain_map(SourceKind::Fixed);
        for k in 0..self.fixed_pairs.len() {
            let pr = fixed::source_pair(k, self.step, self.material, self.fixed_pairs);
            let chain = map.get(pr.table as usize);
            if let Some(Some(off)) = chain.and_then(|&c| offsets.get(c as usize)) {
                let at = k * self.fixed_stride + off;
                out.push((pr.p, pr.q, record(self.fixed_history, at)));
            }
        }
        for (e, &gamma) in self.shell_edges.iter().zip(self.shell_viscosity) {
            if gamma > 0.0 {
                let block = ContactMatrixHistory {
                    normal: [1.0, 0.0, 0.0],
                    gamma_n: gamma,
                    gamma_t: gamma,
                    ..Default::default()
                };
                out.push((e[0], e[1], block));
            }
        }
        out
    }
}

impl ContactMatrix {
    /// The matrix of the pairs in contact, both sides of each.
    pub fn gather(src: &MatrixSources<'_>, n: usize) -> ContactMatrix {
        let pairs = src.pairs(n);
        let mut start = vec![0u32; n + 1];
        for &(p, q, _) in &pairs {
            start[p as usize + 1] += 1;
            if (q as usize) < n {
                start[q as usize + 1] += 1;
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut at: Vec<u32> = start[..n].to_vec();
        let blank = Entry {
            partner: 0,
            block: ContactMatrixHistory::default(),
        };
        let mut entries = vec![blank; start[n] as usize];
        for &(p, q, block) in &pairs {
            entries[at[p as usize] as usize] = Entry { partner: q, block };
            at[p as usize] += 1;
            if (q as usize) < n {
                // The same block from the other side: its normal reversed, which the block
                // `a n n^T + b (I - n n^T)` does not see.
                entries[at[q as usize] as usize] = Entry { partner: p, block };
                at[q as usize] += 1;
            }
        }
        ContactMatrix { start, entries }
    }

    /// Particle `i`'s entries.
    pub fn of(&self, i: usize) -> &[Entry] {
        &self.entries[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// `(a n n^T + b (I - n n^T)) y`.
#[inline]
fn block_times(n: [f64; 3], a: f64, b: f64, y: [f64; 3]) -> [f64; 3] {
    let ny = n[0] * y[0] + n[1] * y[1] + n[2] * y[2];
    std::array::from_fn(|k| b * y[k] + (a - b) * ny * n[k])
}

/// A block's normal and its two weights `(a, b)` under coefficients `c`.
#[inline]
fn weights(e: &ContactMatrixHistory, c: &Coefficients) -> ([f64; 3], f64, f64) {
    let n = e.normal.map(|x| x as f64);
    let a = c.gamma * e.gamma_n as f64 + c.stiffness * e.stiffness_n as f64;
    let b = c.gamma * e.gamma_t as f64 + c.stiffness * e.stiffness_t as f64;
    (n, a, b)
}

/// One side of a pair as a solve applies it: `M = a n n^T + b (I - n n^T)` towards `partner`,
/// weighted once per solve (24 bytes; the same f32 values from both sides, so the operator is
/// symmetric).
#[derive(Clone, Copy, Debug)]
struct Weighted {
    partner: u32,
    n: [f32; 3],
    a: f32,
    b: f32,
}

/// The linear operator of one solve: `y_i = d_i x_i + sum_e M_e (x_i - x_partner)` over free
/// particles; the partners' values beyond the unknowns (walls, kinematic particles) are
/// `known`.
pub struct Operator<'a> {
    matrix: &'a ContactMatrix,
    /// Each particle's own diagonal (mass and drag, weighted).
    diagonal: &'a [f64],
    /// Whether each particle is an unknown.
    free: &'a [bool],
    /// The matrix's entries under the solve's coefficients, in its order.
    weighted: Vec<Weighted>,
}

impl<'a> Operator<'a> {
    /// The operator of `matrix` under coefficients `c`, with each particle's own `diagonal`,
    /// over the `free` particles.
    pub fn new(
        matrix: &'a ContactMatrix,
        c: Coefficients,
        diagonal: &'a [f64],
        free: &'a [bool],
    ) -> Operator<'a> {
        let weighted = matrix
            .entries
            .par_iter()
            .with_min_len(SUM_CHUNK)
            .map(|e| {
                let (_, a, b) = weights(&e.block, &c);
                Weighted {
                    partner: e.partner,
                    n: e.block.normal,
                    a: a as f32,
                    b: b as f32,
                }
            })
            .collect();
        Operator {
            matrix,
            diagonal,
            free,
            weighted,
        }
    }

    /// Particle `i`'s weighted entries.
    #[inline]
    fn of(&self, i: usize) -> &[Weighted] {
        let s = &self.matrix.start;
        &self.weighted[s[i] as usize..s[i + 1] as usize]
    }

    /// Row `i` of `A x` (zero for a known particle).
    #[inline]
    fn row(&self, i: usize, x: &[[f64; 3]], walls: &[[f64; 3]]) -> [f64; 3] {
        if !self.free[i] {
            return [0.0; 3];
        }
        let n = x.len();
        let d = self.diagonal[i];
        let xi = x[i];
        let mut s = xi.map(|v| d * v);
        for e in self.of(i) {
            let p = e.partner as usize;
            let xp = if p < n { x[p] } else { walls[p - n] };
            let rel: [f64; 3] = std::array::from_fn(|k| xi[k] - xp[k]);
            let m = block_times(e.n.map(|v| v as f64), e.a as f64, e.b as f64, rel);
            for k in 0..3 {
                s[k] += m[k];
            }
        }
        s
    }

    /// `y = A x` where `x` holds the unknowns and the known values alike; rows of known
    /// particles are zero.
    pub fn apply(&self, x: &[[f64; 3]], walls: &[[f64; 3]], y: &mut [[f64; 3]]) {
        y.par_iter_mut()
            .enumerate()
            .with_min_len(SUM_CHUNK / 4)
            .for_each(|(i, yi)| *yi = self.row(i, x, walls));
    }

    /// `q = A p` and `p . q`, summed over fixed chunks in order.
    fn apply_dot(&self, p: &[[f64; 3]], walls: &[[f64; 3]], q: &mut [[f64; 3]]) -> f64 {
        let partial: Vec<f64> = q
            .par_chunks_mut(SUM_CHUNK)
            .enumerate()
            .map(|(c, qc)| {
                let mut s = 0.0;
                for (k, qi) in qc.iter_mut().enumerate() {
                    let i = c * SUM_CHUNK + k;
                    *qi = self.row(i, p, walls);
                    s += qi[0] * p[i][0] + qi[1] * p[i][1] + qi[2] * p[i][2];
                }
                s
            })
            .collect();
        partial.iter().sum()
    }

    /// Each free particle's diagonal block inverted (Jacobi by blocks), as the six entries of a
    /// symmetric matrix (xx, yy, zz, xy, xz, yz); a block that cannot be inverted is replaced
    /// by the inverse of its diagonal (1 where that is zero), which keeps the preconditioner
    /// positive definite.
    pub fn preconditioner(&self) -> Vec<[f64; 6]> {
        (0..self.free.len())
            .into_par_iter()
            .with_min_len(SUM_CHUNK / 4)
            .map(|i| {
                let d = self.diagonal[i];
                let mut m = [d, d, d, 0.0, 0.0, 0.0];
                for e in self.of(i) {
                    let (n, a, b) = (e.n.map(|v| v as f64), e.a as f64, e.b as f64);
                    for k in 0..3 {
                        m[k] += b + (a - b) * n[k] * n[k];
                    }
                    m[3] += (a - b) * n[0] * n[1];
                    m[4] += (a - b) * n[0] * n[2];
                    m[5] += (a - b) * n[1] * n[2];
                }
                invert_symmetric(m)
            })
            .collect()
    }
}

/// The inverse of a symmetric 3x3 matrix `(xx, yy, zz, xy, xz, yz)`, or of its diagonal where
/// it is not safely invertible.
fn invert_symmetric(m: [f64; 6]) -> [f64; 6] {
    let [a, d, f, b, c, e] = m;
    // Cofactors of [[a b c] [b d e] [c e f]].
    let (c00, c11, c22) = (d * f - e * e, a * f - c * c, a * d - b * b);
    let (c01, c02, c12) = (c * e - b * f, b * e - c * d, b * c - a * e);
    let det = a * c00 + b * c01 + c * c02;
    let scale = a.abs().max(d.abs()).max(f.abs());
    if det > 1e-12 * scale * scale * scale && scale > 0.0 {
        return [c00, c11, c22, c01, c02, c12].map(|x| x / det);
    }
    let inv = |x: f64| if x > 0.0 { 1.0 / x } else { 1.0 };
    [inv(a), inv(d), inv(f), 0.0, 0.0, 0.0]
}

/// `P r` for a symmetric block `P`.
#[inline]
fn sym_times(p: &[f64; 6], r: [f64; 3]) -> [f64; 3] {
    [
        p[0] * r[0] + p[3] * r[1] + p[4] * r[2],
        p[3] * r[0] + p[1] * r[1] + p[5] * r[2],
        p[4] * r[0] + p[5] * r[1] + p[2] * r[2],
    ]
}

/// `sum_i a_i . b_i` in a fixed order.
fn dot(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    let partial: Vec<f64> = a
        .par_chunks(SUM_CHUNK)
        .zip(b.par_chunks(SUM_CHUNK))
        .map(|(x, y)| {
            x.iter()
                .zip(y)
                .map(|(u, v)| u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
                .sum::<f64>()
        })
        .collect();
    partial.iter().sum()
}

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveReport {
    pub iterations: u32,
    /// The residual's norm over the right-hand side's at the end.
    pub residual: f64,
    pub converged: bool,
    /// Whether a search direction found the matrix not positive definite.
    pub indefinite: bool,
}

/// Solve `A x = b` for the free particles by preconditioned conjugate gradients, from the
/// start `x` (whose known entries stay as they are). Each iteration is three passes over the
/// particles: `q = A p` with `p . q`; `x += alpha p`, `r -= alpha q`, `z = P r` with `r . r`
/// and `r . z`; `p = z + beta p`.
pub fn conjugate_gradient(
    op: &Operator<'_>,
    b: &[[f64; 3]],
    walls: &[[f64; 3]],
    x: &mut [[f64; 3]],
    dynamics: &Dynamics,
) -> SolveReport {
    let n = x.len();
    let free = op.free;
    let bnorm = dot_free(b, b, free).sqrt();
    let mut r = vec![[0.0; 3]; n];
    op.apply(x, walls, &mut r);
    r.par_iter_mut()
        .zip(b.par_iter())
        .zip(free.par_iter())
        .for_each(|((r, b), &f)| {
            *r = if f {
                std::array::from_fn(|k| b[k] - r[k])
            } else {
                [0.0; 3]
            }
        });
    let target = dynamics.tolerance * bnorm;
    let mut report = SolveReport {
        iterations: 0,
        residual: 0.0,
        converged: false,
        indefinite: false,
    };
    let rnorm = dot(&r, &r).sqrt();
    if rnorm <= target || bnorm == 0.0 && rnorm == 0.0 {
        report.converged = true;
        report.residual = if bnorm > 0.0 { rnorm / bnorm } else { 0.0 };
        return report;
    }
    let pre = op.preconditioner();
    let mut z: Vec<[f64; 3]> = (0..n)
        .into_par_iter()
        .map(|i| sym_times(&pre[i], r[i]))
        .collect();
    let mut p = z.clone();
    let mut rz = dot(&r, &z);
    let none = vec![[0.0; 3]; walls.len()];
    let scale = bnorm.max(rnorm);
    let mut q = vec![[0.0; 3]; n];
    for it in 1..=dynamics.max_iterations {
        report.iterations = it;
        let pq = op.apply_dot(&p, &none, &mut q);
        if pq <= 0.0 || !pq.is_finite() {
            report.indefinite = true;
            report.residual = dot(&r, &r).sqrt() / scale;
            return report;
        }
        let alpha = rz / pq;
        let (rr, rz_new) = update(alpha, &mut x[..], &mut r, &mut z, &p, &q, &pre);
        report.residual = rr.sqrt() / scale;
        if rr.sqrt() <= target {
            report.converged = true;
            return report;
        }
        let beta = rz_new / rz;
        rz = rz_new;
        p.par_iter_mut()
            .zip(z.par_iter())
            .with_min_len(SUM_CHUNK / 4)
            .for_each(|(p, z)| *p = std::array::from_fn(|k| z[k] + beta * p[k]));
    }
    report
}

/// `x += alpha p`, `r -= alpha q`, `z = P r`; returns `(r . r, r . z)`, summed over fixed
/// chunks in order. Known particles have zero `p`, `q` and `r`, so they stay as they are.
fn update(
    alpha: f64,
    x: &mut [[f64; 3]],
    r: &mut [[f64; 3]],
    z: &mut [[f64; 3]],
    p: &[[f64; 3]],
    q: &[[f64; 3]],
    pre: &[[f64; 6]],
) -> (f64, f64) {
    let partial: Vec<(f64, f64)> = x
        .par_chunks_mut(SUM_CHUNK)
        .zip(r.par_chunks_mut(SUM_CHUNK))
        .zip(z.par_chunks_mut(SUM_CHUNK))
        .enumerate()
        .map(|(c, ((xc, rc), zc))| {
            let (mut rr, mut rz) = (0.0, 0.0);
            for k in 0..xc.len() {
                let i = c * SUM_CHUNK + k;
                for d in 0..3 {
                    xc[k][d] += alpha * p[i][d];
                    rc[k][d] -= alpha * q[i][d];
                }
                zc[k] = sym_times(&pre[i], rc[k]);
                let (ri, zi) = (rc[k], zc[k]);
                rr += ri[0] * ri[0] + ri[1] * ri[1] + ri[2] * ri[2];
                rz += ri[0] * zi[0] + ri[1] * zi[1] + ri[2] * zi[2];
            }
            (rr, rz)
        })
        .collect();
    partial
        .iter()
        .fold((0.0, 0.0), |(a, b), &(c, d)| (a + c, b + d))
}

/// `sum_i a_i . b_i` over the free particles, in a fixed order.
fn dot_free(a: &[[f64; 3]], b: &[[f64; 3]], free: &[bool]) -> f64 {
    let partial: Vec<f64> = a
        .par_chunks(SUM_CHUNK)
        .zip(b.par_chunks(SUM_CHUNK))
        .zip(free.par_chunks(SUM_CHUNK))
        .map(|((x, y), f)| {
            x.iter()
                .zip(y)
                .zip(f)
                .filter(|(_, &f)| f)
                .map(|((u, v), _)| u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
                .sum::<f64>()
        })
        .collect();
    partial.iter().sum()
}

/// Per particle, `d_i |v_i|^2` and half of `v_rel^T M_e v_rel` of each of its pairs (a wall's
/// pair whole) under coefficients `c`: summed, the power a friction matrix takes from
/// velocities `v` (W), or twice the energy a stiffness block stores for displacements `v`.
pub fn quadratic_form(
    matrix: &ContactMatrix,
    c: &Coefficients,
    diagonal: &[f64],
    v: &[[f64; 3]],
    walls: &[[f64; 3]],
) -> Vec<f64> {
    let n = v.len();
    (0..n)
        .into_par_iter()
        .with_min_len(SUM_CHUNK)
        .map(|i| {
            let mut s = diagonal[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
            for e in matrix.of(i) {
                let p = e.partner as usize;
                let vp = if p < n { v[p] } else { walls[p - n] };
                let rel = std::array::from_fn(|k| v[i][k] - vp[k]);
                let (nn, a, b) = weights(&e.block, c);
                let m = block_times(nn, a, b, rel);
                // A particle pair is seen from both sides: half from each; a wall's once.
                let half = if p < n { 0.5 } else { 1.0 };
                s += half * (m[0] * rel[0] + m[1] * rel[1] + m[2] * rel[2]);
            }
            s
        })
        .collect()
}
