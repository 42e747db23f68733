//! Broad phase, pass 5: each particle's head, the candidates below it, as the records its
//! partners own. WGSL twin: `shaders/passes/pair_record.wgsl`.
//!
//! A pair's slot flag (and through it, in contact, its packed slot and history) is stored once,
//! in its record, and the list keeps each pair once: the records of a particle (its candidates
//! above it, walls included), consecutive from `pair_start[p]`, the scan of the owning counts
//! `pair_count` wrote, and its head, each element the record of (q, p) found by binary search
//! among q's records. The gather reads a particle's own records from `pair_start`, and the other
//! side's through the head, each with the sign its side takes. A state keeps the full list
//! (each pair from both sides, with each entry's record, `nbr_pair`), which this file's other
//! functions read and write.

use crate::kernel_types::{DomainParams, GridParams};
use crate::kernels::passes::pair_count::for_each_candidate;
use crate::kernels::passes::pair_fill::insertion_sort;
use crate::shapes::ShapeRecord;

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

/// First of particle `p`'s owning entries: they are the last `pair_start[p + 1] -
/// pair_start[p]` of its range, one per record (never before its range's start, whatever the
/// counts say).
#[inline]
pub fn first_owned(p: usize, nbr_start: &[u32], pair_start: &[u32]) -> u32 {
    let (start, end) = (nbr_start[p], nbr_start[p + 1]);
    end - (pair_start[p + 1] - pair_start[p]).min(end - start)
}

/// Record of the owning entry `k` of particle `p`: its owning entries' records are consecutive
/// from `pair_start[p]`.
#[inline]
pub fn owned_record(p: usize, k: u32, nbr_start: &[u32], pair_start: &[u32]) -> u32 {
    pair_start[p] + (k - first_owned(p, nbr_start, pair_start))
}

/// Particle `gid`'s head: for each candidate below it, the record of (q, gid) among q's records
/// (`pair_j`, sorted within each owner by `pair_fill`), `u32::MAX` where q does not list it;
/// sorted, which is the head's partner order since records are numbered in their owners'
/// order. `head` is the particle's slice of `head_pair`, from `nbr_start[gid] - pair_start[gid]`
/// to the same for `gid + 1`. Walls are never below a particle, so none are passed.
#[allow(clippy::too_many_arguments)]
pub fn pair_record(
    gid: usize,
    grid: &GridParams,
    domain: &DomainParams,
    pos: &[[f32; 4]],
    cell_start: &[u32],
    sorted: &[u32],
    shape: &[u32],
    shapes: &[ShapeRecord],
    pair_start: &[u32],
    pair_j: &[u32],
    head: &mut [u32],
) {
    let mut w = 0;
    for_each_candidate(
        gid,
        grid,
        domain,
        pos,
        cell_start,
        sorted,
        shape,
        shapes,
        &[],
        |q| {
            let q = q as usize;
            // The bound only matters if the count saw other positions.
            if q < gid && w < head.len() {
                head[w] = find_sorted(pair_j, pair_start[q], pair_start[q + 1], gid as u32);
                w += 1;
            }
        },
    );
    insertion_sort(head);
}

/// The record of entry `gid` = (p, q) of a full list (a state's): its own if it owns the pair
/// (q > p, or q a wall), else that of the entry (q, p), `u32::MAX` if (q, p) is missing; p is
/// the particle whose range holds it, which the caller knows from walking the entry starts, as
/// a state's validation does.
pub fn entry_record(
    p: u32,
    gid: usize,
    nbr_start: &[u32],
    nbr_j: &[u32],
    pair_start: &[u32],
) -> u32 {
    let q = nbr_j[gid];
    if q > p {
        return owned_record(p as usize, gid as u32, nbr_start, pair_start);
    }
    let q = q as usize;
    let m = find_sorted(nbr_j, nbr_start[q], nbr_start[q + 1], p);
    if m == u32::MAX {
        u32::MAX
    } else {
        owned_record(q, m, nbr_start, pair_start)
    }
}

/// The owner of each element of the ranges `starts` gives (`n + 1` starts): of each entry from
/// `nbr_start`, of each record from `pair_start` (the GPU's `pair_i`). The state keeps only the
/// starts.
pub fn entry_owners(nbr_start: &[u32]) -> impl Iterator<Item = u32> + '_ {
    nbr_start
        .windows(2)
        .enumerate()
        .flat_map(|(p, w)| std::iter::repeat_n(p as u32, (w[1] - w[0]) as usize))
}

/// The records' starts of a built list (`n + 1` of them, the last the record count): what the
/// broad phase scans from `pair_count`'s owning counts, recounted from the list itself (a
/// resumed state keeps no scratch).
pub fn pair_starts(nbr_start: &[u32], nbr_j: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(nbr_start.len());
    out.push(0u32);
    let mut total = 0u32;
    for (p, w) in nbr_start.windows(2).enumerate() {
        let range = &nbr_j[w[0] as usize..w[1] as usize];
        total += range.iter().filter(|&&q| q as usize > p).count() as u32;
        out.push(total);
    }
    out
}

/// The records' partners of a built list whose records start at `pair_start`, made within
/// `nbr_j` itself: each particle's owning entries moved down to the front (never up: the k-th
/// kept entry is at k or past it), the rest given back.
pub fn owned_within(nbr_start: &[u32], pair_start: &[u32], mut nbr_j: Vec<u32>) -> Vec<u32> {
    let mut records = 0;
    for p in 0..nbr_start.len().saturating_sub(1) {
        let owned = first_owned(p, nbr_start, pair_start) as usize;
        nbr_j.copy_within(owned..nbr_start[p + 1] as usize, records);
        records += nbr_start[p + 1] as usize - owned;
    }
    nbr_j.truncate(records);
    nbr_j.shrink_to_fit();
    nbr_j
}
