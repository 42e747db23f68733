// CPU twin: crates/grains-core/src/kernels/passes/slot_carry.rs
//
// Broad phase, pass 6: the packed slots of the pairs in contact, carried to the rebuilt list.
// One invocation per packed slot ever taken (`slot_count[SLOT_TAKEN]`, indirect dispatch): a
// slot in use knows its pair (`slot_pair`, kept since the pair took it), finds the pair's
// record among p's new records (`pair_start`, `pair_j`: the list just built, each owner's
// partners sorted) and names itself in that record's flag. The slot, its history and its pair
// stay where they are: a rebuild moves 4 bytes per pair in contact, and needs nothing of the
// old list. A pair the new list lacks (a particle taken out of the run) gives its slot back.
// `clear_flags` (grains-gpu's control.wgsl) zeroed every new record's flag before.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> slot_pair: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> pair_j: array<u32>;
@group(0) @binding(3) var<storage, read> pair_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> nbr_slot: array<u32>;
@group(0) @binding(5) var<storage, read_write> slot_count: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> free_slots: array<u32>;
//!include lib/slot_ring.wgsl

//!include lib/find_sorted.wgsl

@compute @workgroup_size(64)
fn slot_carry(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let k = linear_index(id, nwg);
    if (k >= atomicLoad(&slot_count[SLOT_TAKEN])) {
        return;
    }
    let pq = slot_pair[k];
    if (pq.x == NO_PAIR) {
        return;
    }
    var r = 0xffffffffu;
    if (pq.x < step.n_particles) {
        r = find_sorted(pair_start[pq.x], pair_start[pq.x + 1u], pq.y);
    }
    if (r != 0xffffffffu) {
        nbr_slot[r] = k + 1u;
        return;
    }
    slot_pair[k] = vec2<u32>(NO_PAIR);
    give_slot_back(k);
}
