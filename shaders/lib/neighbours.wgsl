// A particle's partners in the neighbour list, walls left out, for the passes that walk them
// (surface_contact.wgsl, surface_gather.wgsl). CPU twin: `for_each_neighbour` in
// crates/grains-core/src/kernels/passes/surface_contact.rs.
//
// Its records' partners (above it) in record order, then its head's records' owners (below
// it) in head order. WGSL has no closures: each including pass defines `visit_neighbour(q)`
// and declares `step`, `nbr_start`, `pair_start`, `pair_j` and `head_pair`.

// The owner of record r: the last particle whose records start at or before it.
fn record_owner(r: u32) -> u32 {
    var lo = 0u;
    var hi = step.n_particles;
    while (lo < hi) {
        let mid = lo + (hi - lo + 1u) / 2u;
        if (pair_start[mid] <= r) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

fn for_each_neighbour(gid: u32) {
    let n = step.n_particles;
    let r0 = pair_start[gid];
    let r1 = pair_start[gid + 1u];
    for (var r = r0; r < r1; r = r + 1u) {
        let q = pair_j[r];
        if (q < n) {
            visit_neighbour(q);
        }
    }
    let start = nbr_start[gid];
    let end = nbr_start[gid + 1u];
    let own = min(r1 - r0, end - start);
    let h0 = start - r0;
    for (var h = h0; h < h0 + end - start - own; h = h + 1u) {
        let r = head_pair[h];
        if (r != 0xffffffffu) {
            visit_neighbour(record_owner(r));
        }
    }
}
