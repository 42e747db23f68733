// CPU twin: crates/grains-core/src/kernels/shell/linear_bending.rs
//
// Hinge energy k_b (theta - theta0)^2 / 2: (dE/dtheta, energy).
//!include lib/math.wgsl

// theta - theta0 wrapped into [-pi, pi). Twin: `hinge_deviation`.
fn hinge_deviation(theta: f32, theta0: f32) -> f32 {
    let tau = 2.0 * PI;
    let d = theta - theta0;
    return d - tau * floor(d / tau + 0.5);
}

fn law_linear_bending(theta: f32, theta0: f32, kb: f32) -> vec2<f32> {
    let d = hinge_deviation(theta, theta0);
    return vec2<f32>(kb * d, 0.5 * kb * d * d);
}
