// CPU twin: crates/grains-core/src/kernels/sources/wall.rs
//
// The wall source, for the contact template's `source` slot: every (particle, wall) pair has
// the fixed slot `p * n_walls + w`, checked every step. `q` is the wall's index; the
// sphere-plane resolver reads `walls[q]`.

@group(0) @binding(10) var<storage, read> walls: array<Wall>;

fn source_count() -> u32 {
    return step.n_particles * step.n_walls;
}

fn source_pair(gid: u32) -> SourcePair {
    let nw = step.n_walls;
    let p = gid / nw;
    let w = gid % nw;
    let n = step.n_materials;
    return SourcePair(p, w, (walls[w].kind * n + material[p]) * n + walls[w].material, 1u);
}
