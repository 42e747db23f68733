// CPU twin: crates/grains-core/src/kernels/passes/cell_count.rs
//
// Broad phase, pass 1: bin each particle into its cell and count it. `cell_counts` must be
// zeroed before the dispatch.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/grid.wgsl

// `grid` is read-only storage, not a uniform: lavapipe (Mesa 22.x) specialises a kernel on the
// uniforms its branches read and, when that pays, recompiles it at every bind (every step, even
// for zero-sized dispatches), leaking each variant: with a nonzero `origin.x` it did.
@group(0) @binding(0) var<storage, read> grid: GridParams;
@group(0) @binding(1) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> particle_cell: array<u32>;
@group(0) @binding(3) var<storage, read_write> cell_counts: array<atomic<u32>>;
// The particle count, which the twin takes from `pos.len()`.
@group(0) @binding(4) var<uniform> step: StepParams;

@compute @workgroup_size(64)
fn cell_count(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    // A removed or dormant particle (radius hugely negative) is in no cell (CPU twin:
    // `NO_CELL`).
    if (pos[gid].w < 0.0) {
        particle_cell[gid] = 0xffffffffu;
        return;
    }
    let c = cell_index(grid, cell_coords(grid, pos[gid]));
    particle_cell[gid] = c;
    atomicAdd(&cell_counts[c], 1u);
}
