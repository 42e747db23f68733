//! Broad phase, pass 3: count each particle's candidates. WGSL twin:
//! `shaders/passes/pair_count.wgsl`.
//!
//! A candidate is any other particle whose surface is within `grid.cutoff` (skin plus the
//! largest interaction range) of this one's, by minimum image on periodic axes. The grid
//! guarantees a cell edge of at least the largest diameter plus the cut-off and at least three
//! cells on every periodic axis, so the 27 surrounding cells hold every candidate exactly once.
//! Then the walls it may touch before the next rebuild ([`wall_candidate`]), each as the
//! candidate `n_particles + w`, after every particle (the wall source's entries). The owning
//! counts (candidates of higher index) are scanned into the records' starts (`pair_record`).

use crate::kernel_types::{DomainParams, GridParams, Wall};
use crate::kernels::passes::{cell_coords, cell_index};
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::sources::wall::wall_candidate;
use crate::shapes::{ShapeRecord, KIND_MEMBER, KIND_TRIANGLE};

/// Whether particle `i` is a mesh wall's triangle.
#[inline]
pub fn is_triangle(i: usize, shape: &[u32], shapes: &[ShapeRecord]) -> bool {
    shapes[shape[i] as usize].kind == KIND_TRIANGLE
}

/// The clump body particle `i` belongs to, if it is a clump's member (`u32::MAX` if not).
#[inline]
pub fn body_of(i: usize, shape: &[u32], shapes: &[ShapeRecord]) -> u32 {
    let rec = shapes[shape[i] as usize];
    if rec.kind == KIND_MEMBER {
        i as u32 - rec.data[3].to_bits()
    } else {
        u32::MAX
    }
}

/// Visit every candidate of particle `gid`, in cell order. Two mesh triangles are never
/// candidates (they are fixed, and most of a mesh's neighbours are its own triangles), nor two
/// members of one clump (they move as one).
#[allow(clippy::too_many_arguments)]
pub fn for_each_candidate(
    gid: usize,
    grid: &GridParams,
    domain: &DomainParams,
    pos: &[[f32; 4]],
    cell_start: &[u32],
    sorted: &[u32],
    shape: &[u32],
    shapes: &[ShapeRecord],
    walls: &[Wall],
    mut visit: impl FnMut(u32),
) {
    let x = pos[gid];
    // A removed or dormant particle (its radius hugely negative) has no candidate: skipped
    // whole, since a pool of them shares one far cell.
    if x[3] < 0.0 {
        return;
    }
    let tri = is_triangle(gid, shape, shapes);
    let body = body_of(gid, shape, shapes);
    let c = cell_coords(grid, x);
    for dz in -1..=1 {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let mut nc = [c[0] + dx, c[1] + dy, c[2] + dz];
                let mut inside = true;
                for (k, ck) in nc.iter_mut().enumerate() {
                    let dim = grid.dims[k] as i32;
                    if grid.periodic_mask & (1 << k) != 0 {
                        *ck = ck.rem_euclid(dim);
                    } else if *ck < 0 || *ck >= dim {
                        inside = false;
                    }
                }
                if !inside {
                    continue;
                }
                let ci = cell_index(grid, nc) as usize;
                for s in cell_start[ci]..cell_start[ci + 1] {
                    let q = sorted[s as usize];
                    if q as usize == gid
                        || (tri && is_triangle(q as usize, shape, shapes))
                        || (body != u32::MAX && body_of(q as usize, shape, shapes) == body)
                    {
                        continue;
                    }
                    let y = pos[q as usize];
                    let d = min_image([y[0] - x[0], y[1] - x[1], y[2] - x[2]], domain);
                    // A removed particle's radius is hugely negative: never a candidate.
                    let reach = x[3] + y[3] + grid.cutoff;
                    if reach > 0.0 && d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach {
                        visit(q);
                    }
                }
            }
        }
    }
    // A mesh triangle is a wall already.
    if !tri {
        let n = pos.len() as u32;
        for (w, wall) in walls.iter().enumerate() {
            if wall_candidate(wall, x, grid.cutoff) {
                visit(n + w as u32);
            }
        }
    }
}

/// Number of candidates of particle `gid` (both lower and higher indices), and how many of them
/// it owns (higher indices, walls included): its pairs' records (`pair_record`).
#[allow(clippy::too_many_arguments)]
pub fn pair_count(
    gid: usize,
    grid: &GridParams,
    domain: &DomainParams,
    pos: &[[f32; 4]],
    cell_start: &[u32],
    sorted: &[u32],
    shape: &[u32],
    shapes: &[ShapeRecord],
    walls: &[Wall],
    nbr_count: &mut u32,
    own_count: &mut u32,
) {
    let (mut n, mut own) = (0u32, 0u32);
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
            n += 1;
            own += (q as usize > gid) as u32;
        },
    );
    *nbr_count = n;
    *own_count = own;
}
