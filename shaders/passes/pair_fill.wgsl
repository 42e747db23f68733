// CPU twin: crates/grains-core/src/kernels/passes/pair_fill.rs
//
// Broad phase, pass 4: write each particle's records, the candidates above it (particles,
// then the walls as n_particles + w), into its range `pair_start[gid]..pair_start[gid + 1]`
// of `pair_j`, and insertion-sort the range by partner, so the list does not depend on the order cell_scatter's atomics gave inside cells. The
// candidates below it are its head, which pair_record.wgsl writes as their records.
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
// The scan of pair_count's owning counts: where each particle's records start.
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(7) var<storage, read_write> pair_j: array<u32>;
// The particle count, which the twin's caller takes from `pos.len()`.
@group(0) @binding(8) var<uniform> step: StepParams;
// Two mesh triangles are never candidates (twin: `is_triangle`).
@group(0) @binding(9) var<storage, read> shape: array<u32>;
@group(0) @binding(10) var<storage, read> shapes: array<ShapeRecord>;
// The walls a particle may touch follow its particles, as the candidates n_particles + w.
@group(0) @binding(11) var<storage, read> walls: array<Wall>;

// The invocation's particle and where its next record goes (up to `fill_end`, which only
// matters if pair_count saw other positions: it keeps a stale count from writing into the next
// particle's records).
var<private> me: u32;
var<private> fill_at: u32;
var<private> fill_end: u32;

// Walls are visited after every particle, so the sort keeps them last, in wall order.
fn visit_candidate(q: u32) {
    if (q > me && fill_at < fill_end) {
        pair_j[fill_at] = q;
        fill_at = fill_at + 1u;
    }
}

@compute @workgroup_size(64)
fn pair_fill(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let start = pair_start[gid];
    let end = pair_start[gid + 1u];
    me = gid;
    fill_at = start;
    fill_end = end;
    for_each_candidate(gid);
    for (var a = start + 1u; a < end; a = a + 1u) {
        let key = pair_j[a];
        var b = a;
        while (b > start && pair_j[b - 1u] > key) {
            pair_j[b] = pair_j[b - 1u];
            b = b - 1u;
        }
        pair_j[b] = key;
    }
}
