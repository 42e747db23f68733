// CPU twin: crates/grains-core/src/kernels/shell/elastic_shell_spring.rs
//
// Van Gelder edge spring: (tension, energy) at `length` for `rest` and stiffness `k`.

fn law_elastic_shell_spring(length: f32, rest: f32, k: f32) -> vec2<f32> {
    let s = length - rest;
    return vec2<f32>(k * s, 0.5 * k * s * s);
}
