//! Broad phase, pass 5: for each neighbour-list entry (p, q), find the entry (q, p). WGSL twin:
//! `shaders/passes/pair_mirror.wgsl`. A pair is evaluated once, by its entry with p < q; the
//! other entry reads that slot with the opposite sign during the gather. A wall's entry
//! (`q >= n_particles`) has no mirror: `u32::MAX`.

/// Index of `key` in the sorted `list[lo..hi]`, or `u32::MAX`.
pub fn find_sorted(list: &[u32], lo: u32, hi: u32, key: u32) -> u32 {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = list[mid as usize];
        if v == key {
            return mid;
        }
        if v < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    u32::MAX
}

/// `nbr_mirror[gid]` = index of the entry (q, p) for entry `gid` = (p, q).
pub fn pair_mirror(
    gid: usize,
    nbr_start: &[u32],
    nbr_i: &[u32],
    nbr_j: &[u32],
    nbr_mirror: &mut u32,
) {
    let p = nbr_i[gid];
    let q = nbr_j[gid] as usize;
    if q + 1 >= nbr_start.len() {
        *nbr_mirror = u32::MAX;
        return;
    }
    *nbr_mirror = find_sorted(nbr_j, nbr_start[q], nbr_start[q + 1], p);
}
