// The broad phase's candidates of a particle, for the passes that find them (pair_count.wgsl,
// pair_fill.wgsl, pair_record.wgsl). CPU twin: `for_each_candidate` in
// crates/grains-core/src/kernels/passes/pair_count.rs.
//
// Every particle of the 27 cells around it within the cut-off (not itself, not another mesh
// triangle if it is one, not a member of its own clump), then, unless it is a mesh triangle
// (a wall already), every wall it may touch before the next rebuild, as n_particles + w. WGSL
// has no closures: each including pass defines `visit_candidate(q)`, keeping what it needs
// between calls in private variables, and declares `grid`, `domain`, `pos`, `cell_start`,
// `sorted`, `shape`, `shapes`, `walls` and `step`.

fn for_each_candidate(gid: u32) {
    let x = pos[gid];
    // A removed or dormant particle (its radius hugely negative) has no candidate: skipped
    // whole, since a pool of them shares one far cell.
    if (x.w < 0.0) {
        return;
    }
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
                    if (q == gid || (tri && rq.kind == KIND_TRIANGLE)
                        || (body != 0xffffffffu && body_of(q, rq) == body)) {
                        continue;
                    }
                    if (is_candidate(grid, domain, x, pos[q])) {
                        visit_candidate(q);
                    }
                }
            }
        }
    }
    if (!tri) {
        for (var w = 0u; w < step.n_walls; w = w + 1u) {
            if (wall_candidate(walls[w], x, grid.cutoff)) {
                visit_candidate(step.n_particles + w);
            }
        }
    }
}
