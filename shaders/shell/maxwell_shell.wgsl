// CPU twin: crates/grains-core/src/kernels/shell/maxwell_shell.rs
//
// Maxwell relaxation of an edge's rest length over one step: (new rest, dissipated).

fn law_maxwell_shell(length: f32, rest: f32, k: f32, tau_e: f32, dt: f32) -> vec2<f32> {
    let next = length + (rest - length) * exp(-dt / tau_e);
    let s0 = length - rest;
    let s1 = length - next;
    return vec2<f32>(next, 0.5 * k * (s0 * s0 - s1 * s1));
}
