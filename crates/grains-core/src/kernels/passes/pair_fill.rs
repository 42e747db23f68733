//! Broad phase, pass 4: write each particle's candidates into its range of the neighbour list
//! and sort that range by index. WGSL twin: `shaders/passes/pair_fill.wgsl`.
//!
//! Sorting per particle makes the list independent of the order inside cells, so both
//! backends, and every run, build the same list; it also lets history be carried over and
//! the reverse entry of a pair (its record, `pair_record`) be found by binary search.

use crate::gpu_types::{DomainParams, GridParams, Wall};
use crate::kernels::passes::pair_count::for_each_candidate;
use crate::shapes::ShapeRecord;

/// Fill particle `gid`'s range of the list (`nbr_j` is the slice
/// `nbr_start[gid]..nbr_start[gid + 1]` of the binding) with its sorted candidates. The list
/// keeps no owner per entry: a range is its particle's.
#[allow(clippy::too_many_arguments)]
pub fn pair_fill(
    gid: usize,
    grid: &GridParams,
    domain: &DomainParams,
    pos: &[[f32; 4]],
    cell_start: &[u32],
    sorted: &[u32],
    shape: &[u32],
    shapes: &[ShapeRecord],
    walls: &[Wall],
    nbr_j: &mut [u32],
) {
    let start = 0;
    let end = nbr_j.len();
    let mut w = start;
    for_each_candidate(
        gid,
        grid,
        domain,
        pos,
        cell_start,
        sorted,
        shape,
        shapes,
        walls,
        |q| {
            nbr_j[w] = q;
            w += 1;
        },
    );
    // Insertion sort: lists are short (tens of entries), and the GPU twin does the same.
    for a in start + 1..end {
        let key = nbr_j[a];
        let mut b = a;
        while b > start && nbr_j[b - 1] > key {
            nbr_j[b] = nbr_j[b - 1];
            b -= 1;
        }
        nbr_j[b] = key;
    }
}

/// The CPU backend's form of [`pair_fill`]: particle `gid`'s candidates above it (walls
/// included), the records it owns, appended to `out` in index order. These are the tail that
/// [`pair_fill`] leaves after its sort and `pair_count`'s owning count sizes, found in one pass
/// over the cells where the count and the fill take two (the CPU keeps only the records).
#[allow(clippy::too_many_arguments)]
pub fn pair_fill_owned(
    gid: usize,
    grid: &GridParams,
    domain: &DomainParams,
    pos: &[[f32; 4]],
    cell_start: &[u32],
    sorted: &[u32],
    shape: &[u32],
    shapes: &[ShapeRecord],
    walls: &[Wall],
    out: &mut Vec<u32>,
) {
    let start = out.len();
    for_each_candidate(
        gid,
        grid,
        domain,
        pos,
        cell_start,
        sorted,
        shape,
        shapes,
        walls,
        |q| {
            if q as usize > gid {
                out.push(q)
            }
        },
    );
    // Candidates are distinct, so any sort gives pair_fill's order.
    out[start..].sort_unstable();
}
