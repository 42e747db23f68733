//! Broad phase, pass 2: counting-sort scatter of particle indices into cell order. WGSL twin:
//! `shaders/passes/cell_scatter.wgsl`. The order inside a cell may differ between backends
//! (the GPU claims places with atomics); `pair_fill` sorts each list, so nothing downstream
//! depends on it.

/// Put particle `gid` into its cell's range of `sorted`, advancing that cell's cursor.
pub fn cell_scatter(
    gid: usize,
    particle_cell: &[u32],
    cell_cursor: &mut [u32],
    sorted: &mut [u32],
) {
    if particle_cell[gid] == super::cell_count::NO_CELL {
        return;
    }
    let c = particle_cell[gid] as usize;
    let slot = cell_cursor[c];
    cell_cursor[c] += 1;
    sorted[slot as usize] = gid as u32;
}
