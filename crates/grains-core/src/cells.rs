//! Cells that divide: a cell cycle per cell, and the division of a cell into two daughters as
//! an event between steps (Mpacts' dividing cells, `shared/reference/000`: N_Dividing,
//! N_Budding, N_DividingResistance, FeedbackDividing).
//!
//! A `[[cells]]` block names a material whose particles are cells. Each cell divides at the end
//! of its cycle, `cycle_time (1 + spread (2u - 1))` after its birth, `u` uniform in [0, 1) from a
//! counter-based hash of the block's seed, the cell's particle id and its generation: no state
//! to carry and the same numbers on every backend and thread count.
//!
//! **The pool.** Every division the block can make is built into the world from the start, as
//! [`crate::insert`] builds its particles: a *division pair* k is two dormant particles,
//! `first + 2k` and `first + 2k + 1`, and the fixed pair `first_pair + k` between them, whose
//! chain is the block's division law (`dividing` or `budding`, with `dividing_resistance` in an
//! implicit world). A pair is switched off ([`crate::kernels::sources::fixed::FIXED_OFF`]) until
//! a cell divides into it: the mother leaves the run, her two daughters enter it at her centre
//! of mass, split along a random axis, with half her mass each (`divide`) or her mass split
//! `1 - f`, `f` (`bud`), radii from their volumes at her density, her velocity, and the pair
//! switched on with a fresh history. Through the cytokinesis (the division law's `duration`)
//! the fixed pair drives the two daughters alone: the neighbour list's chains pass the pair
//! over (`kernels::sources::neighbour::divides_with`). When it ends the pair is switched off
//! and the two are an ordinary contact. No array grows; a colony that would need more pairs
//! than `max_cells` allows stops the run, saying how many cells would fit.
//!
//! Each division takes two new particles and leaves the mother's behind, removed: a colony of
//! `N` cells grown from `N0` holds `N0 + 2 (N - N0)` particles.

use glam::DVec3;

use crate::backend::REMOVED_RADIUS;
use crate::error::CoreError;
use crate::insert::mix;
use crate::kernels::sources::fixed::FIXED_OFF;
use crate::world::World;

/// How a cell divides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// Two equal daughters.
    Divide,
    /// A mother keeping `1 - fraction` of the mass and a bud taking `fraction`.
    Bud { fraction: f64 },
}

/// One `[[cells]]` block, with its pool's place in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct CellCycle {
    /// The cells' material.
    pub material: u32,
    /// Mean cycle time (s).
    pub cycle_time: f64,
    /// Half-width of the cycle's uniform spread, relative to `cycle_time` (0 to below 1).
    pub spread: f64,
    pub seed: u64,
    pub target: Target,
    /// The most cells the colony may hold.
    pub max_cells: u32,
    /// The cytokinesis' duration (s): the division law's.
    pub duration: f64,
    /// The daughters' separation at the split, over the sum of their radii (the division
    /// law's start, at least a thousandth of a radius so the pair has a direction).
    pub start_ratio: f64,
    /// The cells at the start (particle ids).
    pub cells: Vec<u32>,
    /// First particle of the pool.
    pub first: u32,
    /// Division pairs in the pool (`max_cells - cells.len()`).
    pub pairs: u32,
    /// Index of division pair 0 among the world's fixed pairs.
    pub first_pair: u32,
}

impl CellCycle {
    /// Length of the cycle of cell `id` in its generation `generation` (s).
    pub fn cycle_of(&self, id: u32, generation: u32) -> f64 {
        let u = uniform(self.seed, id, generation, 0);
        self.cycle_time * (1.0 + self.spread * (2.0 * u - 1.0))
    }

    /// The unit axis along which cell `id` of generation `generation` splits: uniform on the
    /// sphere, or on the circle of the plane z = 0 in a planar world.
    pub fn axis_of(&self, id: u32, generation: u32, planar: bool) -> DVec3 {
        let phi = std::f64::consts::TAU * uniform(self.seed, id, generation, 1);
        if planar {
            return DVec3::new(phi.cos(), phi.sin(), 0.0);
        }
        let z = 2.0 * uniform(self.seed, id, generation, 2) - 1.0;
        let rho = (1.0 - z * z).max(0.0).sqrt();
        DVec3::new(rho * phi.cos(), rho * phi.sin(), z)
    }

    /// The particles of division pair `k`.
    pub fn daughters_of(&self, k: u32) -> [u32; 2] {
        [self.first + 2 * k, self.first + 2 * k + 1]
    }

