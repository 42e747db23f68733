//! Helfrich bending of a hinge, `E = k_b (1 - cos(theta - theta0))` (Mpacts
//! ElasticBendingForce_Triangles and ElasticShellBendingForce_Triangles,
//! `shared/reference/000`; forces `-k_b sin(theta - theta0) grad theta` as in Fedosov 2010).
//! WGSL twin: `shaders/shell/elastic_bending.wgsl`.
//!
//! Two keywords share this kernel:
//! - `elastic_bending`: `k_b` given (`stiffness`, J);
//! - `elastic_shell_bending`: `k_b` from the shell's plate rigidity
//!   `D = E t^3 / (12 (1 - nu^2))` as `k_b = 2 D / sqrt(3)`. On a mesh of equilateral
//!   triangles the hinge energy gives the continuum rigidity `k_c = sqrt(3)/2 k_b` (the
//!   reference's sphere relation, which the sheet-on-a-cylinder test also finds), so this
//!   `k_b` makes the shell bend with the rigidity `D` of its material; the reference's
//!   ElasticShellBending takes `k_b = D`, about 13% softer.

use crate::kernels::shell::linear_bending::hinge_deviation;

/// Scene keyword of the law with a given `k_b`.
pub const KEYWORD: &str = "elastic_bending";
/// Its keys besides `law`.
pub const KEYS: &[&str] = &["stiffness", "reference_angle"];
/// Scene keyword of the law with `k_b` from E, nu and thickness.
pub const SHELL_KEYWORD: &str = "elastic_shell_bending";
/// Its keys besides `law`.
pub const SHELL_KEYS: &[&str] = &["reference_angle"];
/// Its code in `ShellEdgeParams::bend_law`.
pub const CODE: u32 = 2;

/// `k_b = 2 D / sqrt(3)` (J) for a shell of Young's modulus `young` (Pa), Poisson's ratio
/// `poisson` and thickness `t` (m).
pub fn shell_stiffness(young: f64, poisson: f64, t: f64) -> f64 {
    2.0 / 3f64.sqrt() * young * t * t * t / (12.0 * (1.0 - poisson * poisson))
}

/// `(dE/dtheta, energy)` of the hinge.
pub fn law_elastic_bending(theta: f32, theta0: f32, kb: f32) -> [f32; 2] {
    let d = hinge_deviation(theta, theta0);
    [kb * d.sin(), kb * (1.0 - d.cos())]
}
