// CPU twin: crates/grains-core/src/kernels/passes/history_carry.rs
//
// Broad phase, pass 6: carry contact history from the old list to the new one by matching
// (p, q). One invocation per record of the new list (its owner `pair_i` and partner `pair_j`,
// which `pair_fill` wrote); the old record of (p, q) is found by binary search among p's old
// records (`old_pair_start`, `old_j`: the live list). A record is
// its slot flag: the packed slots and history stay in place, so the carried flag still names
// the pair's; a new pair starts out of contact. `old_pair_start` holds the old list's record
// starts (n_particles + 1 of them); bound with fewer it means "no old list", as an empty slice
// does for the twin.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> pair_i: array<u32>;
@group(0) @binding(2) var<storage, read> pair_j: array<u32>;
// The old list's records' partners.
@group(0) @binding(4) var<storage, read> old_j: array<u32>;
@group(0) @binding(8) var<storage, read> old_slot: array<u32>;
@group(0) @binding(9) var<storage, read_write> nbr_slot: array<u32>;
@group(0) @binding(10) var<storage, read> old_pair_start: array<u32>;
// The new record count is read from `pair_start[step.n_particles]` (indirect dispatch).
@group(0) @binding(11) var<storage, read> pair_start: array<u32>;

// CPU twin: `find_sorted` in crates/grains-core/src/kernels/passes/pair_record.rs, bound to
// `old_j` (see pair_record.wgsl for why it is not shared).
fn find_sorted(lo_in: u32, hi_in: u32, key: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let v = old_j[mid];
        if (v == key) {
            return mid;
        }
        if (v < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return 0xffffffffu;
}

@compute @workgroup_size(64)
fn history_carry(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= pair_start[step.n_particles]) {
        return;
    }
    let p = pair_i[gid];
    let q = pair_j[gid];
    var a = 0u;
    if (p + 1u < arrayLength(&old_pair_start)) {
        let k = find_sorted(old_pair_start[p], old_pair_start[p + 1u], q);
        if (k != 0xffffffffu) {
            a = old_slot[k];
        }
    }
    nbr_slot[gid] = a;
}
