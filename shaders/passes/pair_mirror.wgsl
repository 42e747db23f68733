// CPU twin: crates/grains-core/src/kernels/passes/pair_mirror.rs
//
// Broad phase, pass 5: for entry (p, q), the index of entry (q, p), or 0xffffffff (none, or q is
// a wall).
// One invocation per neighbour-list entry; the entry count is only known on the device, so it
// is read from `nbr_start[n_particles]` and the pass can be dispatched indirectly with an
// upper bound.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(1) var<storage, read> nbr_i: array<u32>;
@group(0) @binding(2) var<storage, read> nbr_j: array<u32>;
@group(0) @binding(3) var<storage, read_write> nbr_mirror: array<u32>;
// The particle count, to find the entry count at `nbr_start[n_particles]`.
@group(0) @binding(4) var<uniform> step: StepParams;

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

@compute @workgroup_size(64)
fn pair_mirror(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= nbr_start[step.n_particles]) {
        return;
    }
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if (q >= step.n_particles) {
        nbr_mirror[gid] = 0xffffffffu;
        return;
    }
    nbr_mirror[gid] = find_sorted(nbr_start[q], nbr_start[q + 1u], p);
}
