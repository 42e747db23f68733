// The neighbour list's packed slots and history, for its two sources (neighbour.wgsl,
// wall.wgsl), which bind `slot_count` and `pair_j` and say which torque a slot keeps
// (`kept_torque`) beside the contact template's `history` and `pair_active`. CPU twins:
// `source_history`,
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
// Both sources run one invocation per particle, over its records (`list_pairs`): the slots
// its pairs coming into contact need are taken first, all at once (`reserve_slots`), so that
// an invocation either evaluates all its records of the chain or none. Its side of each pair
// in contact (force, torque on it, dissipation) is summed as it goes, in record order, and
// stored in `force` and `torque` (the dissipation in their `w`): the slot keeps only what the
// other side reads (`FarSlot`), and the gather starts from the sums. The first list chain's
// pass writes the sums, the later ones add to them (`LIST_ORDER`, the chain's place among the
// list's chains, which run in that order), so a particle's sums are in record order chain by
// chain, whatever thread ran them.
//
// When more slots are needed than there are, the invocation writes nothing but its mark in
// `pos_comp[p].w` (always 0 otherwise: the first half-step's compensation has no w), which
// says from which chain on it is still to run, and the later chains pass it over; `slot_guard`
// (control.wgsl) then stops the batch, and the host grows the slots, gives back every slot no
// record names, and runs the contact passes again (`slot_count[SLOT_PENDING]` counts the runs
// again): only the marked particles run, from their chain on, as they would have; the last
// list chain clears the mark. The sums and every record's history come out as in a step whose
// slots sufficed.

//!include lib/slot_ring.wgsl

// The packed slots and history records (`HISTORY_WORDS` words each, unpadded). Either may
// outgrow a storage binding: the host then splits it over several (grains-shaders' `split`).
@group(0) @binding(8) var<storage, read_write> history: array<f32>;
@group(0) @binding(9) var<storage, read_write> slots: array<FarSlot>;
// The slots given back, a ring of `slot_count[SLOT_CAPACITY]` (see above).
@group(0) @binding(25) var<storage, read_write> free_slots: array<u32>;
// Each slot's pair (owner, partner) while one holds it, else NO_PAIR: a rebuild carries the
// slots in use to the new list by it (passes/slot_carry.wgsl).
@group(0) @binding(26) var<storage, read_write> slot_pair: array<vec2<u32>>;
// Each particle's side of its records in contact: force (N) and damping dissipation (J) in
// `force`, torque (N m) and friction dissipation (J) in `torque`; the gather adds the rest.
@group(0) @binding(31) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(32) var<storage, read_write> torque: array<vec4<f32>>;
// Its `w`: a particle's mark while it waits for more slots (see above).
@group(0) @binding(33) var<storage, read_write> pos_comp: array<vec4<f32>>;

// The invocation's particle, whose records it evaluates.
var<private> owner: u32;
// Its side of its records in contact so far (`place_slot` adds each).
var<private> own_force: vec3<f32>;
var<private> own_torque: vec3<f32>;
var<private> own_damping: f32;
var<private> own_friction: f32;
// The slots it took for its pairs coming into contact: `reserved` of them, the first
// `from_ring` from the ring at `ring_at` on (after its head), the rest new ones from `new_at`;
// `used` of them placed so far.
var<private> reserved: u32;
var<private> from_ring: u32;
var<private> ring_at: u32;
var<private> new_at: u32;
var<private> used: u32;

// Which run of this step's contact passes this is: 0, then 1, 2, ... after the slots grew.
fn slot_run() -> u32 {
    return atomicLoad(&slot_count[SLOT_PENDING]);
}

// Whether particle `p` runs in this pass: in the first run, unless an earlier chain found too
// few slots for it; in a later run, only if a pass before it did, from that chain on, and not
// again in this run. Its mark is `run * 65536 + LIST_ORDER + 1` of the pass that found too few
// (a float of an integer, exact below 2^24).
fn owner_runs(p: u32) -> bool {
    let run = slot_run();
    // No particle holds a mark while no pass of this run has found too few slots: the marks
    // are read only then.
    if (run == 0u && atomicLoad(&slot_count[SLOT_TAKEN]) <= atomicLoad(&slot_count[SLOT_CAPACITY])) {
        return true;
    }
    let m = u32(pos_comp[p].w);
    if (m == 0u) {
        return run == 0u;
    }
    return (m >> 16u) < run && (m & 0xffffu) <= LIST_ORDER + 1u;
}

