// CPU twin: crates/grains-core/src/kernels/passes/pair_fill.rs
//
// Broad phase, pass 4: write each particle's records, the candidates above it (particles,
// then the walls as n_particles + w), into its range `pair_start[gid]..pair_start[gid + 1]`
// of `pair_j` with itself as their owner (`pair_i`), and insertion-sort the range by partner,
// so the list does not depend on the order cell_scatter's atomics gave inside cells. The
// candidates below it are its head, which pair_record.wgsl writes as their records.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/grid.wgsl
//!include lib/shape.wgsl
//!include lib/wall.wgsl

// `grid` is read-only storage, not a uniform: lavapipe (Mesa 22.x) specialises a kernel on the
// uniforms its branches read and, when that pays, recompiles it at every bind (every step, even
// for zero-sized dispatches), leaking each variant: with a nonzero `origin.x` it did.
@group(0) @binding(0) var<storage, read> grid: GridParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> sorted: array<u32>;
// The scan of pair_count's owning counts: where each particle's records start.
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read_write> pair_i: array<u32>;
@group(0) @binding(7) var<storage, read_write> pair_j: array<u32>;
// The particle count, which the twin's caller takes from `pos.len()`.
@group(0) @binding(8) var<uniform> step: StepParams;
// Two mesh triangles are never candidates (twin: `is_triangle`).
@group(0) @binding(9) var<storage, read> shape: array<u32>;
@group(0) @binding(10) var<storage, read> shapes: array<ShapeRecord>;
// The walls a particle may touch follow its particles, as the candidates n_particles + w.
@group(0) @binding(11) var<storage, read> walls: array<Wall>;

@compute @workgroup_size(64)
fn pair_fill(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let start = pair_start[gid];
    let end = pair_start[gid + 1u];
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
                    if (q <= gid || (tri && rq.kind == KIND_TRIANGLE)
                        || (body != 0xffffffffu && body_of(q, rq) == body)) {
                        continue;
                    }
                    // The bound check only matters if pair_count saw other positions; it keeps
                    // a stale count from writing into the next particle's range.
                    if (is_candidate(grid, domain, x, pos[q]) && w < end) {
                        pair_j[w] = q;
                        w = w + 1u;
                    }
                }
            }
        }
    }
    // A mesh triangle is a wall already. Walls come after every particle: the sort keeps them
    // last, in wall order.
    if (!tri) {
        for (var k = 0u; k < step.n_walls; k = k + 1u) {
            if (wall_candidate(walls[k], x, grid.cutoff) && w < end) {
                pair_j[w] = step.n_particles + k;
                w = w + 1u;
            }
        }
    }
    for (var a = start; a < end; a = a + 1u) {
        pair_i[a] = gid;
    }
    for (var a = start + 1u; a < end; a = a + 1u) {
        let key = pair_j[a];
        var b = a;
        while (b > start && pair_j[b - 1u] > key) {
            pair_j[b] = pair_j[b - 1u];
            b = b - 1u;
        }
        pair_j[b] = key;
    }
}
