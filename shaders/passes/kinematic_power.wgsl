// CPU twin: crates/grains-core/src/kernels/passes/kinematic_power.rs
//
// One invocation per particle, after the gather (and the shell and clump passes): a kinematic
// particle (inverse mass 0, no clump member) delivers the power -(F . v + T . omega) to the
// rest of the system, F and T the gathered force and torque on it, v and omega its set
// velocities; times dt, added to kinematic_work (Kahan-compensated).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl
//!include lib/shape.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> omega: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> torque: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> shape: array<u32>;
@group(0) @binding(6) var<storage, read> shapes: array<ShapeRecord>;
@group(0) @binding(7) var<storage, read_write> kinematic_work: array<vec2<f32>>;

@compute @workgroup_size(64)
fn kinematic_power(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let v = vel[gid];
    if (v.w != 0.0 || shapes[shape[gid]].kind == KIND_MEMBER) {
        return;
    }
    let p = -(dot(force[gid].xyz, v.xyz) + dot(torque[gid].xyz, omega[gid].xyz));
    let a = kinematic_work[gid];
    kinematic_work[gid] = kahan_add(a.x, a.y, p * step.dt, step.unit);
}
