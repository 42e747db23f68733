// CPU twin: crates/grains-core/src/kernels/sources/wall.rs
//
// The wall source, for the contact template's `source` slot: the neighbour list's records
// whose second body is a wall (`q = n_particles + w`, appended by the broad phase for the walls
// a particle may touch before the next rebuild, after its particles). `q` of the pair is the
// wall's index; the wall resolvers read `walls[q]`.

@group(0) @binding(10) var<storage, read> walls: array<Wall>;
// Each record's partner.
@group(0) @binding(12) var<storage, read> pair_j: array<u32>;
// Where each particle's records start: its walls are the tail of them.
@group(0) @binding(14) var<storage, read> pair_start: array<u32>;
// The packed slots' counts and the ring of those given back (lib/packed_slots.wgsl).
@group(0) @binding(15) var<storage, read_write> slot_count: array<atomic<u32>>;

// One invocation per particle: the wall records are the tail of its records (`pair_fill` puts
// the walls after its particles), so an invocation reads two starts and one partner for a
// particle far from every wall, where one per record read a word of each of its records.
fn source_count() -> u32 {
    return step.n_particles;
}

// Invocation `gid` evaluates particle `gid`'s wall records (lib/packed_slots.wgsl).
fn source_pairs(gid: u32) {
    let range = source_range(gid);
    list_pairs(gid, range.x, range.y);
}

// A wall contact's slot keeps the torque on the particle, which the wall's power reads.
fn kept_torque(s: PairSlot) -> vec3<f32> {
    return s.torque1;
}

// Particle `gid`'s wall records, `[x, y)`. CPU twin: `source_range`.
fn source_range(gid: u32) -> vec2<u32> {
    let lo = pair_start[gid];
    let end = pair_start[gid + 1u];
    var k = end;
    while (k > lo && pair_j[k - 1u] >= step.n_particles) {
        k = k - 1u;
    }
    return vec2<u32>(k, end);
}

// Record `gid`, of particle `owner`. CPU twin: `source_pair`.
fn source_pair(gid: u32) -> SourcePair {
    let p = owner;
    let q = pair_j[gid];
    if (q < step.n_particles) {
        return SourcePair();
    }
    let w = q - step.n_particles;
    let n = step.n_materials;
    return SourcePair(p, w, (walls[w].kind * n + material[p]) * n + walls[w].material, 1u);
}

// The record (slot flag) of invocation `gid`'s pair: its own. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return gid;
}

//!include lib/packed_slots.wgsl
