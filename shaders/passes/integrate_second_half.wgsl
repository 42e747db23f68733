// CPU twin: crates/grains-core/src/kernels/passes/integrate_second_half.rs
//
// Second half of velocity Verlet for free particles (inverse mass > 0).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> torque: array<vec4<f32>>;

@compute @workgroup_size(64)
fn integrate_second_half(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let half = 0.5 * step.dt;
    let inv_m = vel[gid].w;
    let inv_i = omega[gid].w;
    if (inv_m > 0.0) {
        let v = vel[gid].xyz + (force[gid].xyz * inv_m + step.gravity) * half;
        let w = omega[gid].xyz + torque[gid].xyz * inv_i * half;
        vel[gid] = vec4<f32>(v, inv_m);
        omega[gid] = vec4<f32>(w, inv_i);
    }
}
