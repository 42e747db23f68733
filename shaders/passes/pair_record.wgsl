// CPU twin: crates/grains-core/src/kernels/passes/pair_record.rs
//
// Broad phase, pass 5: each particle's head, the candidates below it, as the records its
// partners own: for candidate q < p, the record of (q, p), found by binary search among q's
// records (pair_fill.wgsl wrote them sorted); 0xffffffff if q does not list p (which a
// symmetric candidate test never gives). They go to `head_pair[nbr_start[p] - pair_start[p]..]`
// (the heads of the particles before p are their candidates less their records), sorted:
// records are numbered in their owners' order, so that is the head's partner order, the
// order the gather sums in. One invocation per particle, over its candidates as
// pair_fill.wgsl (lib/candidates.wgsl; the walls it visits are never below a particle).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/grid.wgsl
//!include lib/shape.wgsl
//!include lib/wall.wgsl
//!include lib/candidates.wgsl

// `grid` is read-only storage, not a uniform (see pair_fill.wgsl).
@group(0) @binding(0) var<storage, read> grid: GridParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> sorted: array<u32>;
// The scans of pair_count's counts: each particle's candidates and records.
@group(0) @binding(5) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(6) var<storage, read> pair_start: array<u32>;
// Each record's partner, sorted within each owner (pair_fill.wgsl).
@group(0) @binding(7) var<storage, read> pair_j: array<u32>;
@group(0) @binding(8) var<storage, read_write> head_pair: array<u32>;
@group(0) @binding(9) var<uniform> step: StepParams;
// Two mesh triangles are never candidates (twin: `is_triangle`).
@group(0) @binding(10) var<storage, read> shape: array<u32>;
@group(0) @binding(11) var<storage, read> shapes: array<ShapeRecord>;
@group(0) @binding(12) var<storage, read> walls: array<Wall>;

//!include lib/find_sorted.wgsl

// The invocation's particle and where its next head element goes (up to `fill_end`, which
// only matters if pair_count saw other positions).
var<private> me: u32;
var<private> fill_at: u32;
var<private> fill_end: u32;

fn visit_candidate(q: u32) {
    if (q < me && fill_at < fill_end) {
        head_pair[fill_at] = find_sorted(pair_start[q], pair_start[q + 1u], me);
        fill_at = fill_at + 1u;
    }
}

@compute @workgroup_size(64)
fn pair_record(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let start = nbr_start[gid] - pair_start[gid];
    let end = nbr_start[gid + 1u] - pair_start[gid + 1u];
    me = gid;
    fill_at = start;
    fill_end = end;
    for_each_candidate(gid);
    for (var a = start + 1u; a < end; a = a + 1u) {
        let key = head_pair[a];
        var b = a;
        while (b > start && head_pair[b - 1u] > key) {
            head_pair[b] = head_pair[b - 1u];
            b = b - 1u;
        }
        head_pair[b] = key;
    }
}
