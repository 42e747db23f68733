// CPU twin: crates/grains-core/src/kernels/passes/pair_count.rs
//
// Broad phase, pass 3: count each particle's candidates (lower and higher indices) over the 27
// surrounding cells, then the walls it may touch before the next rebuild (lib/candidates.wgsl),
// and how many of them it owns (higher indices and walls).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/grid.wgsl
//!include lib/shape.wgsl
//!include lib/wall.wgsl
//!include lib/candidates.wgsl

// `grid` is read-only storage, not a uniform: lavapipe (Mesa 22.x) specialises a kernel on the
// uniforms its branches read and, when that pays, recompiles it at every bind (every step, even
// for zero-sized dispatches), leaking each variant: with a nonzero `origin.x` it did.
@group(0) @binding(0) var<storage, read> grid: GridParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> sorted: array<u32>;
@group(0) @binding(5) var<storage, read_write> nbr_count: array<u32>;
// The particle count, which the twin's caller takes from `pos.len()`.
@group(0) @binding(6) var<uniform> step: StepParams;
// Two mesh triangles are never candidates (twin: `is_triangle`).
@group(0) @binding(7) var<storage, read> shape: array<u32>;
@group(0) @binding(8) var<storage, read> shapes: array<ShapeRecord>;
// The walls a particle may touch follow its particles, as the candidates n_particles + w.
@group(0) @binding(9) var<storage, read> walls: array<Wall>;
// How many of them the particle owns (higher indices, walls included): scanned into the
// records' starts (pair_fill.wgsl).
@group(0) @binding(10) var<storage, read_write> own_count: array<u32>;

// The invocation's particle and its counts, which `visit_candidate` adds to.
var<private> me: u32;
var<private> seen: u32;
var<private> owned: u32;

fn visit_candidate(q: u32) {
    seen = seen + 1u;
    owned = owned + select(0u, 1u, q > me);
}

@compute @workgroup_size(64)
fn pair_count(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    me = gid;
    seen = 0u;
    owned = 0u;
    for_each_candidate(gid);
    nbr_count[gid] = seen;
    own_count[gid] = owned;
}
