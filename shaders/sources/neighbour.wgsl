// CPU twin: crates/grains-core/src/kernels/sources/neighbour.rs
//
// The neighbour-list source, for the contact template's `source` slot. One invocation per
// record: the list keeps each pair once, as a record of its lower particle p (`pair_i[r]`)
// with its partner q > p (`pair_j[r]`); the other side reaches it through `head_pair` in the
// gather only. Records of walls (q >= n_particles) are the wall source's.
// Reads the template's `step` and `material`.

// Each record's owner (pair_fill.wgsl writes them at a rebuild).
@group(0) @binding(10) var<storage, read> pair_i: array<u32>;
// Each record's partner.
@group(0) @binding(11) var<storage, read> pair_j: array<u32>;
// Where each particle's records start; the record count is `pair_start[step.n_particles]`
// (indirect dispatch).
@group(0) @binding(13) var<storage, read> pair_start: array<u32>;
// The packed slots' counts and the ring of those given back (lib/packed_slots.wgsl).
@group(0) @binding(14) var<storage, read_write> slot_count: array<atomic<u32>>;
// The packed slots past the end of `slots` (lib/packed_slots.wgsl).
@group(0) @binding(17) var<storage, read_write> slots_hi: array<PairSlot>;

fn source_count() -> u32 {
    return pair_start[step.n_particles];
}

// Invocation `gid` evaluates record `gid` (the template's `contact_pair`), unless the contact
// passes run again for the records that found no slot and it is not one.
fn source_pairs(gid: u32) {
    if (slot_runs(gid)) {
        contact_pair(gid);
    }
}

// Record `gid` as a pair of particles. CPU twin: `source_pair`.
fn source_pair(gid: u32) -> SourcePair {
    let p = pair_i[gid];
    let q = pair_j[gid];
    if (q >= step.n_particles) {
        return SourcePair();
    }
    return SourcePair(p, q, material[p] * step.n_materials + material[q], 1u);
}

// Record `rec`'s owner, which a slot it takes keeps (lib/packed_slots.wgsl).
fn source_owner(rec: u32) -> u32 {
    return pair_i[rec];
}

// The record (slot flag) of invocation `gid`: its own. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return gid;
}

//!include lib/packed_slots.wgsl
