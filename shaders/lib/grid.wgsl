//!include lib/types.wgsl
//!include lib/domain.wgsl
// Broad-phase cell helpers.
// CPU twins: `cell_coords`, `cell_index` in crates/grains-core/src/kernels/passes/mod.rs and the
// per-candidate test of `for_each_candidate` in crates/grains-core/src/kernels/passes/pair_count.rs.

// Euclidean remainder, as Rust's `i32::rem_euclid` for a positive modulus (WGSL's `%` truncates).
fn rem_euclid(a: i32, m: i32) -> i32 {
    let r = a % m;
    if (r < 0) {
        return r + m;
    }
    return r;
}

// Cell coordinates of a position: clamped on bounded axes, wrapped on periodic ones.
fn cell_coords(grid: GridParams, x: vec4<f32>) -> vec3<i32> {
    var c = vec3<i32>(0, 0, 0);
    for (var k = 0u; k < 3u; k = k + 1u) {
        let dim = i32(grid.dims[k]);
        var ck = i32(floor((x[k] - grid.origin[k]) / grid.cell_size[k]));
        if ((grid.periodic_mask & (1u << k)) != 0u) {
            ck = rem_euclid(ck, dim);
        } else {
            ck = clamp(ck, 0, dim - 1);
        }
        c[k] = ck;
    }
    return c;
}

fn cell_index(grid: GridParams, c: vec3<i32>) -> u32 {
    return u32(c.x) + grid.dims[0] * (u32(c.y) + grid.dims[1] * u32(c.z));
}

// Index of the cell at offset `o` (each component in -1..=1) from cell `c`, or -1 when that
// cell lies outside a bounded axis. The loop over the 27 offsets stays in the passes because
// WGSL has no closures to hand the visit to.
fn neighbour_cell(grid: GridParams, c: vec3<i32>, o: vec3<i32>) -> i32 {
    var nc = c + o;
    for (var k = 0u; k < 3u; k = k + 1u) {
        let dim = i32(grid.dims[k]);
        if ((grid.periodic_mask & (1u << k)) != 0u) {
            nc[k] = rem_euclid(nc[k], dim);
        } else if (nc[k] < 0 || nc[k] >= dim) {
            return -1;
        }
    }
    return i32(cell_index(grid, nc));
}

// Whether particle `y` is a candidate of particle `x` (xyz centre, w radius): surfaces within
// `grid.cutoff`, by minimum image. A removed particle's radius is hugely negative: never one.
fn is_candidate(grid: GridParams, domain: DomainParams, x: vec4<f32>, y: vec4<f32>) -> bool {
    let d = min_image(vec3<f32>(y[0] - x[0], y[1] - x[1], y[2] - x[2]), domain);
    let reach = x[3] + y[3] + grid.cutoff;
    return reach > 0.0 && d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
}
