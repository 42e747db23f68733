//! Broad phase, pass 1: bin each particle into its cell. WGSL twin:
//! `shaders/passes/cell_count.wgsl` (which counts with `atomicAdd`).

use crate::kernel_types::GridParams;
use crate::kernels::passes::{cell_coords, cell_index};

/// Store particle `gid`'s cell and count it.
pub fn cell_count(
    gid: usize,
    grid: &GridParams,
    pos: &[[f32; 4]],
    particle_cell: &mut [u32],
    cell_counts: &mut [u32],
) {
    let c = cell_index(grid, cell_coords(grid, pos[gid]));
    particle_cell[gid] = c;
    cell_counts[c as usize] += 1;
}
