//! The wall source. WGSL twin: `shaders/sources/wall.wgsl`.
//!
//! Wall contacts are entries of the neighbour list: the broad phase (`pair_count`,
//! `pair_fill`) appends to a particle's candidates every wall it may touch before the next
//! rebuild ([`wall_candidate`]), as the entry `q = n_particles + w`. So a wall pair has a
//! record (slot and history, `nbr_pair`) only while the particle is near the wall, its history follows it
//! across rebuilds like a particle pair's (`slot_carry`), and a particle deep in the bed
//! costs nothing per wall. (Before, every (particle, wall) pair had a fixed slot evaluated
//! every step: 6 slots and 6 history records per particle in a box, most of a step's work and
//! memory.) The neighbour source skips these entries and this source evaluates only them;
//! `q` of the pair is the wall's index.

use crate::kernel_types::{SourcePair, StepParams, Wall};
pub use crate::kernels::walls::wall_distance_bound;

/// A wall pair's slot is one of the list's packed slots, as a particle pair's, and its record
/// is the invocation's, as a particle pair's.
pub use super::neighbour::{drop_slot, place_slot, source_history, source_record};

/// Record `gid` of the neighbour list, one of particle `owner`'s (the invocation is the
/// particle's), as a (particle, wall) pair, if it is one.
#[inline]
pub fn source_pair(
    gid: usize,
    owner: u32,
    step: &StepParams,
    material: &[u32],
    walls: &[Wall],
    pair_j: &[u32],
) -> SourcePair {
    let (p, q) = (owner, pair_j[gid]);
    if q < step.n_particles {
        return SourcePair::default();
    }
    let w = (q - step.n_particles) as usize;
    SourcePair {
        p,
        q: w as u32,
        // One block of material pairs per wall kind, each with its resolver's chains.
        table: (walls[w].kind * step.n_materials + material[p as usize]) * step.n_materials
            + walls[w].material,
        owns: 1,
    }
}

/// The wall records of particle `gid`: the tail of its records, where the broad phase puts the
/// walls after its particles. The contact pass of a wall chain runs one invocation per
/// particle over these.
#[inline]
pub fn source_range(
    gid: usize,
    step: &StepParams,
    pair_start: &[u32],
    pair_j: &[u32],
) -> std::ops::Range<usize> {
    let (lo, end) = (pair_start[gid] as usize, pair_start[gid + 1] as usize);
    let mut k = end;
    while k > lo && pair_j[k - 1] >= step.n_particles {
        k -= 1;
    }
    k..end
}

/// Whether wall `w` is a candidate of the body at `x` (bounding radius `x[3]`) until the next
/// rebuild: within `cutoff` (the grid's: skin plus the largest interaction range) of touching,
/// with a margin of a thousandth of the radius for rounding. A wall given a motion is a
/// candidate of every body, since the skin does not bound how far it moves between rebuilds.
pub fn wall_candidate(w: &Wall, x: [f32; 4], cutoff: f32) -> bool {
    if w.moves() {
        return x[3] > 0.0;
    }
    wall_distance_bound(w, [x[0], x[1], x[2]]) < x[3] * 1.001 + cutoff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::walls::{WALL_CONE, WALL_CYLINDER, WALL_DISK, WALL_PLANE};
    use glam::Vec3;

    fn rng(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32) / (1u64 << 24) as f32
        }
    }

    /// The bound never exceeds the distance to the surface, sampled densely (brute force over
    /// points of the surface), for random walls and points.
    #[test]
    fn bound_is_below_the_distance() {
        let mut r = rng(7);
        for case in 0..240 {
            let kind = [WALL_PLANE, WALL_CYLINDER, WALL_DISK, WALL_CONE][case % 4];
            let axis = Vec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize();
            let w = Wall {
                point: [r() - 0.5, r() - 0.5, r() - 0.5],
                normal: axis.to_array(),
                radius: 0.05 + 0.3 * r(),
                slope: 2.0 * r(),
                kind,
                ..Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0)
            };
            let x = [2.0 * r() - 1.0, 2.0 * r() - 1.0, 2.0 * r() - 1.0];
            let bound = wall_distance_bound(&w, x);
            let p = Vec3::from(w.point);
            if kind == WALL_PLANE {
                let signed = (Vec3::from(x) - p).dot(axis);
                assert!((bound - signed).abs() < 1e-6, "plane: {bound} vs {signed}");
                continue;
            }
            // The surface, sampled: a frame around the axis.
            let u = axis.any_orthonormal_vector();
            let v = axis.cross(u);
            let mut best = f32::INFINITY;
            for i in 0..360 {
                let th = i as f32 / 360.0 * std::f32::consts::TAU;
                let dir = u * th.cos() + v * th.sin();
                for k in 0..=300 {
                    let s = k as f32 / 300.0;
                    let y = match kind {
                        WALL_CYLINDER => p + dir * w.radius + axis * (4.0 * s - 2.0),
                        WALL_DISK => p + dir * w.radius * s,
                        WALL_CONE => {
                            let h = 2.0 * s;
                            p + axis * h + dir * (w.radius + w.slope * h)
                        }
                        _ => unreachable!(),
                    };
                    best = best.min((Vec3::from(x) - y).length());
                }
            }
            // Sampling finds a distance at least the true one; the bound is below the true one
            // up to f32 rounding.
            assert!(
                bound <= best + 1e-5,
                "kind {kind}: bound {bound} > sampled {best}"
            );
        }
    }

    #[test]
    fn moving_walls_are_candidates_of_every_body() {
        let mut w = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
        assert!(!wall_candidate(&w, [0.0, 0.0, 1.0, 0.01], 0.01));
        assert!(wall_candidate(&w, [0.0, 0.0, 0.0199, 0.01], 0.01));
        w.velocity = [0.0, 0.0, 1e-3];
        assert!(wall_candidate(&w, [0.0, 0.0, 1.0, 0.01], 0.01));
        // Removed and dormant particles never are.
        assert!(!wall_candidate(&w, [0.0, 0.0, 1.0, -1e30], 0.01));
    }
}
