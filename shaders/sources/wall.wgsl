// CPU twin: crates/grains-core/src/kernels/sources/wall.rs
//
// The wall source, for the contact template's `source` slot: the neighbour-list entries whose
// second body is a wall (`q = n_particles + w`, appended by the broad phase for the walls a
// particle may touch before the next rebuild). `q` of the pair is the wall's index; the wall
// resolvers read `walls[q]`.

@group(0) @binding(10) var<storage, read> walls: array<Wall>;
@group(0) @binding(11) var<storage, read> nbr_i: array<u32>;
@group(0) @binding(12) var<storage, read> nbr_j: array<u32>;
// The entry count, `nbr_start[step.n_particles]` (indirect dispatch).
@group(0) @binding(13) var<storage, read> nbr_start: array<u32>;
// Each entry's record (pair_record.wgsl).
@group(0) @binding(14) var<storage, read> nbr_pair: array<u32>;
// The packed slots taken this step: [0] counts them (reset before the contact passes; a
// count beyond `slots` makes the host grow them and replay).
@group(0) @binding(15) var<storage, read_write> slot_count: array<atomic<u32>>;
// Last step's packed history records (this step's go to `history`), at each record's flag.
@group(0) @binding(16) var<storage, read> history_in: array<vec4<f32>>;
// The packed slots past the end of `slots` (lib/packed_slots.wgsl).
@group(0) @binding(17) var<storage, read_write> slots_hi: array<PairSlot>;

fn source_count() -> u32 {
    return nbr_start[step.n_particles];
}

fn source_pair(gid: u32) -> SourcePair {
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if (q < step.n_particles) {
        return SourcePair();
    }
    let w = q - step.n_particles;
    let n = step.n_materials;
    return SourcePair(p, w, (walls[w].kind * n + material[p]) * n + walls[w].material, 1u);
}

// The record (slot flag) of entry `gid`: the pair's own. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return nbr_pair[gid];
}

//!include lib/packed_slots.wgsl
