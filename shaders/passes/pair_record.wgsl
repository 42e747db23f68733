// CPU twin: crates/grains-core/src/kernels/passes/pair_record.rs
//
// Broad phase, pass 5: each particle's head, the candidates below it, as the records its
// partners own: for candidate q < p, the record of (q, p), found by binary search among q's
// records (pair_fill.wgsl wrote them sorted); 0xffffffff if q does not list p (which a
// symmetric candidate test never gives). They go to `head_pair[nbr_start[p] - pair_start[p]..]`
// (the heads of the particles before p are their candidates less their records), sorted:
// records are numbered in their owners' order, so that is the head's partner order, the
// order the gather sums in. One invocation per particle, over the 27 cells as pair_fill.wgsl.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/grid.wgsl
//!include lib/shape.wgsl

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

// CPU twin: `find_sorted` in the same Rust file, over `pair_j`. WGSL cannot pass a storage
// array to a function, so the search is bound to the array it reads (history_carry.wgsl has
// the same search over `old_j`).
fn find_sorted(lo_in: u32, hi_in: u32, key: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let v = pair_j[mid];
        if (v == key) {
            return mid;
        }
        if (v < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return 0xffffffffu;
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
    var w = start;
    let x = pos[gid];
    let tri = shapes[shape[gid]].kind == KIND_TRIANGLE;
    let body = body_of(gid, shapes[shape[gid]]);
    let c = cell_coords(grid, x);
    for (var dz = -1; dz <= 1; dz = dz + 1) {
        for (var dy = -1; dy <= 1; dy = dy + 1) {
            for (var dx = -1; dx <= 1; dx = dx + 1) {
                let ci = neighbour_cell(grid, c, vec3<i32>(dx, dy, dz));
                if (ci < 0) {
                    continue;
                }
                for (var s = cell_start[ci]; s < cell_start[ci + 1]; s = s + 1u) {
                    let q = sorted[s];
                    let rq = shapes[shape[q]];
                    if (q >= gid || (tri && rq.kind == KIND_TRIANGLE)
                        || (body != 0xffffffffu && body_of(q, rq) == body)) {
                        continue;
                    }
                    // The bound check only matters if pair_count saw other positions.
                    if (is_candidate(grid, domain, x, pos[q]) && w < end) {
                        head_pair[w] = find_sorted(pair_start[q], pair_start[q + 1u], gid);
                        w = w + 1u;
                    }
                }
            }
        }
    }
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
