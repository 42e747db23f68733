//! Viscosity of a thin shell as a dashpot on the relative velocity of each edge's nodes
//! (Mpacts N_T_ShellViscosity, `shared/reference/000`). WGSL twin:
//! `shaders/shell/shell_viscosity.wgsl`.
//!
//! `Gamma = mu t / sqrt(3)` (the prefactor of a regular triangulated mesh), equal normal and
//! tangential parts, so the force on node i is `-Gamma (v_i - v_j)`; it dissipates
//! `Gamma |v_i - v_j|^2 dt` per step (damping column).
//!
//! Scene: `damping = { law = "shell_viscosity", viscosity = mu }` (Pa s).

/// Scene keyword.
pub const KEYWORD: &str = "shell_viscosity";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["viscosity"];

/// `Gamma` (N s/m) of viscosity `mu` (Pa s) and thickness `t` (m).
pub fn coefficient(mu: f64, thickness: f64) -> f64 {
    mu * thickness / 3f64.sqrt()
}

/// `(force on node i, dissipated energy)` of the dashpot `gamma` (N s/m) at relative velocity
/// `vrel = v_i - v_j` (m/s) over `dt` (s).
pub fn law_shell_viscosity(vrel: [f32; 3], gamma: f32, dt: f32) -> [f32; 4] {
    let v = glam::Vec3::from(vrel);
    let f = -gamma * v;
    [f.x, f.y, f.z, gamma * v.dot(v) * dt]
}
