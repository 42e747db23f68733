// CPU twin: crates/grains-core/src/kernels/passes/segment_gather.rs
//
// One invocation per particle, after segment_contact: a ring node adds its forces as a slave
// and, from its neighbour-list partners' records, the reactions as a master node: -(1 - s) F as
// a segment's first node, -s F as its second (s clamped to [0, 1]), in a fixed order.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/shell.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> segment_links: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(3) var<storage, read> pair_start: array<u32>;
@group(0) @binding(4) var<storage, read> pair_j: array<u32>;
@group(0) @binding(5) var<storage, read> head_pair: array<u32>;
@group(0) @binding(6) var<storage, read> segment_records: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> force: array<vec4<f32>>;

//!include lib/neighbours.wgsl

const SEGMENT_RECORDS: u32 = 4u;
const MASTERS: u32 = 3u;

var<private> me: u32;
var<private> me_prev: u32;
var<private> total: vec3<f32>;

fn visit_neighbour(q: u32) {
    if (segment_links[q].x == NO_NODE) {
        return;
    }
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        let r = segment_records[SEGMENT_RECORDS * q + k];
        let start = bitcast<u32>(r.x);
        let s = clamp(r.y, 0.0, 1.0);
        let fq = vec3<f32>(r.z, r.w, 0.0);
        if (start == me) {
            total = total - (1.0 - s) * fq;
        } else if (start == me_prev) {
            total = total - s * fq;
        }
    }
}

@compute @workgroup_size(64)
fn segment_gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let own = segment_links[gid];
    if (own.x == NO_NODE) {
        return;
    }
    me = gid;
    me_prev = own.y;
    total = vec3<f32>(0.0, 0.0, 0.0);
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        let r = segment_records[SEGMENT_RECORDS * gid + k];
        if (bitcast<u32>(r.x) != NO_NODE) {
            total = total + vec3<f32>(r.z, r.w, 0.0);
        }
    }
    for_each_neighbour(gid);
    let old = force[gid];
    force[gid] = vec4<f32>(old.xyz + total, old.w);
}
