//! Bending of a hinge with a moment linear in its angle (Mpacts LinearBendingForce_Triangles,
//! `shared/reference/000`). WGSL twin: `shaders/shell/linear_bending.wgsl`.
//!
//! `M = k_b (theta - theta0)`, energy `k_b (theta - theta0)^2 / 2`. The reference spreads the
//! moment as `M / h` on the levers and half their sum on each common node, which exerts a net
//! moment unless each lever projects onto the edge's midpoint; here the forces are the exact
//! `-M grad theta` of the hinge resolver, which on such symmetric hinges is the same and on
//! every hinge sums to zero force and zero moment.
//!
//! Scene: `bending = { law = "linear_bending", stiffness = k_b, reference_angle = ... }` (J;
//! rad or `"initial"`, the default).

/// Scene keyword.
pub const KEYWORD: &str = "linear_bending";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["stiffness", "reference_angle"];
/// Its code in `ShellEdgeParams::bend_law`.
pub const CODE: u32 = 1;

/// `theta - theta0` wrapped into `[-pi, pi)` (rad).
pub fn hinge_deviation(theta: f32, theta0: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let d = theta - theta0;
    d - tau * (d / tau + 0.5).floor()
}

/// `(dE/dtheta, energy)` of the hinge.
pub fn law_linear_bending(theta: f32, theta0: f32, kb: f32) -> [f32; 2] {
    let d = hinge_deviation(theta, theta0);
    [kb * d, 0.5 * kb * d * d]
}
