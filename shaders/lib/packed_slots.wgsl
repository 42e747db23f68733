// The neighbour list's packed slots and history, for its two sources (neighbour.wgsl,
// wall.wgsl), which bind `slot_count`, `history_in` and `slots_hi` beside the contact
// template's `slots`, `history` and `pair_active` (the slots past the end of `slots` go to
// `slots_hi`: lib/slot_chunks.wgsl; their history records to `history_hi`). CPU twins: `source_history`, `place_slot` and `drop_slot` in
// crates/grains-core/src/kernels/sources/neighbour.rs (the wall source re-exports them).

// Last step's record flags. This step's go to the template's `pair_active`, a second array
// (the backend alternates the two, as it does `history_in` and `history`), so that a step
// whose slots overflowed can run its contact passes again from the same inputs. On the CPU,
// which never runs a step twice, both are one array.
@group(0) @binding(18) var<storage, read> pair_active_in: array<u32>;

// The packed history records from `arrayLength(&slots)` on, split as the slots are: this
// step's (`history` holds those before) and last step's (`history_in` likewise). The
// generated `history_vec4`, `history_in_vec4` and `set_history_vec4` pick the binding; the
// CPU twins keep the history in one array.
@group(0) @binding(24) var<storage, read_write> history_hi: array<vec4<f32>>;
@group(0) @binding(25) var<storage, read> history_in_hi: array<vec4<f32>>;

// A pair's history: last step's packed record at its flag, or zero for a pair that was out of
// contact.
fn source_history(rec: u32) -> ChainHistory {
    let a = pair_active_in[rec];
    if (a == 0u) {
        return ChainHistory();
    }
    return load_history_in(a - 1u);
}

// A pair in contact takes the next free packed slot, writes its slot and history there and
// names it in its record's flag as `1 + index`. Past the slots' end nothing is written:
// `slot_guard` (grains-gpu's control.wgsl) then stops the batch, and the host grows the slots
// and runs the step's contact passes again.
fn place_slot(rec: u32, s: PairSlot, h: ChainHistory) {
    let k = atomicAdd(&slot_count[0], 1u);
    let lo = arrayLength(&slots);
    let hi = arrayLength(&slots_hi);
    if (k < lo) {
        slots[k] = s;
        store_history(k, h);
    } else if (hi > 1u && k - lo < hi) {
        // A split array's second part is a multiple of 64 slots, never a single one.
        slots_hi[k - lo] = s;
        store_history(k, h);
    }
    pair_active[rec] = k + 1u;
}

// A pair out of contact keeps no slot and no history.
fn drop_slot(rec: u32) {
    pair_active[rec] = 0u;
}