    /// The fixed pairs of the pool, `(first + 2k, first + 2k + 1)`.
    pub fn fixed_pairs(&self) -> Vec<[u32; 2]> {
        (0..self.pairs).map(|k| self.daughters_of(k)).collect()
    }
}

/// Uniform in [0, 1) from the seed, a cell, its generation and a stream.
fn uniform(seed: u64, id: u32, generation: u32, stream: u64) -> f64 {
    let key = ((id as u64) << 32) | generation as u64;
    let base = mix(seed ^ mix(key ^ mix(stream)));
    (base >> 11) as f64 / (1u64 << 53) as f64
}

/// One daughter as she enters the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Daughter {
    pub id: u32,
    /// Centre (m).
    pub pos: [f32; 3],
    /// Velocity (m/s).
    pub vel: [f32; 3],
    pub radius: f32,
    pub mass: f32,
    /// Moment of inertia, `2/5 m r^2` (kg m^2).
    pub inertia: f32,
}

/// One division: the mother leaves the run, her daughters enter it, their pair switches on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Division {
    pub mother: u32,
    /// The division pair (its index in the pool, not among the fixed pairs).
    pub pair: u32,
    pub daughters: [Daughter; 2],
}

/// The mother as the host reads her before she divides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mother {
    pub id: u32,
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub radius: f32,
    pub mass: f32,
}

/// The two daughters of `mother` along `axis` (unit), by `target`, with the start separation
/// `start_ratio (r1 + r2)` (at least `1e-3` of the smaller radius): masses `m/2` each, or
/// `(1 - f) m` and `f m`; radii from the mother's density; their centre of mass hers.
pub fn split(mother: &Mother, axis: DVec3, target: Target, start_ratio: f64) -> [Daughter; 2] {
    let m = mother.mass as f64;
    let f = match target {
        Target::Divide => 0.5,
        Target::Bud { fraction } => fraction,
    };
    let masses = [(1.0 - f) * m, f * m];
    let radii = masses.map(|mi| mother.radius as f64 * (mi / m).cbrt());
    let s = match target {
        Target::Divide => start_ratio * (radii[0] + radii[1]),
        Target::Bud { .. } => (radii[0] - radii[1]).abs(),
    }
    .max(1e-3 * radii[0].min(radii[1]));
    let x = DVec3::from(mother.pos.map(|v| v as f64));
    // Each daughter's distance from the centre of mass: the other's share of the separation.
    let offsets = [-s * masses[1] / m, s * masses[0] / m];
    [0, 1].map(|d| Daughter {
        id: 0,
        pos: (x + axis * offsets[d]).as_vec3().to_array(),
        vel: mother.vel,
        radius: radii[d] as f32,
        mass: masses[d] as f32,
        inertia: (0.4 * masses[d] * radii[d] * radii[d]) as f32,
    })
}

/// The colony's bookkeeping on the host: each particle's generation and parent, the cells due
/// by the step they divide at, the pairs used and the cytokineses under way.
#[derive(Clone, Debug, PartialEq)]
pub struct Colony {
    pub cycle: CellCycle,
    /// Per particle: generation (0 for the first cells), `u32::MAX` for a particle that is no
    /// cell (yet).
    pub generation: Vec<u32>,
    /// Per particle: the mother's id, `u32::MAX` for the first cells and particles that are
    /// no cells.
    pub parent: Vec<u32>,
    /// The cells due to divide, by the step at which they do (a lookup per event, not a scan
    /// of every particle).
    pub schedule: std::collections::BTreeMap<u64, Vec<u32>>,
    /// Division pairs used so far.
    pub used: u32,
    /// Cells now in the run.
    pub count: u32,
    /// `(step at which it ends, pool pair)` of each cytokinesis under way.
    pub ending: Vec<(u64, u32)>,
    /// Births per division step: `(step, births)`.
    pub births: Vec<(u64, u32)>,
    dt: f64,
    planar: bool,
}

/// A cell's division step from its birth step and cycle: the first step at or after the time.
fn step_at(birth: u64, cycle: f64, dt: f64) -> u64 {
    birth + (cycle / dt - 1e-9).ceil().max(1.0) as u64
}

impl Colony {
    /// The colony of `world`'s `[[cells]]` block at step 0, if it has one, in a backend of `n`
    /// particles.
    pub fn of(world: &World, n: usize) -> Option<Colony> {
        let cycle = world.cells.clone()?;
        let (dt, planar) = (world.dt, world.planar);
        let mut generation = vec![u32::MAX; n];
        let mut schedule = std::collections::BTreeMap::<u64, Vec<u32>>::new();
        for &c in &cycle.cells {
            generation[c as usize] = 0;
            let at = step_at(0, cycle.cycle_of(c, 0), dt);
            schedule.entry(at).or_default().push(c);
        }
        Some(Colony {
            count: cycle.cells.len() as u32,
            cycle,
            generation,
            parent: vec![u32::MAX; n],
            schedule,
            used: 0,
            ending: Vec::new(),
            births: Vec::new(),
            dt,
            planar,
        })
    }

