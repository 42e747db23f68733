//! The CPU backend's step in an implicit dynamics mode ([`crate::dynamics`]): after the
//! gather, the solve takes the place of the second half-step.

use rayon::prelude::*;

use super::solve::{conjugate_gradient, quadratic_form, ContactMatrix, MatrixSources, Operator};
use super::CpuBackend;
use crate::dynamics::{Coefficients, Mode};
use crate::error::CoreError;
use crate::kernels::passes::gather::kahan_add;

/// A solve that stopped the run: what [`CpuBackend::run_guarded`] reports.
#[derive(Clone, Debug)]
pub(super) struct SolveFailure {
    pub step: u64,
    pub iterations: u32,
    pub residual: f64,
    pub cause: String,
}

/// The three values of a vector, as f64.
fn f64x3(v: &[f32; 4]) -> [f64; 3] {
    [v[0] as f64, v[1] as f64, v[2] as f64]
}

impl CpuBackend {
    /// The contact matrix of the pairs in contact, from their `contact_matrix` records, and of
    /// the shells' viscous edges.
    fn contact_matrix(&self) -> ContactMatrix {
        let w = &self.world;
        let src = MatrixSources {
            table: &w.table,
            step: &self.step,
            material: &w.particles.material,
            walls: &self.walls[..self.world.walls.len()],
            pair_start: &self.list.pair_start,
            pair_j: &self.list.pair_j,
            nbr_slot: &self.nbr_slot,
            history: &self.history,
            stride: w.table.nbr_history_words,
            fixed_pairs: &w.fixed_pairs,
            fixed_history: &self.fixed_history,
            fixed_stride: w.table.fixed_history_stride,
            shell_edges: &w.shells.edges,
            shell_viscosity: &self.shell_viscosity,
        };
        ContactMatrix::gather(&src, self.pos.len())
    }

    /// The solve of an implicit step, then each particle's new velocity and spin from it, and,
    /// in a step (`book`; not the solve of the starting state), the energy the friction takes
    /// booked as damping.
    pub(super) fn solve_pass(&mut self, book: bool) {
        if self.solve_failure.is_some() {
            return;
        }
        let w = &self.world;
        let dyn_ = w.dynamics;
        let (mode, dt, lambda) = (dyn_.mode, w.dt, dyn_.implicitness);
        let n = self.pos.len();
        let matrix = self.contact_matrix();
        let c = dyn_.coefficients(dt);
        let (vel, pos) = (&self.vel, &self.pos);
        // Free particles are the unknowns; kinematic, dormant and removed ones are known.
        let free: Vec<bool> = (0..n).map(|i| vel[i][3] > 0.0 && pos[i][3] > 0.0).collect();
        let mass: Vec<f64> = vel
            .iter()
            .map(|v| if v[3] > 0.0 { 1.0 / v[3] as f64 } else { 0.0 })
            .collect();
        // Each free particle's drag, translational and rotational; none for the known ones.
        let material = &w.particles.material;
        let drag_of = |i: usize| w.materials[material[i] as usize].drag;
        let (drag, spin_drag): (Vec<f64>, Vec<f64>) = (0..n)
            .map(|i| {
                if free[i] {
                    (drag_of(i).translational, drag_of(i).rotational)
                } else {
                    (0.0, 0.0)
                }
            })
            .unzip();
        let diagonal: Vec<f64> = (0..n)
            .map(|i| c.mass * mass[i] + c.drag * drag[i])
            .collect();
        let wall_v: Vec<[f64; 3]> = self
            .walls
            .iter()
            .map(|wl| {
                wl.velocity
                    .map(|x| if wl.moving != 0 { x as f64 } else { 0.0 })
            })
            .collect();
        let v_now: Vec<[f64; 3]> = vel.iter().map(f64x3).collect();
        let g = w.gravity;
        let planar = w.planar;
        let mut b: Vec<[f64; 3]> = (0..n)
            .map(|i| {
                let f = f64x3(&self.force[i]);
                let mut r: [f64; 3] = std::array::from_fn(|k| f[k] + mass[i] * g[k]);
                if planar {
                    r[2] = 0.0;
                }
                r
            })
            .collect();
        if mode == Mode::Underdamped {
            // The friction and the stiffness's correction at this step's velocities.
            let explicit = Coefficients {
                gamma: 1.0,
                stiffness: lambda * dt,
                mass: 0.0,
                drag: 1.0,
            };
            let op = Operator::new(&matrix, explicit, &drag, &free);
            let mut y = vec![[0.0; 3]; n];
            op.apply(&v_now, &wall_v, &mut y);
            b.par_iter_mut().zip(y.par_iter()).for_each(|(b, y)| {
                for k in 0..3 {
                    b[k] -= y[k];
                }
            });
        }
        // The unknown's start and the known values: velocities (overdamped), accelerations
        // (underdamped, zero for kinematic bodies and walls), displacements (static).
        let (mut x, known_walls): (Vec<[f64; 3]>, Vec<[f64; 3]>) = match mode {
            Mode::Overdamped => (v_now.clone(), wall_v.clone()),
            Mode::Underdamped => (vec![[0.0; 3]; n], vec![[0.0; 3]; wall_v.len()]),
            _ => (
                v_now
                    .iter()
                    .zip(&free)
                    .map(|(v, &f)| if f { [0.0; 3] } else { v.map(|x| x * dt) })
                    .collect(),
                wall_v.iter().map(|v| v.map(|x| x * dt)).collect(),
            ),
        };
        let op = Operator::new(&matrix, c, &diagonal, &free);
        let report = conjugate_gradient(&op, &b, &known_walls, &mut x, &dyn_);
        self.solves += 1;
        self.solve_iterations += report.iterations as u64;
        if !report.converged {
            let cause = if report.indefinite {
                "the matrix lost positive definiteness (a compressed spring's transverse \
                 stiffness, or a stiffness too large for the drag at this dt)"
            } else {
                "the matrix is ill-conditioned: a particle with almost no drag, or stiffness \
                 and drag many orders of magnitude apart; raise max_iterations or the drag"
            };
            self.solve_failure = Some(SolveFailure {
                step: self.tally.steps,
                iterations: report.iterations,
                residual: report.residual,
                cause: cause.into(),
            });
            return;
        }
        if planar {
            x.iter_mut().for_each(|v| v[2] = 0.0);
        }
        if book {
            // The velocities the step ends with: the solution, or in the underdamped mode this
            // step's kicked by the acceleration solved for.
            let v_end: Vec<[f64; 3]> = match mode {
                Mode::Underdamped => v_now
                    .iter()
                    .zip(&x)
                    .zip(&free)
                    .map(|((v, a), &f)| {
                        if f {
                            std::array::from_fn(|k| v[k] + a[k] * dt)
                        } else {
                            *v
                        }
                    })
                    .collect(),
                _ => x.clone(),
            };
            self.book_friction(&matrix, &v_end, (&drag, &spin_drag), &wall_v);
        }
        self.take_solution(&x, &free, &spin_drag);
    }