// Take `m` slots for the invocation's pairs coming into contact, from the ring first: whether
// there were enough. When there were not, those taken stay unnamed by any record, and the host
// gives them back when the slots grow.
fn reserve_slots(m: u32) -> bool {
    reserved = m;
    used = 0u;
    from_ring = 0u;
    if (m == 0u) {
        return true;
    }
    ring_at = atomicAdd(&slot_count[SLOT_POPS], m);
    let free = atomicLoad(&slot_count[SLOT_FREE]);
    if (ring_at < free) {
        from_ring = min(m, free - ring_at);
    }
    let extra = m - from_ring;
    if (extra == 0u) {
        return true;
    }
    new_at = atomicAdd(&slot_count[SLOT_TAKEN], extra);
    return new_at + extra <= atomicLoad(&slot_count[SLOT_CAPACITY]);
}

// The `j`-th slot the invocation took.
fn reserved_slot(j: u32) -> u32 {
    if (j < from_ring) {
        let cap = atomicLoad(&slot_count[SLOT_CAPACITY]);
        return free_slots[(atomicLoad(&slot_count[SLOT_HEAD]) + ring_at + j) % cap];
    }
    return new_at + (j - from_ring);
}

// Evaluate particle `p`'s records `[lo, hi)` of this source (the template's `contact_pair`
// for each that may touch), the slots for the pairs coming into contact taken first, and store
// its sums. CPU twin: the CPU backend's contact sweep, which sums each owner's side
// (`OwnSums`) in record order and keeps the same `FarSlot`s.
fn list_pairs(p: u32, lo: u32, hi: u32) {
    if (!owner_runs(p)) {
        return;
    }
    owner = p;
    // The records out of contact that come into it, each needing a slot; the first 32 that
    // stay apart (or are not this chain's) are not looked at again.
    var need = 0u;
    var skip = 0u;
    for (var k = lo; k < hi; k = k + 1u) {
        if (pair_active[k] != 0u) {
            continue;
        }
        let pr = source_pair(k);
        if (pr.owns != 0u && pair_chain[pr.table] == CHAIN_ID && pair_overlap(pr) > -INTERACTION_RANGE) {
            need = need + 1u;
        } else if (k - lo < 32u) {
            skip = skip | (1u << (k - lo));
        }
    }
    if (!reserve_slots(need)) {
        pos_comp[p].w = f32((slot_run() << 16u) | (LIST_ORDER + 1u));
        return;
    }
    if (LIST_ORDER == 0u) {
        own_force = vec3<f32>(0.0, 0.0, 0.0);
        own_torque = vec3<f32>(0.0, 0.0, 0.0);
        own_damping = 0.0;
        own_friction = 0.0;
    } else {
        let f = force[p];
        let t = torque[p];
        own_force = f.xyz;
        own_damping = f.w;
        own_torque = t.xyz;
        own_friction = t.w;
    }
    for (var k = lo; k < hi; k = k + 1u) {
        if (k - lo < 32u && (skip & (1u << (k - lo))) != 0u) {
            continue;
        }
        contact_pair(k);
    }
    // A pair the positions brought near that its resolver found apart gives its slot back.
    for (var j = used; j < reserved; j = j + 1u) {
        let k = reserved_slot(j);
        slot_pair[k] = vec2<u32>(NO_PAIR);
        give_slot_back(k);
    }
    force[p] = vec4<f32>(own_force, own_damping);
    torque[p] = vec4<f32>(own_torque, own_friction);
    if (LIST_LAST && slot_run() != 0u) {
        pos_comp[p].w = 0.0;
    }
}

// A pair's history: its packed record in place, or zero for a pair that was out of contact.
fn source_history(rec: u32) -> ChainHistory {
    let a = pair_active[rec];
    if (a == 0u) {
        return ChainHistory();
    }
    return load_history(a - 1u);
}

// A pair in contact writes what the other side reads of its slot, and its history, in the slot
// its flag names (`1 + index`), taking one of the invocation's reserved slots first if it has
// none; its owner's side goes into the sums.
fn place_slot(rec: u32, s: PairSlot, h: ChainHistory) {
    let a = pair_active[rec];
    var k = a - 1u;
    if (a == 0u) {
        k = reserved_slot(used);
        used = used + 1u;
        slot_pair[k] = vec2<u32>(owner, pair_j[rec]);
    }
    slots[k] = far_slot(s.force, s.elastic, kept_torque(s));
    store_history(k, h);
    pair_active[rec] = k + 1u;
    own_force = own_force + s.force;
    own_torque = own_torque + s.torque1;
    own_damping = own_damping + s.damping_dissipated;
    own_friction = own_friction + s.friction_dissipated;
}

// A pair out of contact keeps no slot and no history: its slot goes back to the ring.
fn drop_slot(rec: u32) {
    let a = pair_active[rec];
    if (a != 0u) {
        slot_pair[a - 1u] = vec2<u32>(NO_PAIR);
        give_slot_back(a - 1u);
    }
    pair_active[rec] = 0u;
}