    /// Do what is due at the backend's step: end the cytokineses due (their pairs switch off),
    /// then divide the cells due, read from the backend (a cell that has left the run is no
    /// longer counted). Returns the cells born.
    pub fn apply(&mut self, backend: &mut dyn crate::Backend) -> Result<u32, CoreError> {
        let step = backend.counters().steps;
        let ends = self.ending_at(step);
        if !ends.is_empty() {
            backend.end_divisions(&ends)?;
        }
        let due = self.due_at(step);
        if due.is_empty() {
            return Ok(0);
        }
        let mothers: Vec<Mother> = {
            let snap = backend.snapshot();
            due.iter()
                .map(|&i| {
                    let (x, v) = (snap.pos[i as usize], snap.vel[i as usize]);
                    Mother {
                        id: i,
                        pos: [x[0], x[1], x[2]],
                        vel: [v[0], v[1], v[2]],
                        radius: x[3],
                        // A cell in the run has an inverse mass; one that left has none.
                        mass: if v[3] > 0.0 { 1.0 / v[3] } else { 0.0 },
                    }
                })
                .collect()
        };
        let (live, gone): (Vec<Mother>, Vec<Mother>) = mothers
            .into_iter()
            .partition(|m| m.radius != REMOVED_RADIUS);
        self.count -= gone.len() as u32;
        let divisions = self.divide(step, &live)?;
        backend.divide_cells(&divisions)?;
        Ok(2 * divisions.len() as u32)
    }

    /// The next step after `step` at which a cell divides or a cytokinesis ends.
    pub fn next_event(&self, step: u64) -> Option<u64> {
        let divides = self.schedule.range(step + 1..).next().map(|(&s, _)| s);
        let ends = self.ending.iter().map(|e| e.0).filter(|&s| s > step).min();
        [divides, ends].into_iter().flatten().min()
    }

    /// The cells due to divide at `step`, by id, taken off the schedule.
    pub fn due_at(&mut self, step: u64) -> Vec<u32> {
        let mut due = self.schedule.remove(&step).unwrap_or_default();
        due.sort_unstable();
        due
    }

    /// The division pairs whose cytokinesis ends at `step`, as fixed pair indices.
    pub fn ending_at(&mut self, step: u64) -> Vec<u32> {
        let (now, later): (Vec<_>, Vec<_>) = self.ending.iter().partition(|e| e.0 == step);
        self.ending = later;
        now.iter().map(|e| self.cycle.first_pair + e.1).collect()
    }

    /// The divisions of `mothers` (as the host reads them) at `step`, booked: each takes the
    /// next division pair, its daughters are born now and due a cycle later, its cytokinesis
    /// ends `duration` later. A pool too small for them all is an error saying how many cells
    /// would fit, and books nothing.
    pub fn divide(&mut self, step: u64, mothers: &[Mother]) -> Result<Vec<Division>, CoreError> {
        let needed = self.used + mothers.len() as u32;
        if needed > self.cycle.pairs {
            return Err(CoreError::Refused(format!(
                "[[cells]] max_cells = {} is reached at t = {:.6e} s (step {step}): {} cells would \
                 divide into {} cells; raise max_cells to at least {} or end the run sooner",
                self.cycle.max_cells,
                step as f64 * self.dt,
                mothers.len(),
                self.count + mothers.len() as u32,
                self.count + mothers.len() as u32
            )));
        }
        let ends = step_at(step, self.cycle.duration, self.dt);
        let mut out = Vec::with_capacity(mothers.len());
        for m in mothers {
            let g = self.generation[m.id as usize];
            let axis = self.cycle.axis_of(m.id, g, self.planar);
            let mut daughters = split(m, axis, self.cycle.target, self.cycle.start_ratio);
            let pair = self.used;
            self.used += 1;
            for (d, id) in daughters.iter_mut().zip(self.cycle.daughters_of(pair)) {
                d.id = id;
                self.generation[id as usize] = g + 1;
                self.parent[id as usize] = m.id;
                let at = step_at(step, self.cycle.cycle_of(id, g + 1), self.dt);
                self.schedule.entry(at).or_default().push(id);
            }
            self.ending.push((ends, pair));
            out.push(Division {
                mother: m.id,
                pair,
                daughters,
            });
        }
        self.count += mothers.len() as u32;
        if !mothers.is_empty() {
            self.births.push((step, 2 * mothers.len() as u32));
        }
        Ok(out)
    }
}

