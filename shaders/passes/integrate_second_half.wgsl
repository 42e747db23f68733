// CPU twin: crates/grains-core/src/kernels/passes/integrate_second_half.rs
//
// Second half of velocity Verlet for free particles (inverse mass > 0); a capsule is kicked in
// angular momentum at its orientation after the drift.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/shape.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> torque: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> quat: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> shape: array<u32>;
@group(0) @binding(7) var<storage, read> shapes: array<ShapeRecord>;

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
    let rec = shapes[shape[gid]];
    if (inv_m > 0.0 && rec.kind != KIND_MEMBER) {
        let v = vel[gid].xyz + (force[gid].xyz * inv_m + step.gravity) * half;
        var w = omega[gid].xyz + torque[gid].xyz * inv_i * half;
        if (turns_rigidly(rec)) {
            let k = vec3<f32>(rec.data[2], rec.data[3], rec.data[4]);
            let l = angular_momentum(omega[gid].xyz, quat[gid], k, inv_m) + torque[gid].xyz * half;
            w = spin_of(l, quat[gid], k, inv_m);
        }
        vel[gid] = vec4<f32>(v, inv_m);
        omega[gid] = vec4<f32>(w, inv_i);
    }
}
