// CPU twin: crates/grains-core/src/kernels/passes/surface_gather.rs
//
// One invocation per particle, after surface_contact: a ring or shell node adds its forces as
// a slave and, from its neighbour-list partners' records, the reactions as a corner of their
// master elements, -w_k F, in a fixed order.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/shell.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> shell_tris: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> surface_start: array<u32>;
@group(0) @binding(3) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(4) var<storage, read> pair_start: array<u32>;
@group(0) @binding(5) var<storage, read> pair_j: array<u32>;
@group(0) @binding(6) var<storage, read> head_pair: array<u32>;
@group(0) @binding(7) var<storage, read> surface_records: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> force: array<vec4<f32>>;

//!include lib/neighbours.wgsl

const SURFACE_RECORDS: u32 = 7u;
const MASTERS: u32 = 3u;

var<private> me: u32;
var<private> total: vec3<f32>;

fn visit_neighbour(q: u32) {
    if (surface_start[q] == surface_start[q + 1u]) {
        return;
    }
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        let r = surface_records[SURFACE_RECORDS * q + 2u * k];
        let t = bitcast<u32>(r.x);
        if (t == NO_NODE) {
            continue;
        }
        let tri = shell_tris[t];
        let fq = surface_records[SURFACE_RECORDS * q + 2u * k + 1u].xyz;
        let w = r.yzw;
        for (var c = 0u; c < 3u; c = c + 1u) {
            if (tri[c] == me) {
                total = total - w[c] * fq;
            }
        }
    }
}

@compute @workgroup_size(64)
fn surface_gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    if (surface_start[gid] == surface_start[gid + 1u]) {
        return;
    }
    me = gid;
    total = vec3<f32>(0.0, 0.0, 0.0);
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        let r = surface_records[SURFACE_RECORDS * gid + 2u * k];
        if (bitcast<u32>(r.x) != NO_NODE) {
            total = total + surface_records[SURFACE_RECORDS * gid + 2u * k + 1u].xyz;
        }
    }
    for_each_neighbour(gid);
    let old = force[gid];
    force[gid] = vec4<f32>(old.xyz + total, old.w);
}
