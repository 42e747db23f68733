//! Materials and their mixing rules: Hertz effective modulus
//! `E* = 1/((1-nu1^2)/E1 + (1-nu2^2)/E2)`, effective shear modulus
//! `G* = 1/(2(2-nu1)(1+nu1)/E1 + 2(2-nu2)(1+nu2)/E2)` (Mindlin; the form LIGGGHTS uses).
//! A leaf: it names nothing else of the crate, so laws, the registry and the pair table
//! all read it without importing one another.

/// An isotropic elastic material.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name used by the scene.
    pub name: String,
    /// Density (kg/m^3).
    pub density: f64,
    /// Young's modulus (Pa).
    pub young: f64,
    /// Poisson's ratio.
    pub poisson: f64,
    /// Drag against the medium or substrate, for the implicit dynamics modes.
    pub drag: Drag,
}

/// A particle's drag against its medium or substrate (Mpacts' substrate friction): the
/// diagonal of the friction matrix the implicit dynamics modes solve with. Zero in a material
/// that gives none; the overdamped mode requires both positive.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drag {
    /// Translational drag `gamma_0` (N s/m): the force is `-gamma_0 v`.
    pub translational: f64,
    /// Rotational drag (N m s): the torque is `-gamma_r omega`.
    pub rotational: f64,
}

/// Effective Hertz modulus of two materials (Pa).
pub fn effective_young(a: &Material, b: &Material) -> f64 {
    1.0 / ((1.0 - a.poisson * a.poisson) / a.young + (1.0 - b.poisson * b.poisson) / b.young)
}

/// Effective shear modulus of two materials for Mindlin's tangential stiffness (Pa).
pub fn effective_shear(a: &Material, b: &Material) -> f64 {
    1.0 / (2.0 * (2.0 - a.poisson) * (1.0 + a.poisson) / a.young
        + 2.0 * (2.0 - b.poisson) * (1.0 + b.poisson) / b.young)
}
