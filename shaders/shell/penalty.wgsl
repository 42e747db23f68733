// CPU twin: crates/grains-core/src/kernels/shell/penalty.rs
//
// Node-to-segment penalty phi = k d^2 / 2 while d < 0: (dphi/dd, energy).

fn law_penalty(d: f32, k: f32) -> vec2<f32> {
    if (d >= 0.0) {
        return vec2<f32>(0.0, 0.0);
    }
    return vec2<f32>(k * d, 0.5 * k * d * d);
}
