// CPU twin: crates/grains-core/src/kernels/sources/neighbour.rs
//
// The neighbour-list source, for the contact template's `source` slot. One invocation per
// particle p: the list keeps each pair once, as a record of its lower particle p with its
// partner q > p (`pair_j[r]`); the other side reaches it through `head_pair` in the gather
// only. Records of walls (q >= n_particles) are the wall source's.
// Reads the template's `step` and `material`.

// Each record's partner.
@group(0) @binding(11) var<storage, read> pair_j: array<u32>;
// Where each particle's records start.
@group(0) @binding(13) var<storage, read> pair_start: array<u32>;
// The packed slots' counts and the ring of those given back (lib/packed_slots.wgsl).
@group(0) @binding(14) var<storage, read_write> slot_count: array<atomic<u32>>;
// The fixed pairs' flags: which division pairs are in cytokinesis (`divides_with`).
@group(0) @binding(15) var<storage, read> fixed_active: array<u32>;

// One invocation per particle: its records of particles (those above it) are the head of its
// records, before its walls.
fn source_count() -> u32 {
    return step.n_particles;
}

// Invocation `gid` evaluates particle `gid`'s records of particles (lib/packed_slots.wgsl).
fn source_pairs(gid: u32) {
    let range = source_range(gid);
    list_pairs(gid, range.x, range.y);
}

// Particle `gid`'s records of particles, `[x, y)`: its records up to its walls. CPU twin:
// `source_range`.
fn source_range(gid: u32) -> vec2<u32> {
    let lo = pair_start[gid];
    var k = pair_start[gid + 1u];
    while (k > lo && pair_j[k - 1u] >= step.n_particles) {
        k = k - 1u;
    }
    return vec2<u32>(lo, k);
}

// A particle pair's slot keeps the torque on body 2, which its gather reads.
fn kept_torque(s: PairSlot) -> vec3<f32> {
    return s.torque2;
}

// Record `gid`, of particle `owner`, as a pair of particles. CPU twin: `source_pair`.
fn source_pair(gid: u32) -> SourcePair {
    let p = owner;
    let q = pair_j[gid];
    if (q >= step.n_particles || divides_with(p, q)) {
        return SourcePair();
    }
    return SourcePair(p, q, material[p] * step.n_materials + material[q], 1u);
}

// Whether `p < q` are the two halves of a division pair in cytokinesis: particles
// `first + 2k`, `first + 2k + 1` of the division pool with fixed pair `division_pairs + k` on
// (0xffffffff is the fixed source's FIXED_OFF). CPU twin: `divides_with`.
fn divides_with(p: u32, q: u32) -> bool {
    let first = step.division_first;
    if (first == 0u || p < first || q != p + 1u || (p - first) % 2u != 0u) {
        return false;
    }
    return fixed_active[step.division_pairs + (p - first) / 2u] != 0xffffffffu;
}

// The record (slot flag) of invocation `gid`: its own. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return gid;
}

//!include lib/packed_slots.wgsl
