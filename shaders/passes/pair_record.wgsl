// CPU twin: crates/grains-core/src/kernels/passes/pair_record.rs
//
// Broad phase, pass 5: the records of the list the fill wrote in full (each pair from both
// sides). An owning entry (q > p, walls included; the tail of p's range) has its own record,
// those of p being consecutive from `pair_start[p]`, and writes the record's owner
// (`pair_i`), which the neighbour source's invocations, one per record, start from (its
// partner goes to `pair_j` when the list is committed). The other entry, the head of p's
// range, writes the record of (q, p), found by binary search in q's range, to `head_pair`
// (0xffffffff if that entry is missing), at `gid - pair_start[p]`: the heads of the particles
// before p are the entries before it less their records. No owner is kept per entry, so p is
// found by binary search in the starts.
// One invocation per neighbour-list entry; the entry count is only known on the device, so it
// is read from `nbr_start[n_particles]` and the pass can be dispatched indirectly with an
// upper bound.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(1) var<storage, read_write> pair_i: array<u32>;
@group(0) @binding(2) var<storage, read> nbr_j: array<u32>;
@group(0) @binding(3) var<storage, read_write> head_pair: array<u32>;
// The particle count, to find the entry count at `nbr_start[step.n_particles]`.
@group(0) @binding(4) var<uniform> step: StepParams;
// The scan of pair_count's owning counts: the first record of each particle's owning entries.
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;

// CPU twin: `find_sorted` in the same Rust file, over `nbr_j`. WGSL cannot pass a storage array
// to a function, so the search is bound to the array it reads (history_carry.wgsl has the
// same search over `old_j`).
fn find_sorted(lo_in: u32, hi_in: u32, key: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let v = nbr_j[mid];
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

// The particle whose range holds entry `gid`: the last whose start is at or below it (never an
// empty range). CPU twin: `entry_owner` in the same Rust file.
fn entry_owner(gid: u32) -> u32 {
    var lo = 0u;
    var hi = step.n_particles - 1u;
    while (lo < hi) {
        let mid = lo + (hi - lo + 1u) / 2u;
        if (nbr_start[mid] <= gid) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

// CPU twin: `owned_record` in the same Rust file.
fn owned_record(p: u32, k: u32) -> u32 {
    let owned = pair_start[p + 1u] - pair_start[p];
    return pair_start[p] + (k - (nbr_start[p + 1u] - owned));
}

@compute @workgroup_size(64)
fn pair_record(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= nbr_start[step.n_particles]) {
        return;
    }
    let p = entry_owner(gid);
    let q = nbr_j[gid];
    if (q > p) {
        pair_i[owned_record(p, gid)] = p;
        return;
    }
    let m = find_sorted(nbr_start[q], nbr_start[q + 1u], p);
    var r = 0xffffffffu;
    if (m != 0xffffffffu) {
        r = owned_record(q, m);
    }
    head_pair[gid - pair_start[p]] = r;
}
