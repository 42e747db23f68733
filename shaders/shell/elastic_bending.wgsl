// CPU twin: crates/grains-core/src/kernels/shell/elastic_bending.rs
//
// Hinge energy k_b (1 - cos(theta - theta0)): (dE/dtheta, energy). Also the kernel of
// elastic_shell_bending, whose k_b comes from the shell's E, nu and thickness.
//!include shell/linear_bending.wgsl

fn law_elastic_bending(theta: f32, theta0: f32, kb: f32) -> vec2<f32> {
    let d = hinge_deviation(theta, theta0);
    return vec2<f32>(kb * sin(d), kb * (1.0 - cos(d)));
}
