// CPU twin: crates/grains-core/src/kernels/sources/fixed.rs
//
// The fixed-topology source, for the contact template's `source` slot: slot `gid` is the
// scene's pair `fixed_pairs[gid]` for the whole run (bonds, mesh edges), never found by the
// hash and never dropped by it.

@group(0) @binding(10) var<storage, read> fixed_pairs: array<vec2<u32>>;
// Each pair's history record, whole vec4s (`HISTORY_VEC4`), in place.
@group(0) @binding(8) var<storage, read_write> history: array<vec4<f32>>;
// Each pair's whole slot: the gather reads both sides of it.
@group(0) @binding(9) var<storage, read_write> slots: array<PairSlot>;

fn source_count() -> u32 {
    return step.n_fixed;
}

// A fixed pair's `pair_active` word while it is switched off (a division pair before its cell
// divides and after its cytokinesis): not evaluated, its history and slot zero. CPU twin:
// `FIXED_OFF`.
const FIXED_OFF: u32 = 0xffffffffu;

// Invocation `gid` evaluates its own pair (the template's `contact_pair`) unless it is switched
// off. CPU twin: `source_runs`.
fn source_pairs(gid: u32) {
    if (pair_active[gid] == FIXED_OFF) {
        return;
    }
    contact_pair(gid);
}

fn source_pair(gid: u32) -> SourcePair {
    let pq = fixed_pairs[gid];
    return SourcePair(pq.x, pq.y, material[pq.x] * step.n_materials + material[pq.y], 1u);
}

// The record (history, slot, flag) of pair `gid`: slot `gid`. CPU twin: `source_record`.
fn source_record(gid: u32) -> u32 {
    return gid;
}

// A pair's history: its own record, in place. CPU twin: `SlotSink::Own` in contact.rs.
fn source_history(rec: u32) -> ChainHistory {
    return load_history(rec);
}

// A pair in contact writes its own slot and history, in place. CPU twin: `place_slot`.
fn place_slot(rec: u32, s: PairSlot, h: ChainHistory) {
    store_history(rec, h);
    slots[rec] = s;
    pair_active[rec] = 1u;
}

// A pair out of contact zeroes its own history and slot (the gather reads every fixed slot).
// CPU twin: `drop_slot`.
fn drop_slot(rec: u32) {
    clear_history(rec);
    slots[rec] = PairSlot();
    pair_active[rec] = 0u;
}
