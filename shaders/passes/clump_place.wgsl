// CPU twin: crates/grains-core/src/kernels/passes/clump_place.rs
//
// Clumps, after the drift: each member sphere sits at its body's centre plus its offset turned
// by the body's orientation, moves with the body at that point and spins with it. Bodies are
// only read, so invocations are independent.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shape.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> quat: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> shape: array<u32>;
@group(0) @binding(7) var<storage, read> shapes: array<ShapeRecord>;


@compute @workgroup_size(64)
fn clump_place(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let rec = shapes[shape[gid]];
    if (rec.kind != KIND_MEMBER) {
        return;
    }
    let b = gid - bitcast<u32>(rec.data[3]);
    let q = quat[b];
    let arm = quat_rotate(q, vec3<f32>(rec.data[0], rec.data[1], rec.data[2]));
    let x = wrap_position(pos[b].xyz + arm, domain);
    let w = omega[b].xyz;
    let v = vel[b].xyz + cross(w, arm);
    pos[gid] = vec4<f32>(x, pos[gid].w);
    vel[gid] = vec4<f32>(v, vel[gid].w);
    omega[gid] = vec4<f32>(w, omega[gid].w);
    quat[gid] = q;
}
