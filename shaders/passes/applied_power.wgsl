// CPU twin: crates/grains-core/src/kernels/passes/applied_power.rs
//
// One invocation per particle, after the gather and what adds to it (shells, clump bodies), in
// the steps of a world holding applied forces: a free particle's held force F joins its
// gathered force (so the second half-step and the next first half kick with it), and its work
// F . v dt at the mid-step velocity v is added to kinematic_work (Kahan-compensated). A
// kinematic, removed or dormant particle (inverse mass 0) and one without a force are left as
// they are.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> applied_force: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> kinematic_work: array<vec2<f32>>;

@compute @workgroup_size(64)
fn applied_power(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let a = applied_force[gid].xyz;
    let v = vel[gid];
    if (v.w == 0.0 || all(a == vec3<f32>(0.0))) {
        return;
    }
    let f = force[gid];
    force[gid] = vec4<f32>(f.xyz + a, f.w);
    let p = dot(a, v.xyz);
    let w = kinematic_work[gid];
    kinematic_work[gid] = kahan_add(w.x, w.y, p * step.dt, step.unit);
}
