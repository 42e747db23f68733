// CPU twin: crates/grains-core/src/kernels/passes/pair_count.rs
//
// Broad phase, pass 3: count each particle's candidates (lower and higher indices) over the 27
// surrounding cells, then the walls it may touch before the next rebuild, and how many of them
// it owns (higher indices and walls). The loop is written out here and in pair_fill.wgsl (the twin shares it
// through a closure, which WGSL lacks); both visit cells and particles in the same order.
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
@group(0) @binding(5) var<storage, read_write> nbr_count: array<u32>;
// The particle count, which the twin's caller takes from `pos.len()`.
@group(0) @binding(6) var<uniform> step: StepParams;
// Two mesh triangles are never candidates (twin: `is_triangle`).
@group(0) @binding(7) var<storage, read> shape: array<u32>;
@group(0) @binding(8) var<storage, read> shapes: array<ShapeRecord>;
// The walls a particle may touch follow its particles, as the candidates n_particles + w.
@group(0) @binding(9) var<storage, read> walls: array<Wall>;
// How many of them the particle owns (higher indices, walls included): scanned into the
// records' starts (pair_record.wgsl).
@group(0) @binding(10) var<storage, read_write> own_count: array<u32>;

@compute @workgroup_size(64)
fn pair_count(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let x = pos[gid];
    let tri = shapes[shape[gid]].kind == KIND_TRIANGLE;
    let body = body_of(gid, shapes[shape[gid]]);
    let c = cell_coords(grid, x);
    var n = 0u;
    var own = 0u;
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
                    if (q == gid || (tri && rq.kind == KIND_TRIANGLE)
                        || (body != 0xffffffffu && body_of(q, rq) == body)) {
                        continue;
                    }
                    if (is_candidate(grid, domain, x, pos[q])) {
                        n = n + 1u;
                        own = own + select(0u, 1u, q > gid);
                    }
                }
            }
        }
    }
    // A mesh triangle is a wall already.
    if (!tri) {
        for (var w = 0u; w < step.n_walls; w = w + 1u) {
            if (wall_candidate(walls[w], x, grid.cutoff)) {
                n = n + 1u;
                own = own + 1u;
            }
        }
    }
    nbr_count[gid] = n;
    own_count[gid] = own;
}
