//! Broad phase, pass 4: write each particle's records, its candidates above it (particles,
//! then walls as `n_particles + w`), into its range of the records with itself as their
//! owner, sorted by partner. WGSL twin: `shaders/passes/pair_fill.wgsl`.
//!
//! Sorting per particle makes the list independent of the order inside cells, so both
//! backends, and every run, build the same list; it also lets history be carried over and the
//! heads (`pair_record`) find their records by binary search.

use crate::kernel_types::{DomainParams, GridParams, Wall};
use crate::kernels::passes::pair_count::for_each_candidate;
use crate::shapes::ShapeRecord;

/// Fill particle `gid`'s records (`pair_j`, the slice `pair_start[gid]..pair_start[gid + 1]`
/// of the binding) with its candidates above it, sorted.
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
    pair_j: &mut [u32],
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
        walls,
        |q| {
            // The bound only matters if the count saw other positions.
            if q as usize > gid && w < pair_j.len() {
                pair_j[w] = q;
                w += 1;
            }
        },
    );
    insertion_sort(pair_j);
}

/// Sort a short range in place as the WGSL passes do (tens of elements).
pub fn insertion_sort(v: &mut [u32]) {
    for a in 1..v.len() {
        let key = v[a];
        let mut b = a;
        while b > 0 && v[b - 1] > key {
            v[b] = v[b - 1];
            b -= 1;
        }
        v[b] = key;
    }
}

/// The CPU backend's form of [`pair_fill`]: particle `gid`'s candidates above it (walls
/// included), the records it owns, appended to `out` in index order: [`pair_fill`]'s records,
/// found in one pass over the cells where the count and the fill take two.
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
