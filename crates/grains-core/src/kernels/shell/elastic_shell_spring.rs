//! In-plane stretching of a thin elastic shell as springs along its mesh edges, with Van
//! Gelder's stiffness (Mpacts ElasticShellSpring, `shared/reference/000`; Van Gelder 1998,
//! "Approximate simulation of elastic membranes by triangulated spring meshes"). WGSL twin:
//! `shaders/shell/elastic_shell_spring.wgsl`.
//!
//! `k = E (A1 t1 + A2 t2) / L0^2` for an edge of rest length `L0` between triangles of areas
//! `A1`, `A2` and thickness `t` (one triangle on a boundary). On a mesh of equilateral
//! triangles this gives `k = sqrt(3)/2 E t` inside and half of it on the boundary, and the
//! spring network then has the 2-D Young's modulus `E t` and Poisson's ratio 1/3 of a
//! triangular lattice; for other Poisson's ratios the model is an approximation (as the
//! reference warns). Force on node i: `k (L - L0)` towards node j; energy `k (L - L0)^2 / 2`.
//!
//! Scene: `stretch = { law = "elastic_shell_spring" }` (E from the shell's material).

/// Scene keyword.
pub const KEYWORD: &str = "elastic_shell_spring";

/// Van Gelder's stiffness (N/m) from Young's modulus `young` (Pa), the element volume
/// `a1 t1 + a2 t2` (m^3) and the rest length `l0` (m).
pub fn stiffness(young: f64, element_volume: f64, l0: f64) -> f64 {
    young * element_volume / (l0 * l0)
}

/// `(tension, energy)` of the spring of stiffness `k` (N/m) at `length` for `rest` (m): the
/// tension (N, positive when stretched) pulls node i towards node j.
pub fn law_elastic_shell_spring(length: f32, rest: f32, k: f32) -> [f32; 2] {
    let s = length - rest;
    [k * s, 0.5 * k * s * s]
}
