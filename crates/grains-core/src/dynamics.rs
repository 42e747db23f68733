//! How a world moves: the inertial dynamics of velocity Verlet, or one of the implicit modes of
//! Mpacts' contact-matrix elements (`shared/reference/000`: ComputeContactMatrixElement
//! Overdamped, Underdamped and Static), which solve a linear system each step
//! (`crate::cpu::solve`).
//!
//! In every implicit mode a pair in contact contributes the block `M = c_g Gamma + c_k K`
//! (friction `Gamma = grad_v F`, stiffness `K = -grad_x F`, both kept by `contact_matrix`) to
//! both particles' diagonal blocks, and `-M` off the diagonal; each particle adds its own
//! diagonal `d`:
//!
//! | mode | unknown | `c_g` | `c_k` | `d` | right-hand side |
//! |---|---|---|---|---|---|
//! | overdamped | `v` | 1 | `lambda dt` | `gamma_0` | `F + m g` |
//! | underdamped | `a` | `lambda dt` | `lambda dt^2` | `m + lambda dt gamma_0` | `F + m g - gamma_0 v - (Gamma + lambda dt K) v` |
//! | static | `u` | 0 | 1 | 0 | `F + m g` |
//!
//! `lambda` is the implicitness (0 explicit Euler, 0.5 Crank-Nicolson, 1 implicit Euler). The
//! overdamped velocity moves each particle by `v dt`; the underdamped acceleration kicks
//! `v += a dt` before the drift; the static displacement `u` is one load step, `v = u / dt`.
//! Rotation is not coupled through the contacts: the overdamped spin is `T / gamma_r`, the
//! underdamped spin is kicked by `T / I dt`, and the static spin is zero.

/// The dynamics mode (`[simulation] dynamics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Velocity Verlet with inertia: the granular default.
    #[default]
    Inertial,
    /// `M v = F`: inertia neglected, every force balanced by friction.
    Overdamped,
    /// `M a = F` with the mass on the diagonal, semi-implicit.
    Underdamped,
    /// `K u = F`: a static linear spring network, one solve per load step.
    Static,
}

impl Mode {
    /// The scene keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            Mode::Inertial => "inertial",
            Mode::Overdamped => "overdamped",
            Mode::Underdamped => "underdamped",
            Mode::Static => "static",
        }
    }

    /// Every mode, in the order the scene reference lists them.
    pub const ALL: [Mode; 4] = [
        Mode::Inertial,
        Mode::Overdamped,
        Mode::Underdamped,
        Mode::Static,
    ];
}

/// The dynamics of a world: its mode and, for the implicit modes, the solve's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dynamics {
    pub mode: Mode,
    /// `lambda` in [0, 1]: how much of the stiffness the solve takes implicitly.
    pub implicitness: f64,
    /// The solve stops when the residual's norm is below this fraction of the right-hand
    /// side's.
    pub tolerance: f64,
    /// Conjugate-gradient iterations a solve may take before the run stops.
    pub max_iterations: u32,
}

impl Default for Dynamics {
    fn default() -> Dynamics {
        Dynamics {
            mode: Mode::Inertial,
            implicitness: 1.0,
            tolerance: 1e-8,
            max_iterations: 1000,
        }
    }
}

/// The coefficients of a step's system (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// Weight of a pair's friction block.
    pub gamma: f64,
    /// Weight of a pair's stiffness block.
    pub stiffness: f64,
    /// Weight of a particle's mass on its diagonal.
    pub mass: f64,
    /// Weight of a particle's drag on its diagonal.
    pub drag: f64,
}

impl Dynamics {
    /// Whether the velocities come from a solve rather than from velocity Verlet.
    pub fn implicit(&self) -> bool {
        self.mode != Mode::Inertial
    }

    /// The weights of the system's blocks at time step `dt` (s).
    pub fn coefficients(&self, dt: f64) -> Coefficients {
        let l = self.implicitness;
        match self.mode {
            Mode::Inertial => Coefficients {
                gamma: 0.0,
                stiffness: 0.0,
                mass: 0.0,
                drag: 0.0,
            },
            Mode::Overdamped => Coefficients {
                gamma: 1.0,
                stiffness: l * dt,
                mass: 0.0,
                drag: 1.0,
            },
            Mode::Underdamped => Coefficients {
                gamma: l * dt,
                stiffness: l * dt * dt,
                mass: 1.0,
                drag: l * dt,
            },
            Mode::Static => Coefficients {
                gamma: 0.0,
                stiffness: 1.0,
                mass: 0.0,
                drag: 0.0,
            },
        }
    }
}
