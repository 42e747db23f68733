// CPU twin: crates/grains-core/src/kernels/passes/surface_contact.rs
//
// One invocation per particle: a node of a ring or shell with contact, as a slave, finds among
// the elements of its neighbour-list partners the closest of every master ring or shell (its
// own only with self_contact, never an element sharing a node with its own), the approach
// signed by the closest feature's pseudonormal, and writes the penalty force of the first
// MASTERS with interference: per master (element as bits, w0, w1, w2) and (F, energy), then
// (energy, masters kept, rings or shells past SEEN, 0).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shell.wgsl
//!include shell/node_to_segment.wgsl
//!include shell/node_to_triangle.wgsl
//!include shell/penalty.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> shells: array<ShellParams>;
@group(0) @binding(3) var<storage, read> shell_tris: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> surface_start: array<u32>;
@group(0) @binding(5) var<storage, read> surface_elems: array<u32>;
@group(0) @binding(6) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(7) var<storage, read> pair_start: array<u32>;
@group(0) @binding(8) var<storage, read> pair_j: array<u32>;
@group(0) @binding(9) var<storage, read> head_pair: array<u32>;
@group(0) @binding(10) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> surface_records: array<vec4<f32>>;

//!include lib/neighbours.wgsl

const SURFACE_RECORDS: u32 = 7u;
const MASTERS: u32 = 3u;
const SEEN: u32 = 8u;

var<private> xa: vec3<f32>;
var<private> own_start: u32;
var<private> own_end: u32;
var<private> own_shell: u32;
var<private> seen_shell: array<u32, 8>;
var<private> seen_element: array<u32, 8>;
var<private> seen_w: array<vec3<f32>, 8>;
var<private> seen_d: array<f32, 8>;
var<private> seen_g: array<vec3<f32>, 8>;
var<private> n_seen: u32;
var<private> overflow: u32;

fn rel(q: u32) -> vec3<f32> {
    return min_image(pos[q].xyz - xa, domain);
}

// The outward pseudonormal of node `node` (other = NO_NODE) or of the edge node -> other of
// triangle t. Twin: `pseudonormal`.
fn pseudonormal(node: u32, other: u32, t: u32) -> vec3<f32> {
    var m = vec3<f32>(0.0, 0.0, 0.0);
    for (var k = surface_start[node]; k < surface_start[node + 1u]; k = k + 1u) {
        let e = surface_elems[k];
        let tri = shell_tris[e];
        if (tri.z == NO_NODE) {
            m = m + segment_normal(rel(tri.x), rel(tri.y));
            continue;
        }
        let x = array<vec3<f32>, 3>(rel(tri.x), rel(tri.y), rel(tri.z));
        let n = triangle_normal(x[0], x[1], x[2]);
        if (other == NO_NODE) {
            var c = 0u;
            if (tri.y == node) {
                c = 1u;
            } else if (tri.z == node) {
                c = 2u;
            }
            let e1 = x[(c + 1u) % 3u] - x[c];
            let e2 = x[(c + 2u) % 3u] - x[c];
            m = m + atan2(length(cross(e1, e2)), dot(e1, e2)) * n;
        } else if (e == t || tri.x == other || tri.y == other || tri.z == other) {
            m = m + n;
        }
    }
    return m;
}

struct Resolved {
    w: vec3<f32>,
    d: f32,
    g: vec3<f32>,
}

fn resolve_element(t: u32) -> Resolved {
    let tri = shell_tris[t];
    let x0 = rel(tri.x);
    let x1 = rel(tri.y);
    if (tri.z == NO_NODE) {
        let m0 = pseudonormal(tri.x, NO_NODE, t);
        let m1 = pseudonormal(tri.y, NO_NODE, t);
        let c = resolve_node_to_segment(x0, x1, m0, m1);
        let w = clamp(c.s, 0.0, 1.0);
        return Resolved(vec3<f32>(1.0 - w, w, 0.0), c.d, c.g);
    }
    let x2 = rel(tri.z);
    let cl = closest_on_triangle(x0, x1, x2);
    var m: vec3<f32>;
    if (cl.region == FACE) {
        m = triangle_normal(x0, x1, x2);
    } else if (cl.region < EDGE) {
        m = pseudonormal(tri[cl.region - VERTEX], NO_NODE, t);
    } else {
        let k = cl.region - EDGE;
        m = pseudonormal(tri[k], tri[(k + 1u) % 3u], t);
    }
    let dg = resolve_node_to_triangle(x0, x1, x2, cl.w, m);
    return Resolved(cl.w, dg.w, dg.xyz);
}

// Whether element t shares a node with one of the slave's own elements. Twin: `touches`.
fn touches(t: u32) -> bool {
    let tri = shell_tris[t];
    for (var k = own_start; k < own_end; k = k + 1u) {
        let o = shell_tris[surface_elems[k]];
        for (var c = 0u; c < 3u; c = c + 1u) {
            let q = tri[c];
            if (q != NO_NODE && (o.x == q || o.y == q || o.z == q)) {
                return true;
            }
        }
    }
    return false;
}

fn visit_neighbour(q: u32) {
    for (var k = surface_start[q]; k < surface_start[q + 1u]; k = k + 1u) {
        let t = surface_elems[k];
        let shell = shell_tris[t].w;
        let params = shells[shell];
        if (shell == own_shell && (params.self_contact == 0u || touches(t))) {
            continue;
        }
        let r = resolve_element(t);
        if (abs(r.d) > params.contact_reach) {
            continue;
        }
        var found = SEEN;
        for (var m = 0u; m < n_seen; m = m + 1u) {
            if (seen_shell[m] == shell) {
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
        } else if (!(abs(r.d) < abs(seen_d[found]))) {
            continue;
        }
        seen_shell[slot] = shell;
        seen_element[slot] = t;
        seen_w[slot] = r.w;
        seen_d[slot] = r.d;
        seen_g[slot] = r.g;
    }
}

@compute @workgroup_size(64)
fn surface_contact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let base = SURFACE_RECORDS * gid;
    let zero = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    for (var k = 0u; k < MASTERS; k = k + 1u) {
        surface_records[base + 2u * k] = vec4<f32>(bitcast<f32>(NO_NODE), 0.0, 0.0, 0.0);
        surface_records[base + 2u * k + 1u] = zero;
    }
    surface_records[base + 2u * MASTERS] = zero;
    own_start = surface_start[gid];
    own_end = surface_start[gid + 1u];
    if (own_start == own_end) {
        return;
    }
    own_shell = shell_tris[surface_elems[own_start]].w;
    xa = pos[gid].xyz;
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
        let p = law_penalty(seen_d[m], shells[seen_shell[m]].contact_stiffness);
        let f = -p.x * seen_g[m];
        surface_records[base + 2u * kept] = vec4<f32>(bitcast<f32>(seen_element[m]), seen_w[m]);
        surface_records[base + 2u * kept + 1u] = vec4<f32>(f, p.y);
        energy = energy + p.y;
        kept = kept + 1u;
    }
    surface_records[base + 2u * MASTERS] = vec4<f32>(energy, bitcast<f32>(kept), bitcast<f32>(overflow), 0.0);
}
