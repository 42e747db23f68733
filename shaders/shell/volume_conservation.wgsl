// CPU twin: crates/grains-core/src/kernels/shell/volume_conservation.rs
//
// Enclosed-volume energy k_v (V - V0)^2 / (2 V0): (pressure dE/dV, energy).

fn law_volume_conservation(v: f32, v0: f32, kv: f32) -> vec2<f32> {
    if (kv == 0.0) {
        return vec2<f32>(0.0, 0.0);
    }
    let x = (v - v0) / v0;
    return vec2<f32>(kv * x, 0.5 * kv * v0 * x * x);
}
