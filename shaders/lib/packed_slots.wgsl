// The neighbour list's packed slots and history, for its two sources (neighbour.wgsl,
// wall.wgsl), which bind `slot_count`, `pair_j` and `slots_hi` and give each record's owner
// (`source_owner`) beside the contact template's `slots`,
// `history` and `pair_active` (the slots past the end of `slots` go to `slots_hi` to
// `slots_hi3`: lib/slot_chunks.wgsl; their history records to `history_hi` to `history_hi3`). CPU twins: `source_history`,
// `place_slot` and `drop_slot` in crates/grains-core/src/kernels/sources/neighbour.rs (the wall
// source re-exports them), which pack the CPU's slots by blocks of records instead.
//
// A pair keeps its slot while it stays in contact: its history is read and written in place,
// by its own invocation only, so one buffer holds it (no copy of last step's) and the record's
// flag (`pair_active`) is both last step's and this step's. A slot in use knows its pair
// (`slot_pair`), by which a rebuild names it in the pair's new record. A pair that comes into contact
// takes a slot that the pairs which left contact gave back, or else a new one past those ever
// taken; a pair that leaves contact gives its slot back. The slots given back wait in
// `free_slots`, a ring: this step's takers read the ones given back before it, from `head`
// on, and this step's givers write after them, so no slot is read and written in one pass
// (there are never more slots free and given back than slots taken, the ring's length). The
// one-thread `decide` kernel (grains-gpu's control.wgsl) moves the ring on before each step's
// contact passes. Which invocation takes which slot is a race, so slot indices differ from run
// to run; nothing reads a slot but through its record's flag, so no result does.
//
// When more slots are needed than there are, a pair coming into contact marks its record
// PENDING and writes nothing; `slot_guard` (control.wgsl) then stops the batch, and the host
// grows the slots, gives back every slot no record names, and runs the contact passes again
// with `slot_count[SLOT_PENDING]` set: only the PENDING records are evaluated, from zero
// history, as they would have been.

//!include lib/slot_ring.wgsl

// A record in contact that found no slot.
const PENDING: u32 = 0xffffffffu;

// The packed slots and history records from `arrayLength(&slots)` on, in up to four
// bindings each (lib/slot_chunks.wgsl; `slots` and `slots_hi` are the template's and the
// source's, `history` the template's). The generated `history_vec4` and `set_history_vec4`
// pick the binding; the CPU twins keep the slots and the history in one array each.
@group(0) @binding(24) var<storage, read_write> history_hi: array<vec4<f32>>;
@group(0) @binding(29) var<storage, read_write> history_hi2: array<vec4<f32>>;
@group(0) @binding(30) var<storage, read_write> history_hi3: array<vec4<f32>>;
@group(0) @binding(27) var<storage, read_write> slots_hi2: array<PairSlot>;
@group(0) @binding(28) var<storage, read_write> slots_hi3: array<PairSlot>;
// The slots given back, a ring of `slot_count[SLOT_CAPACITY]` (see above).
@group(0) @binding(25) var<storage, read_write> free_slots: array<u32>;
// Each slot's pair (owner, partner) while one holds it, else NO_PAIR: a rebuild carries the
// slots in use to the new list by it (passes/slot_carry.wgsl).
@group(0) @binding(26) var<storage, read_write> slot_pair: array<vec2<u32>>;

// Whether record `rec` is evaluated in this run of the contact passes: every record, but only
// the PENDING ones when the passes run again after the slots grew.
fn slot_runs(rec: u32) -> bool {
    return atomicLoad(&slot_count[SLOT_PENDING]) == 0u || pair_active[rec] == PENDING;
}

// A pair's history: its packed record in place, or zero for a pair that was out of contact.
fn source_history(rec: u32) -> ChainHistory {
    let a = pair_active[rec];
    if (a == 0u || a == PENDING) {
        return ChainHistory();
    }
    return load_history(a - 1u);
}

// A pair in contact writes its slot and history in the slot its flag names (`1 + index`),
// taking one first if it has none: one given back (the ring), or else a new one. Past the
// slots' end nothing is written: the record is marked PENDING, `slot_guard` stops the batch,
// and the host grows the slots and runs the step's contact passes again.
fn place_slot(rec: u32, s: PairSlot, h: ChainHistory) {
    let a = pair_active[rec];
    var k = a - 1u;
    if (a == 0u || a == PENDING) {
        let cap = atomicLoad(&slot_count[SLOT_CAPACITY]);
        let i = atomicAdd(&slot_count[SLOT_POPS], 1u);
        if (i < atomicLoad(&slot_count[SLOT_FREE])) {
            k = free_slots[(atomicLoad(&slot_count[SLOT_HEAD]) + i) % cap];
        } else {
            k = atomicAdd(&slot_count[SLOT_TAKEN], 1u);
            if (k >= cap) {
                pair_active[rec] = PENDING;
                return;
            }
        }
        slot_pair[k] = vec2<u32>(source_owner(rec), pair_j[rec]);
    }
    let c = arrayLength(&slots);
    if (k < c) {
        slots[k] = s;
    } else if (k < 2u * c) {
        slots_hi[k - c] = s;
    } else if (k < 3u * c) {
        slots_hi2[k - 2u * c] = s;
    } else {
        slots_hi3[k - 3u * c] = s;
    }
    store_history(k, h);
    pair_active[rec] = k + 1u;
}

// A pair out of contact keeps no slot and no history: its slot goes back to the ring.
fn drop_slot(rec: u32) {
    let a = pair_active[rec];
    if (a != 0u && a != PENDING) {
        slot_pair[a - 1u] = vec2<u32>(NO_PAIR);
        give_slot_back(a - 1u);
    }
    pair_active[rec] = 0u;
}
