// CPU twin: crates/grains-core/src/kernels/passes/clump_gather.rs
//
// Clumps, after the gather: a body's force is the sum of its members', its torque their own
// torques plus the moments of their forces about its centre of mass (minimum image), members
// in order.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shape.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> torque: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> shape: array<u32>;
@group(0) @binding(6) var<storage, read> shapes: array<ShapeRecord>;

@compute @workgroup_size(64)
fn clump_gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let rec = shapes[shape[gid]];
    if (rec.kind != KIND_CLUMP) {
        return;
    }
    let count = bitcast<u32>(rec.data[0]);
    let xb = pos[gid].xyz;
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    for (var m = gid + 1u; m <= gid + count; m = m + 1u) {
        let fm = force[m].xyz;
        let r = min_image(pos[m].xyz - xb, domain);
        f = f + fm;
        t = t + torque[m].xyz + cross(r, fm);
    }
    force[gid] = vec4<f32>(f, 0.0);
    torque[gid] = vec4<f32>(t, 0.0);
}
