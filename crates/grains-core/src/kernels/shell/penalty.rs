//! The penalty law of node-to-surface contact: a harmonic potential `phi = k d^2 / 2` in the
//! signed closest approach `d` of a slave node to its master segment or triangle, acting while
//! `d < 0` (interference), so the force on the slave is `-k d dd/dx_A`
//! (`shared/reference/003`: the penalty parameter `k` is set as high as the time step allows).
//! WGSL twin: `shaders/shell/penalty.wgsl`.
//!
//! Scene: `contact = { law = "node_to_segment", stiffness = k, self_contact = false }` (N/m)
//! on a `[[ring]]`, `contact = { law = "node_to_triangle", ... }` on a `[[shell]]`; the master's
//! `k` acts.

/// Scene keyword on a ring.
pub const KEYWORD: &str = "node_to_segment";
/// Scene keyword on a shell.
pub const TRIANGLE_KEYWORD: &str = "node_to_triangle";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["stiffness", "self_contact"];

/// `(dphi/dd, energy)` at approach `d` (m) for stiffness `k` (N/m): zero for a gap.
pub fn law_penalty(d: f32, k: f32) -> [f32; 2] {
    if d >= 0.0 {
        return [0.0, 0.0];
    }
    [k * d, 0.5 * k * d * d]
}
