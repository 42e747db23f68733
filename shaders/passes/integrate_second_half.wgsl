// CPU twin: crates/grains-core/src/kernels/passes/integrate_second_half.rs
//
// Second half of velocity Verlet (lib/kick.wgsl) from the gathered force and torque, where
// something runs between the gather and it (shells, clumps, moving walls); otherwise the step
// kicks inside gather_kick.wgsl.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/shape.wgsl
//!include lib/kick.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(6) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> torque: array<vec4<f32>>;

@compute @workgroup_size(64)
fn integrate_second_half(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    kick(gid, force[gid].xyz, torque[gid].xyz);
}
