//! Particle insertion: pouring particles into a region at a rate, as DEM users fill hoppers
//! and drums (LIGGGHTS' `fix insert/rate/region`, DEM-Engine's batch insertion).
//!
//! The particles an `[[insert]]` block will ever insert are part of the world from the start,
//! after the scene's other particles and before any shell's nodes, each with its own radius
//! and mass drawn once from the block's size distribution. Until inserted they are *dormant*:
//! no mass, no velocity and [`crate::backend::REMOVED_RADIUS`], so the broad phase and every
//! resolver see them as out of reach, as they see removed particles. Their arrays are
//! allocated once, on both backends: inserting a batch writes the state of a few particles
//! ([`crate::Backend::insert_particles`]), with no growth, and their far-away reference
//! position makes the next step rebuild the neighbour list with them in it.
//!
//! Insertion is a function of time: particle `j` of a block (`0 <= j < count`) is due at
//! `start + j / rate`. At each insertion batch the particles due since the last batch are
//! placed at random points of the region (a hash of the block's seed, the particle and the
//! attempt: no state to save, so a resumed run places the same candidates), each checked
//! against every particle already there and those placed before it, with a gap; a particle
//! with no free place after [`ATTEMPTS`] tries stays dormant for good and is counted.

use glam::DVec3;

use crate::world::World;

/// Placement attempts per particle before it is given up.
pub const ATTEMPTS: u32 = 100;

/// Where particles are inserted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// An axis-aligned box (m).
    Box { min: [f64; 3], max: [f64; 3] },
    /// A cylinder: base centre, unit axis, radius and height (m).
    Cylinder {
        center: [f64; 3],
        axis: [f64; 3],
        radius: f64,
        height: f64,
    },
}

/// One `[[insert]]` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    /// Index of its first particle; its particles are `first..first + radii.len()`.
    pub first: u32,
    /// Radius of each of its particles (m), in insertion order.
    pub radii: Vec<f32>,
    /// Time the first particle is due (s).
    pub start: f64,
    /// Particles per second.
    pub rate: f64,
    pub region: Region,
    /// Initial velocity of every inserted particle (m/s).
    pub velocity: [f64; 3],
    /// Seed of the placement.
    pub seed: u64,
    /// Whether a script inserts its particles (the Python package's `insert`) rather than its
    /// schedule: none is ever due ([`Insertion::due`]).
    pub scripted: bool,
}

/// Where a dormant particle waits (m): one domain length beyond the domain's upper corner,
/// where nothing is.
pub fn dormant_position(min: [f64; 3], max: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| max[k] + (max[k] - min[k]))
}

/// Whether the particle at `p` (centre and radius) is dormant: not yet inserted (a deleted
/// particle is out of the run too, but where it was lost).
pub fn is_dormant(p: [f32; 4], min: [f64; 3], max: [f64; 3]) -> bool {
    let far = dormant_position(min, max);
    p[3] == crate::backend::REMOVED_RADIUS && (0..3).all(|k| p[k] == far[k] as f32)
}

/// SplitMix64 of `x`: the placement's stateless random numbers.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Insertion {
    /// How many of its particles are due by time `t` (s).
    pub fn due(&self, t: f64) -> u32 {
        if self.scripted || t < self.start {
            return 0;
        }
        let n = ((t - self.start) * self.rate).floor() as u64 + 1;
        n.min(self.radii.len() as u64) as u32
    }

    /// Uniform numbers in [0, 1) for particle `j`, attempt `a`.
    fn uniform3(&self, j: u32, a: u32) -> [f64; 3] {
        let base = mix(self.seed ^ mix(((j as u64) << 32) | a as u64));
        [0u64, 1, 2].map(|k| (mix(base.wrapping_add(k)) >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// Candidate centre of particle `j`, attempt `a`, for a particle of radius `r` kept inside
    /// the region.
    pub fn candidate(&self, j: u32, a: u32, r: f64) -> [f64; 3] {
        let u = self.uniform3(j, a);
        match self.region {
            Region::Box { min, max } => {
                [0, 1, 2].map(|k| min[k] + r + u[k] * (max[k] - min[k] - 2.0 * r).max(0.0))
            }
            Region::Cylinder {
                center,
                axis,
                radius,
                height,
            } => {
                let a = DVec3::from(axis);
                let (e1, e2) = a.any_orthonormal_pair();
                let rho = (radius - r).max(0.0) * u[0].sqrt();
                let phi = u[1] * std::f64::consts::TAU;
                let h = r + u[2] * (height - 2.0 * r).max(0.0);
                (DVec3::from(center) + a * h + e1 * (rho * phi.cos()) + e2 * (rho * phi.sin()))
                    .to_array()
            }
        }
    }
}

/// What one insertion batch did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placed {
    /// `(particle, centre)` of each particle placed.
    pub particles: Vec<(u32, [f32; 3])>,
    /// Particles given up (no free place).
    pub given_up: u32,
}

/// Place the particles of `ins` due in `(from, to]` (counts from [`Insertion::due`]) among
/// the particles at `pos`, each at least `gap` (m) from every other surface.
pub fn place(world: &World, ins: &Insertion, pos: &[[f32; 4]], from: u32, to: u32) -> Placed {
    // The particles near the region, and those placed in this batch, in a coarse hash.
    let rmax = ins.radii.iter().copied().fold(0.0f32, f32::max) as f64;
    let mut others: Vec<([f64; 3], f64)> = pos
        .iter()
        .filter(|p| p[3] > 0.0)
        .map(|p| ([p[0] as f64, p[1] as f64, p[2] as f64], p[3] as f64))
        .collect();
    let reach = others.iter().map(|o| o.1).fold(rmax, f64::max);
    let cell = (2.0 * reach).max(1e-12);
    let key = |x: &[f64; 3]| x.map(|c| (c / cell).floor() as i64);
    let mut grid: std::collections::HashMap<[i64; 3], Vec<usize>> = Default::default();
    for (k, o) in others.iter().enumerate() {
        grid.entry(key(&o.0)).or_default().push(k);
    }
    let gap = 1e-3 * rmax;
    let mut out = Placed::default();
    for j in from..to {
        let r = ins.radii[j as usize] as f64;
        let mut done = None;
        for a in 0..ATTEMPTS {
            let x = ins.candidate(j, a, r);
            let c = key(&x);
            let mut free = true;
            'near: for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let Some(list) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else {
                            continue;
                        };
                        for &k in list {
                            let (y, ry) = others[k];
                            let d2: f64 = (0..3).map(|i| (x[i] - y[i]).powi(2)).sum();
                            if d2 < (r + ry + gap).powi(2) {
                                free = false;
                                break 'near;
                            }
                        }
                    }
                }
            }
            // Clear of the walls too, by the same gap.
            let probe = [x[0] as f32, x[1] as f32, x[2] as f32, (r + gap) as f32];
            free &= world
                .walls
                .iter()
                .all(|w| crate::kernels::walls::wall_contact(probe, w).1 < 0.0);
            if free && world.domain_contains(x) {
                done = Some(x);
                break;
            }
        }
        match done {
            Some(x) => {
                grid.entry(key(&x)).or_default().push(others.len());
                others.push((x, r));
                out.particles.push((ins.first + j, x.map(|c| c as f32)));
            }
            None => out.given_up += 1,
        }
    }
    out
}
