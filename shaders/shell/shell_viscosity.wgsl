// CPU twin: crates/grains-core/src/kernels/shell/shell_viscosity.rs
//
// Shell viscosity on an edge: (force on node i, dissipated) for vrel = v_i - v_j.

fn law_shell_viscosity(vrel: vec3<f32>, gamma: f32, dt: f32) -> vec4<f32> {
    let f = -gamma * vrel;
    return vec4<f32>(f, gamma * dot(vrel, vrel) * dt);
}
