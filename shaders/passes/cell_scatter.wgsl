// CPU twin: crates/grains-core/src/kernels/passes/cell_scatter.rs
//
// Broad phase, pass 2: counting-sort scatter. `cell_cursor` starts as a copy of the cell
// starts (`cell_start[0..n_cells]`). The order inside a cell depends on which invocation's
// atomicAdd lands first; pair_fill sorts each list, so nothing downstream sees it.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<storage, read> particle_cell: array<u32>;
@group(0) @binding(1) var<storage, read_write> cell_cursor: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> sorted: array<u32>;
// The particle count, which the twin's caller takes from `particle_cell.len()`.
@group(0) @binding(3) var<uniform> step: StepParams;

@compute @workgroup_size(64)
fn cell_scatter(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let c = particle_cell[gid];
    // A removed particle is in no cell (cell_count's 0xffffffff, the twin's `NO_CELL`).
    if (c == 0xffffffffu) {
        return;
    }
    let slot = atomicAdd(&cell_cursor[c], 1u);
    sorted[slot] = gid;
}
