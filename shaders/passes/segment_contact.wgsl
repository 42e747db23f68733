// CPU twin: crates/grains-core/src/kernels/passes/segment_contact.rs
//
// One invocation per particle: a node of a ring with node-to-segment contact, as a slave,
// finds among its neighbour-list partners' segments the closest of every master ring (a
// ring's own beyond SELF_SKIP nodes with self_contact), and writes the penalty force of the
// first MASTERS with interference: per master (segment's first node as bits, s, F_x, F_y), then
// (energy, masters kept, rings past SEEN, 0).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shell.wgsl
//!include shell/node_to_segment.wgsl
//!include shell/penalty.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> shells: array<ShellParams>;
@group(0) @binding(3) var<storage, read> segment_links: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read> pair_j: array<u32>;
@group(0) @binding(7) var<storage, read> head_pair: array<u32>;
@group(0) @binding(8) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> segment_records: array<vec4<f32>>;

//!include lib/neighbours.wgsl

const SEGMENT_RECORDS: u32 = 4u;
const MASTERS: u32 = 3u;
const SEEN: u32 = 8u;
const SELF_SKIP: u32 = 2u;

var<private> slave: u32;
var<private> slave_ring: u32;
var<private> seen_ring: array<u32, 8>;
var<private> seen_start: array<u32, 8>;
var<private> seen_s: array<f32, 8>;
var<private> seen_d: array<f32, 8>;
var<private> seen_g: array<vec3<f32>, 8>;
var<private> n_seen: u32;
var<private> overflow: u32;

fn hops(a: u32, b: u32, first: u32, count: u32) -> u32 {
    let ia = a - first;
    let ib = b - first;
    let d = max(ia, ib) - min(ia, ib);
    return min(d, count - d);
}

fn visit_neighbour(q: u32) {
    let link = segment_links[q];
    if (link.x == NO_NODE) {
        return;
    }
    let ring = shells[link.x];
    let xa = pos[slave].xyz;
    for (var k = 0u; k < 2u; k = k + 1u) {
        var a = link.y;
        if (k == 1u) {
            a = q;
        }
        let b = segment_links[a].z;
        if (link.x == slave_ring
            && (ring.self_contact == 0u
                || hops(slave, a, ring.ref_node, ring.tri_count) <= SELF_SKIP
                || hops(slave, b, ring.ref_node, ring.tri_count) <= SELF_SKIP)) {
            continue;
        }
        let xp = min_image(pos[segment_links[a].y].xyz - xa, domain);
        let x0 = min_image(pos[a].xyz - xa, domain);
        let x1 = min_image(pos[b].xyz - xa, domain);
        let xn = min_image(pos[segment_links[b].z].xyz - xa, domain);
        let n = segment_normal(x0, x1);
        let m0 = segment_normal(xp, x0) + n;
        let m1 = n + segment_normal(x1, xn);
        let c = resolve_node_to_segment(x0, x1, m0, m1);
        if (abs(c.d) > ring.contact_reach) {
            continue;
        }
        var found = SEEN;
        for (var m = 0u; m < n_seen; m = m + 1u) {
            if (seen_ring[m] == link.x) {
                found = m;
                break;
            }
        }
        var slot = found;
        if (found == SEEN) {
            if (n_seen == SEEN) {
                overflow = overflow + 1u;
                continue;
            }
            slot = n_seen;
            n_seen = n_seen + 1u;
        } else if (!(abs(c.d) < abs(seen_d[found]))) {
            continue;
        }
        seen_ring[slot] = link.x;
        seen_start[slot] = a;
        seen_s[slot] = c.s;
        seen_d[slot] = c.d;
        seen_g[slot] = c.g;
    }
}

@compute @workgroup_size(64)
fn segment_contact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let base = SEGMENT_RECORDS * gid;
    let empty = vec4<f32>(bitcast<f32>(NO_NODE), 0.0, 0.0, 0.0);
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        segment_records[base + k] = empty;
    }
    segment_records[base + MASTERS] = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    let own = segment_links[gid];
    if (own.x == NO_NODE) {
        return;
    }
    slave = gid;
    slave_ring = own.x;
    n_seen = 0u;
    overflow = 0u;
    for_each_neighbour(gid);
    var kept = 0u;
    var energy = 0.0;
    for (var m = 0u; m < n_seen; m = m + 1u) {
        if (!(seen_d[m] < 0.0)) {
            continue;
        }
        if (kept == MASTERS) {
            break;
        }
        let p = law_penalty(seen_d[m], shells[seen_ring[m]].contact_stiffness);
        let f = -p.x * seen_g[m];
        segment_records[base + kept] = vec4<f32>(bitcast<f32>(seen_start[m]), seen_s[m], f.x, f.y);
        energy = energy + p.y;
        kept = kept + 1u;
    }
    segment_records[base + MASTERS] = vec4<f32>(energy, bitcast<f32>(kept), bitcast<f32>(overflow), 0.0);
}
