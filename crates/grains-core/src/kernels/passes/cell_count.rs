//! Broad phase, pass 1: bin each particle into its cell. WGSL twin:
//! `shaders/passes/cell_count.wgsl` (which counts with `atomicAdd`).

use crate::kernel_types::GridParams;
use crate::kernels::passes::{cell_coords, cell_index};

/// A removed or dormant particle's cell: none. It touches nothing, and a pool of them, clamped
/// into the domain's far corner cell, would fill that cell for the live particles near it.
pub const NO_CELL: u32 = u32::MAX;

/// Store particle `gid`'s cell and count it; a removed particle (radius hugely negative) is in
/// no cell.
pub fn cell_count(
    gid: usize,
    grid: &GridParams,
    pos: &[[f32; 4]],
    particle_cell: &mut [u32],
    cell_counts: &mut [u32],
) {
    if pos[gid][3] < 0.0 {
        particle_cell[gid] = NO_CELL;
        return;
    }
    let c = cell_index(grid, cell_coords(grid, pos[gid]));
    particle_cell[gid] = c;
    cell_counts[c as usize] += 1;
}