    /// Velocities and spins from the solution `x` of mode's unknowns.
    fn take_solution(&mut self, x: &[[f64; 3]], free: &[bool], spin_drag: &[f64]) {
        let (mode, dt, planar) = (self.world.dynamics.mode, self.world.dt, self.world.planar);
        let torque = &self.torque;
        (&mut self.vel, &mut self.omega)
            .into_par_iter()
            .enumerate()
            .for_each(|(i, (v, o))| {
                if !free[i] {
                    return;
                }
                let t = f64x3(&torque[i]);
                let (nv, mut no): ([f64; 3], [f64; 3]) = match mode {
                    Mode::Overdamped => {
                        let gr = spin_drag[i];
                        (x[i], t.map(|t| if gr > 0.0 { t / gr } else { 0.0 }))
                    }
                    Mode::Underdamped => (
                        std::array::from_fn(|k| v[k] as f64 + x[i][k] * dt),
                        std::array::from_fn(|k| o[k] as f64 + t[k] * o[3] as f64 * dt),
                    ),
                    _ => (x[i].map(|u| u / dt), [0.0; 3]),
                };
                if planar {
                    no[0] = 0.0;
                    no[1] = 0.0;
                }
                for k in 0..3 {
                    v[k] = nv[k] as f32;
                    o[k] = no[k] as f32;
                }
            });
    }

    /// Book the energy the step's friction takes, `dt v^T Gamma v` with the drag (and, in the
    /// overdamped mode, the spin's `dt gamma_r omega^2` and the implicit scheme's own
    /// `(lambda - 1/2) dt^2 v^T K v`, what backward Euler takes out of a spring and
    /// Crank-Nicolson does not), into each particle's damping dissipation.
    fn book_friction(
        &mut self,
        matrix: &ContactMatrix,
        v: &[[f64; 3]],
        (drag, spin_drag): (&[f64], &[f64]),
        walls: &[[f64; 3]],
    ) {
        let w = &self.world;
        let (mode, dt, lambda) = (w.dynamics.mode, w.dt, w.dynamics.implicitness);
        if mode == Mode::Static {
            return;
        }
        let friction = Coefficients {
            gamma: 1.0,
            stiffness: 0.0,
            mass: 0.0,
            drag: 0.0,
        };
        let mut e: Vec<f64> = quadratic_form(matrix, &friction, drag, v, walls)
            .into_iter()
            .map(|p| p * dt)
            .collect();
        if mode == Mode::Overdamped {
            let stiff = Coefficients {
                gamma: 0.0,
                stiffness: 1.0,
                mass: 0.0,
                drag: 0.0,
            };
            let none = vec![0.0; v.len()];
            let k = quadratic_form(matrix, &stiff, &none, v, walls);
            let t = &self.torque;
            e.iter_mut().enumerate().for_each(|(i, e)| {
                *e += (lambda - 0.5) * dt * dt * k[i];
                let gr = spin_drag[i];
                if gr > 0.0 {
                    let tt = f64x3(&t[i]);
                    *e += dt * (tt[0] * tt[0] + tt[1] * tt[1] + tt[2] * tt[2]) / gr;
                }
            });
        }
        let unit = self.step.unit;
        self.dissipated
            .par_iter_mut()
            .zip(e.par_iter())
            .for_each(|(d, &e)| {
                if e != 0.0 {
                    (d[0], d[1]) = kahan_add(d[0], d[1], e as f32, unit);
                }
            });
    }

    /// The failure of the last solve, as the error a guarded run returns.
    pub(super) fn solve_error(&self) -> Option<CoreError> {
        self.solve_failure.as_ref().map(|f| CoreError::SolveFailed {
            step: f.step,
            iterations: f.iterations,
            residual: f.residual,
            tolerance: self.world.dynamics.tolerance,
            cause: f.cause.clone(),
        })
    }
}
