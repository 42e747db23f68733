//! Errors of the core library.

use thiserror::Error;

use crate::units::qty_f32;

/// What can go wrong while assembling a world from validated input.
#[derive(Debug, Error)]
pub enum CoreError {
    /// An implicit solve did not reach its tolerance.
    #[error(
        "step {step}: the implicit solve did not converge: {iterations} conjugate-gradient \
         iterations left the residual at {residual:.3e} of the right-hand side \
         ([simulation] solver.tolerance {tolerance:.1e}); {cause}"
    )]
    SolveFailed {
        step: u64,
        iterations: u32,
        residual: f64,
        tolerance: f64,
        cause: String,
    },
    /// A periodic axis must hold at least three broad-phase cells so that the 27 cells around
    /// a particle are distinct.
    #[error(
        "periodic axis {axis} is {} long but needs at least 3 cells of {} \
         (largest diameter + skin + interaction range); make the domain longer than {} \
         or the particles smaller",
        qty_f32(*length, "m"), qty_f32(*cell, "m"), qty_f32(*min, "m")
    )]
    PeriodicAxisTooShort {
        axis: char,
        length: f32,
        cell: f32,
        min: f32,
    },
    /// No interaction is defined between two materials that can touch.
    #[error("{0}")]
    MissingInteraction(Box<MissingInteraction>),
    /// A backend could not carry on.
    #[error("the {backend} backend failed: {message}")]
    Backend { backend: String, message: String },
    /// A saved state that does not fit the world it is restored into.
    #[error("the saved state does not fit this scene: {0}")]
    BadState(String),
    /// A fixed pair that names a particle that does not exist, or one particle twice.
    #[error(
        "fixed pair {index} joins particles {i} and {j}, but there are {particles} particles \
         (ids 0 to {particles} - 1) and a pair needs two different ones"
    )]
    BadFixedPair {
        index: usize,
        i: u32,
        j: u32,
        particles: usize,
    },
    /// A shell's mesh cannot be used (not a manifold, inconsistent orientation, open with a
    /// volume law, ...).
    #[error("shell mesh: {0}")]
    BadMesh(String),
    /// Shapes that cannot be simulated as given (a material shared by two kinds of shape, a
    /// capsule against a wall kind it has no resolver for).
    #[error("{0}")]
    BadShape(String),
    /// A world with nothing to simulate.
    #[error("the scene has no particles")]
    NoParticles,
    /// A change of a run between steps that does not fit it (a particle that does not exist
    /// or cannot take it, a value that is not finite); nothing of it was made.
    #[error("{0}")]
    Refused(String),
    /// A change of a run between steps that needs what its world was built without; nothing
    /// of it was made.
    #[error(
        "the world was built without {what}: set `World::{flag}` to true and build the \
         backend again (from this one's `Backend::state`, to go on from where it stands)"
    )]
    BuiltWithout {
        /// What the change needs, in words.
        what: &'static str,
        /// The `World` field that turns it on.
        flag: &'static str,
    },
}

/// Two materials that can touch with no interaction between them.
#[derive(Debug, Error)]
#[error("{why} can touch, but no [[interaction]] joins materials \"{a}\" and \"{b}\"; add one with between = [\"{a}\", \"{b}\"]")]
pub struct MissingInteraction {
    pub a: String,
    pub b: String,
    /// Why they can touch, e.g. `2 particles of "glass"`.
    pub why: String,
}
