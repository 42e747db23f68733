//! Maxwell relaxation of a shell's edge springs: a fluid-like membrane whose stresses relax
//! with a relaxation time (Mpacts MaxwellFluidShell over SerialDashpot,
//! `shared/reference/000`). WGSL twin: `shaders/shell/maxwell_shell.wgsl`.
//!
//! The dashpot in series with each edge spring has `c = tau t E / sqrt(3)` (N s/m), from the
//! shell's relaxation time `tau`, thickness `t` and Young's modulus `E`; the rest length flows
//! as `dL0/dt = (L - L0) k / c`, integrated exactly over a step at fixed `L`:
//! `L0 <- L + (L0 - L) exp(-dt k / c)`. What the flow takes out of the spring,
//! `k ((L - L0)^2 - (L - L0')^2) / 2`, is dissipated (damping column).
//!
//! Scene: `damping = { law = "maxwell_shell", relaxation_time = tau }` with a `stretch` law.

/// Scene keyword.
pub const KEYWORD: &str = "maxwell_shell";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["relaxation_time"];

/// The edge's own time constant `c / k` (s) with `c = tau t E / sqrt(3)`, for the spring `k`
/// (N/m); 0 (no relaxation) without a spring.
pub fn edge_relaxation_time(tau: f64, thickness: f64, young: f64, k: f64) -> f64 {
    if k > 0.0 {
        tau * thickness * young / 3f64.sqrt() / k
    } else {
        0.0
    }
}

/// `(new rest length, dissipated energy)` after one step `dt` of an edge of stiffness `k` at
/// `length` with rest length `rest` and time constant `tau_e` (s).
pub fn law_maxwell_shell(length: f32, rest: f32, k: f32, tau_e: f32, dt: f32) -> [f32; 2] {
    let next = length + (rest - length) * (-dt / tau_e).exp();
    let (s0, s1) = (length - rest, length - next);
    [next, 0.5 * k * (s0 * s0 - s1 * s1)]
}
