// CPU twin: crates/grains-core/src/kernels/sources/neighbour.rs
//
// The neighbour-list source, for the contact template's `source` slot. One invocation per list
// entry; the list holds each pair twice, and only the owning entry (p < q) evaluates it. Entries
// of walls (q >= n_particles) are the wall source's.
// Reads the template's `step` and `material`.

@group(0) @binding(10) var<storage, read> nbr_i: array<u32>;
@group(0) @binding(11) var<storage, read> nbr_j: array<u32>;
// The entry count, `nbr_start[step.n_particles]` (indirect dispatch).
@group(0) @binding(12) var<storage, read> nbr_start: array<u32>;
// Each entry's record (pair_record.wgsl).
@group(0) @binding(13) var<storage, read> nbr_pair: array<u32>;
// The packed slots taken this step: [0] counts them (reset before the contact passes; a
// count beyond `slots` makes the host grow them and run the contact passes again).
@group(0) @binding(14) var<storage, read_write> slot_count: array<atomic<u32>>;
// Last step's packed history records (this step's go to `history`), at each record's flag.
@group(0) @binding(15) var<storage, read> history_in: array<vec4<f32>>;
// The packed slots past the end of `slots` (lib/packed_slots.wgsl).
@group(0) @binding(17) var<storage, read_write> slots_hi: array<PairSlot>;

fn source_count() -> u32 {
    return nbr_start[step.n_particles];
}

// Invocation `gid` evaluates its own entry (the template's `contact_pair`).
fn source_pairs(gid: u32) {
    contact_pair(gid);
}

fn source_pair(gid: u32) -> SourcePair {
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if (p >= q || q >= step.n_particles) {
        return SourcePair();
    }
    return SourcePair(p, q, material[p] * step.n_materials + material[q], 1u);
}

// The record (slot flag) of entry `gid`: its pair's. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return nbr_pair[gid];
}

//!include lib/packed_slots.wgsl
