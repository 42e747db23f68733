// CPU twin: crates/grains-core/src/kernels/passes/contact.rs
//
// The contact pass of every chain: one template whatever the pair source and the resolver.
// grains-shaders' compose_chain fills the `source` slot with the chain's pair source
// (shaders/sources/: its bindings, `source_count`, `source_pairs`, `source_pair`,
// `source_record`, and `source_history`, `place_slot` and `drop_slot`: where a pair keeps its
// history and, in contact, its slot) and the `chain` slot with CHAIN_ID, INTERACTION_RANGE,
// the resolver's file and the generated `pair_overlap` and `pair_geom` that call it, the laws,
// the generated `ChainParams` and `ChainHistory` records with their vec4 loads and stores
// (`load_params`, `load_history`, `store_history`, `clear_history`) and `apply_chain`. One
// invocation per pair of the source (a fixed pair), or per particle for the neighbour list's
// two sources (its records of particles above it, or of the walls near it), which sum the
// particle's side of them as they go (lib/packed_slots.wgsl); a pair whose table entry runs
// this chain is evaluated by the invocation that owns it, into its record. `pair_chain`, `pair_params`,
// `history` and `slots` are bound to the source's own arrays.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/sphere.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pair_chain: array<u32>;
@group(0) @binding(3) var<storage, read> pair_params: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> material: array<u32>;
@group(0) @binding(5) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> omega: array<vec4<f32>>;
// The source's history records, binding 8, are the source's to declare: whole vec4s per pair
// (fixed), or the list's packed records of its pairs in contact, word by word
// (lib/packed_slots.wgsl).
// The source's slots, binding 9, are the source's to declare: whole `PairSlot`s, one per pair
// (fixed), or packed `FarSlot`s, only for pairs in contact (the list, lib/packed_slots.wgsl).
// Per record: 0 while its history is zero and it has no slot; else the source's mark of its
// slot (1 for a fixed pair; 1 + the index of the packed slot and history in the list).
@group(0) @binding(19) var<storage, read_write> pair_active: array<u32>;
//!slot source
//!slot chain

@compute @workgroup_size(64)
fn contact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= source_count()) {
        return;
    }
    // Most sources give an invocation one pair; the wall source gives it a particle's wall
    // entries. A loop of one pair in the template made the other chains twice as slow on
    // lavapipe, so each source calls `contact_pair` as it needs.
    source_pairs(gid);
}

// Pair `gid` of the source, if its table entry runs this chain and the invocation owns it.
fn contact_pair(gid: u32) {
    let pr = source_pair(gid);
    if (pr.owns == 0u) {
        return;
    }
    if (pair_chain[pr.table] != CHAIN_ID) {
        return;
    }
    // The pair's record: its slot flag.
    let rec = source_record(gid);
    // Most candidates do not touch: decide that from the positions alone.
    if (pair_overlap(pr) <= -INTERACTION_RANGE) {
        clear_slot(rec);
        return;
    }
    let geom = pair_geom(pr);
    if (geom.delta > -INTERACTION_RANGE) {
        var h = source_history(rec);
        let f = apply_chain(geom, load_params(pr.table), &h);
        place_slot(rec, assemble_slot(geom, f), h);
    } else {
        clear_slot(rec);
    }
}

// A pair out of reach: its history and slot dropped, written only if they may not be zero (an
// inactive pair writes nothing). CPU twin: `clear_slot` in contact.rs.
fn clear_slot(rec: u32) {
    if (pair_active[rec] != 0u) {
        drop_slot(rec);
    }
}
