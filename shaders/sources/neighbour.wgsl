// CPU twin: crates/grains-core/src/kernels/sources/neighbour.rs
//
// The neighbour-list source, for the contact template's `source` slot. One invocation per
// record: the list keeps each pair once, as a record of its lower particle p (`record_owner`)
// with its partner q > p (`pair_j[r]`); the other side reaches it through `head_pair` in the
// gather only. Records of walls (q >= n_particles) are the wall source's.
// Reads the template's `step` and `material`.

// The owner of every 64th record (pair_fill.wgsl writes them at a rebuild).
@group(0) @binding(10) var<storage, read> pair_block: array<u32>;
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
        owner = record_owner(gid);
        contact_pair(gid);
    }
}

// The particle whose record this invocation evaluates.
var<private> owner: u32;

// Record `r`'s owner: the owner of its block's first record, then on through the record
// starts to the particle whose range holds it. CPU twin: `record_owner`.
fn record_owner(r: u32) -> u32 {
    var p = pair_block[r / 64u];
    while (pair_start[p + 1u] <= r) {
        p = p + 1u;
    }
    return p;
}

// Record `gid`, of particle `owner`, as a pair of particles. CPU twin: `source_pair`.
fn source_pair(gid: u32) -> SourcePair {
    let p = owner;
    let q = pair_j[gid];
    if (q >= step.n_particles) {
        return SourcePair();
    }
    return SourcePair(p, q, material[p] * step.n_materials + material[q], 1u);
}

// Record `rec`'s owner, which a slot it takes keeps (lib/packed_slots.wgsl).
fn source_owner(rec: u32) -> u32 {
    return owner;
}

// The record (slot flag) of invocation `gid`: its own. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return gid;
}

//!include lib/packed_slots.wgsl