/// What dividing did to a backend's particle arrays: the particles changed (mothers and
/// daughters), the energy the mothers carried out and the daughters brought in (J).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Divided {
    pub changed: Vec<usize>,
    pub removed_energy: f64,
    pub inserted_energy: f64,
}

/// The per-particle arrays a division edits, as a backend holds them.
pub struct DivisionArrays<'a> {
    pub pos: &'a mut [[f32; 4]],
    pub pos_comp: &'a mut [[f32; 4]],
    pub vel: &'a mut [[f32; 4]],
    pub omega: &'a mut [[f32; 4]],
    pub quat: &'a [[f32; 4]],
    /// The fixed pairs' flags.
    pub fixed_active: &'a [u32],
}

/// Check `divisions` whole against the world and a backend's arrays: each mother a cell in the
/// run, each pair a division pair of the pool still off, each daughter its pair's and
/// dormant, finite.
pub fn check_divisions(
    world: &World,
    divisions: &[Division],
    a: &DivisionArrays<'_>,
) -> Result<(), CoreError> {
    let Some(c) = &world.cells else {
        return Err(CoreError::Refused(
            "this world has no [[cells]] block: no cell can divide".into(),
        ));
    };
    let bad = |why: String| Err(CoreError::Refused(why));
    for d in divisions {
        let m = d.mother as usize;
        let live = m < a.pos.len()
            && a.pos[m][3] != REMOVED_RADIUS
            && world.particles.material[m] == c.material;
        if !live {
            return bad(format!("particle {} is no cell in the run", d.mother));
        }
        if d.pair >= c.pairs || a.fixed_active[(c.first_pair + d.pair) as usize] != FIXED_OFF {
            return bad(format!(
                "division pair {} is not a free pair of the pool",
                d.pair
            ));
        }
        for (x, id) in d.daughters.iter().zip(c.daughters_of(d.pair)) {
            let finite = x.pos.iter().chain(&x.vel).all(|v| v.is_finite())
                && x.radius > 0.0
                && x.mass > 0.0
                && x.inertia > 0.0;
            if x.id != id || a.pos[id as usize][3] != REMOVED_RADIUS || !finite {
                return bad(format!(
                    "daughter {} of division pair {} is not its dormant particle {id} with a \
                     finite position, velocity and positive size",
                    x.id, d.pair
                ));
            }
        }
    }
    Ok(())
}

/// Divide: each mother leaves the run (her energy booked as removed), her daughters enter it
/// with their radius, mass and inertia, at rest in spin (their energy booked as inserted); the
/// world's masses, inertias and radii follow, which the ledger and output read. Checked whole
/// first ([`check_divisions`]): nothing changes if one is refused.
pub fn divide_in(
    world: &mut World,
    divisions: &[Division],
    a: DivisionArrays<'_>,
) -> Result<Divided, CoreError> {
    check_divisions(world, divisions, &a)?;
    let mut out = Divided::default();
    for d in divisions {
        let m = d.mother as usize;
        let q = a.quat.get(m).copied().unwrap_or(crate::shapes::IDENTITY);
        out.removed_energy += crate::backend::remove_particle(
            world,
            m,
            &mut a.pos[m],
            &mut a.pos_comp[m],
            &mut a.vel[m],
            &mut a.omega[m],
            q,
        );
        out.changed.push(m);
        for x in &d.daughters {
            let i = x.id as usize;
            let p = &mut world.particles;
            p.mass[i] = x.mass;
            p.inertia[i] = x.inertia;
            // A backend that took the positions from the world keeps the radii itself.
            if let Some(w) = p.pos.get_mut(i) {
                w[3] = x.radius;
            }
            a.pos[i] = [x.pos[0], x.pos[1], x.pos[2], x.radius];
            a.pos_comp[i] = [0.0; 4];
            a.vel[i] = [x.vel[0], x.vel[1], x.vel[2], 1.0 / x.mass];
            a.omega[i] = [0.0, 0.0, 0.0, 1.0 / x.inertia];
            let (ke, re, pe) = crate::backend::mechanical_energy(
                world,
                &a.pos[i..=i],
                &a.vel[i..=i],
                &a.omega[i..=i],
                a.quat.get(i..=i).unwrap_or(&[]),
                i,
            );
            out.inserted_energy += ke + re + pe;
            out.changed.push(i);
        }
    }
    Ok(out)
}
