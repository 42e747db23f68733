//! Critical time steps and the automatic choice of `dt`.
//!
//! - Rayleigh time `T_R = pi R sqrt(rho/G) / (0.1631 nu + 0.8766)` (the time a Rayleigh wave
//!   takes across a particle; Thornton & Randall 1988, Li et al. 2005), for the smallest
//!   particle of each material.
//! - Hertz collision time `t_c = 2.868 (m*^2 / (R* E*^2 v))^(1/5)` at the largest expected
//!   impact speed `v` (Johnson 1985, §11.4), for two of the smallest particles; for linear
//!   springs `t_c = pi sqrt(m*/k)`. Each normal law gives its own; the laws of bonds (fixed
//!   pairs) count too, as their oscillation must be resolved like a collision
//!   ([`crate::law::Law::collision_time`]); the interaction of a material with itself is asked
//!   first, then any interaction the material takes part in.
//! - Dashpot relaxation time `m*/c` of every damping law of those interactions
//!   ([`crate::law::Law::damping_time`]): at low restitution far shorter than the collision.
//! - Travel time `r_min / v`: how long the fastest expected approach takes to cover the
//!   smallest radius. Like PFC's translation limit (a body moves at most a set distance per
//!   cycle, so that contacts are found before they act), it keeps two bodies from passing
//!   through each other within a few steps at high speed.
//!
//! `dt = auto` takes `min(0.15 T_R, t_c / 40, 0.1 m*/c, 0.1 r_min / v)`: below the 0.2 T_R
//! customary bound, at least 40 steps per collision (enough for the restitution and peak force
//! to be resolved), ten per dashpot relaxation time, and a relative travel of at most a tenth
//! of the smallest radius per step. [`TimestepReport::limit`] says which chose it.

use crate::law::{CollisionContext, DampingContext, SpringShape};
use crate::units::qty;
use crate::world::World;

/// Fraction of the Rayleigh time `dt = auto` takes.
pub const RAYLEIGH_FRACTION: f64 = 0.15;
/// Steps per collision `dt = auto` guarantees.
pub const STEPS_PER_COLLISION: f64 = 40.0;
/// Fraction of the shortest dashpot relaxation time `m*/c` `dt = auto` takes: ten steps per
/// relaxation time keep the explicit dashpot within a few percent of its exact decay
/// (`exp(-0.1)` against `1 - 0.1` per step).
pub const DAMPING_FRACTION: f64 = 0.1;
/// Fraction of the smallest radius two bodies may approach by in one step under `dt = auto`.
pub const TRAVEL_FRACTION: f64 = 0.1;
/// Past this fraction of the relaxation time a given `dt` is warned about: the explicit dashpot
/// overshoots from `dt = m*/c` on.
pub const DAMPING_WARNING: f64 = 0.5;
/// Past this fraction of the smallest radius per step a given `dt` is warned about: an approach
/// of half a radius per step lets a contact go from touching to deep in one step.
pub const TRAVEL_WARNING: f64 = 0.5;

/// Which limit chose `dt = "auto"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtLimit {
    /// `0.15 T_R`.
    Rayleigh,
    /// `t_c / 40`.
    Collision,
    /// `0.1 m*/c`.
    Damping,
    /// `0.1 r_min / v`.
    Travel,
    /// `0.1 gamma_0 / k`: ten steps per relaxation time of the overdamped mode.
    Relaxation,
    /// One load step of the static mode (1 s; its length only scales the velocities).
    LoadStep,
}

impl DtLimit {
    /// What the limit is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            DtLimit::Rayleigh => "15% of the Rayleigh time",
            DtLimit::Collision => "40 steps per collision",
            DtLimit::Damping => "10 steps per dashpot relaxation time m*/c",
            DtLimit::Travel => "an approach of at most 10% of the smallest radius per step",
            DtLimit::Relaxation => "10 steps per overdamped relaxation time gamma_0/k",
            DtLimit::LoadStep => "one load step of the static mode",
        }
    }
}

/// The deepest expected impact overlap of a material with itself (Hertz, at the expected
/// impact speed, two of its smallest particles head on).
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactOverlap {
    /// The material's name.
    pub material: String,
    /// Its smallest radius (m).
    pub radius: f64,
    /// The overlap (m).
    pub overlap: f64,
    /// The material's Young's modulus (Pa).
    pub young: f64,
}

/// Below this Young's modulus (Pa) no solid grain is this soft (rubber is about 1e6 Pa, gels
/// 1e3-1e5): a refusal for deep impacts suspects the modulus was written in MPa.
pub const IMPLAUSIBLE_YOUNG: f64 = 1e4;

/// Derived time-step figures of a world.
#[derive(Clone, Debug, PartialEq)]
pub struct TimestepReport {
    /// Smallest Rayleigh time (s).
    pub rayleigh: f64,
    /// Shortest collision time at `impact_speed` (s).
    pub collision: f64,
    /// Shortest dashpot relaxation time `m*/c` (s); infinite without dashpots.
    pub damping: f64,
    /// Time the largest expected approach takes to cover the smallest radius (s).
    pub travel: f64,
    /// Largest expected impact speed used (m/s).
    pub impact_speed: f64,
    /// What `dt = "auto"` chooses (s).
    pub auto_dt: f64,
    /// Which limit chose it.
    pub limit: DtLimit,
    /// The deepest expected Hertz impact overlap relative to its radius, of all materials.
    pub impact_overlap: Option<ImpactOverlap>,
    /// Shortest overdamped relaxation time `gamma_0 / k` (s) of a material's drag against
    /// the stiffness of its contacts and bonds (`k = m* pi^2 / t_c^2` from their collision
    /// time); infinite without drag.
    pub relaxation: f64,
    /// The dynamics mode and its implicitness.
    pub mode: (crate::dynamics::Mode, f64),
}

impl TimestepReport {
    /// Whether `dt` exceeds the safe limits: the reason, the limit's own value, and the step
    /// that resolves it (`dt = "auto"`'s, below every warning's threshold, so below `dt`).
    pub fn warning(&self, dt: f64) -> Option<String> {
        let why = self.exceeded(dt)?;
        Some(format!(
            "{why}; use `dt = \"auto\"` ({}, set by {})",
            qty(self.suggested(dt), "s"),
            self.limit.describe()
        ))
    }

    /// Which safe limit `dt` exceeds, if any.
    fn exceeded(&self, dt: f64) -> Option<String> {
        use crate::dynamics::Mode;
        match self.mode {
            (Mode::Inertial | Mode::Underdamped, _) => self.inertial_exceeded(dt),
            (Mode::Static, _) => None,
            (Mode::Overdamped, lambda) => {
                // Two beads on a spring decay by 1 - 2 k dt / (gamma_0 + 2 lambda k dt) a
                // step, which stays above -1 while k dt (1 - 2 lambda) < gamma_0.
                let bound = self.relaxation / (1.0 - 2.0 * lambda).max(0.0);
                (dt > bound).then(|| {
                    format!(
                        "dt = {} exceeds gamma_0/((1 - 2 implicitness) k) = {}, the stable step \
                         of the stiffness the solve takes explicitly at implicitness {lambda}: \
                         the run may be unstable",
                        qty(dt, "s"),
                        qty(bound, "s")
                    )
                })
            }
        }
    }

    /// [`Self::exceeded`] in the dynamics with inertia.
    fn inertial_exceeded(&self, dt: f64) -> Option<String> {
        if dt > 0.2 * self.rayleigh {
            Some(format!(
                "dt = {} exceeds 20% of the Rayleigh time {}: the run may be unstable",
                qty(dt, "s"),
                qty(self.rayleigh, "s")
            ))
        } else if dt > self.collision / 10.0 {
            Some(format!(
                "dt = {} resolves a collision ({} at {}) in fewer than 10 steps",
                qty(dt, "s"),
                qty(self.collision, "s"),
                qty(self.impact_speed, "m/s")
            ))
        } else if dt > DAMPING_WARNING * self.damping {
            Some(format!(
                "dt = {} exceeds half the dashpot's relaxation time m*/c = {}: the damping is \
                 not resolved and the achieved restitution is wrong, or the run unstable",
                qty(dt, "s"),
                qty(self.damping, "s")
            ))
        } else if dt > TRAVEL_WARNING * self.travel {
            Some(format!(
                "dt = {} lets two particles approach by more than half the smallest radius in \
                 one step at {} ({} per radius): contacts may be missed or start deep",
                qty(dt, "s"),
                qty(self.impact_speed, "m/s"),
                qty(self.travel, "s")
            ))
        } else {
            None
        }
    }

    /// A step to recommend to a run at `dt` that went wrong or was warned about: the automatic
    /// one when it is smaller; else (the automatic step is in use and still not enough) a
    /// quarter of `dt`. Never `dt` itself.
    pub fn suggested(&self, dt: f64) -> f64 {
        if self.auto_dt < dt * (1.0 - 1e-6) {
            self.auto_dt
        } else {
            dt / 4.0
        }
    }

    /// The refusal of a scene whose expected impacts overlap deeper than the smaller radius:
    /// outside what a contact law of spheres describes (Hertz assumes overlaps small against
    /// the radius). None in the overdamped and static modes, which have no impacts.
    pub fn overlap_refusal(&self) -> Option<String> {
        // Without inertia there are no impacts.
        if matches!(
            self.mode.0,
            crate::dynamics::Mode::Overdamped | crate::dynamics::Mode::Static
        ) {
            return None;
        }
        let o = self.impact_overlap.as_ref()?;
        (o.overlap > o.radius).then(|| {
            format!(
                "two \"{m}\" particles of radius {r} meeting at the expected impact speed {v} \
                 would overlap by {d} (Hertz: delta_max = (15 m* v^2 / (16 E* sqrt(R*)))^(2/5)), \
                 more than their radius: the contact law does not hold there{hint}; use a \
                 stiffer material (larger `young`) or lower speeds, or give --allow-unstable to \
                 run anyway",
                hint = if o.young < IMPLAUSIBLE_YOUNG {
                    format!(
                        "; young = {}: MPa meant? (SI units: Pa)",
                        qty(o.young, "Pa")
                    )
                } else {
                    String::new()
                },
                m = o.material,
                r = qty(o.radius, "m"),
                v = qty(self.impact_speed, "m/s"),
                d = qty(o.overlap, "m"),
            )
        })
    }
}

/// Largest expected impact speed (m/s): twice the fastest initial speed (two particles meeting
/// head on, a particle and a moving wall's surface anywhere in the domain, or an inserted
/// particle) plus the speed of a fall across the domain's extent along gravity, with a floor of
/// 0.01 m/s for scenes at rest without gravity.
pub fn expected_impact_speed(world: &World) -> f64 {
    let vmax = world
        .particles
        .vel
        .iter()
        .map(|v| ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) as f64).sqrt())
        .chain(world.insertions.iter().map(|i| {
            let v = i.velocity;
            (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
        }))
        .chain(world.walls.iter().chain(&world.meshes.bodies).map(|w| {
            let d = &world.domain;
            let reach: f64 = (0..3)
                .map(|k| (d.max[k] - d.min[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            let n = |v: [f32; 3]| (v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>()).sqrt();
            let start = w.table_start as usize;
            let rows = world.meshes.poses.get(start..start + w.table_rows as usize);
            // A table's fastest segment, in translation and in turn.
            let table = rows.unwrap_or_default().windows(2).map(|r| {
                let dt = (r[1][0] - r[0][0]) as f64;
                let rate = |i: usize| n([i, i + 1, i + 2].map(|k| r[1][k] - r[0][k])) / dt;
                rate(1) + rate(4) * reach
            });
            table.fold(n(w.velocity) + n(w.omega) * reach, f64::max)
        }))
        .chain(
            world
                .meshes
                .conveyor
                .iter()
                .map(|c| (c[..3].iter().map(|&x| (x as f64).powi(2)).sum::<f64>()).sqrt()),
        )
        .fold(0.0, f64::max);
    let g = world.gravity;
    let gmag = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    let mut fall = 0.0;
    if gmag > 0.0 {
        let mut h = 0.0;
        for (k, gk) in g.iter().enumerate() {
            h += ((world.domain.max[k] - world.domain.min[k]) * gk / gmag).abs();
        }
        fall = (2.0 * gmag * h).sqrt();
    }
    (2.0 * vmax + fall).max(0.01)
}

/// The bodies whose contacts set the time step: `(material, mass, radius, sphere)` of the
/// smallest particle of each material (spheres, with a Rayleigh time) and the lightest node of
/// each shell (points with their share of the membrane's mass: no Rayleigh wave to resolve,
/// but their contacts, at their own mass and contact radius, are).
fn bodies(world: &World) -> Vec<(usize, f64, f64, bool)> {
    let node = world.shell_node_mask();
    let mut bodies = Vec::new();
    for mi in 0..world.materials.len() {
        let rmin = world
            .particles
            .pos
            .iter()
            .zip(&world.particles.material)
            .zip(&node)
            .enumerate()
            // Mesh triangles are walls, not bodies that move.
            .filter(|(i, ((p, &m), &is_node))| {
                m as usize == mi
                    && !is_node
                    && p[3] > 0.0
                    && world.particles.shape_of(*i).kind != crate::shapes::KIND_TRIANGLE
            })
            .map(|(_, ((p, _), _))| p[3] as f64)
            .chain(world.insertions.iter().flat_map(|ins| {
                ins.radii
                    .iter()
                    .enumerate()
                    .filter(move |(j, _)| {
                        world.particles.material[ins.first as usize + j] as usize == mi
                    })
                    .map(|(_, &r)| r as f64)
            }))
            .fold(f64::INFINITY, f64::min);
        if rmin.is_finite() {
            let mat = &world.materials[mi];
            let m = mat.density * 4.0 / 3.0 * std::f64::consts::PI * rmin.powi(3);
            bodies.push((mi, m, rmin, true));
        }
    }
    for &(first, count) in &world.shells.nodes {
        let p = &world.particles;
        let k = (first as usize..(first + count) as usize)
            .min_by(|&a, &b| p.mass[a].total_cmp(&p.mass[b]));
        if let Some(k) = k {
            let node = (
                p.material[k] as usize,
                p.mass[k] as f64,
                p.pos[k][3] as f64,
                false,
            );
            // Many alike rings or shells (a tissue of copies) are one body for the times.
            if !bodies.contains(&node) {
                bodies.push(node);
            }
        }
    }
    bodies
}

/// Shortest dashpot relaxation time (s) of the chains in `laws`, each paired with its own
/// normal law's spring and collision time (Hertz's when the chain has no normal law).
fn damping_time<'a>(
    c: &CollisionContext<'_>,
    chains: impl Iterator<Item = &'a [crate::LawSpec]>,
) -> f64 {
    let mut shortest = f64::INFINITY;
    for laws in chains {
        let d = DampingContext {
            collision: *c,
            spring: laws
                .iter()
                .find_map(|l| l.spring())
                .unwrap_or(SpringShape::Hertz),
            collision_time: laws
                .iter()
                .find_map(|l| l.collision_time(c))
                .unwrap_or_else(|| c.hertz_time()),
        };
        for t in laws.iter().filter_map(|l| l.damping_time(&d)) {
            shortest = shortest.min(t);
        }
    }
    shortest
}

/// Rayleigh, collision, dashpot and travel times of a world, and the step `dt = "auto"` takes.
pub fn timestep_report(world: &World) -> TimestepReport {
    let v = expected_impact_speed(world);
    let mut rayleigh = f64::INFINITY;
    let mut collision = f64::INFINITY;
    let mut damping = f64::INFINITY;
    let mut relaxation = f64::INFINITY;
    let mut rmin_all = f64::INFINITY;
    let mut impact_overlap: Option<ImpactOverlap> = None;
    if let Some(t) = world.shells.element_time(&world.particles) {
        collision = collision.min(t);
    }
    for (mi, m, rmin, sphere) in bodies(world) {
        let mat = &world.materials[mi];
        let m_eff = 0.5 * m;
        let r_eff = 0.5 * rmin;
        let c = CollisionContext {
            material: mat,
            m_eff,
            r_eff,
            radius: rmin,
            impact_speed: v,
        };
        if sphere {
            let g = mat.young / (2.0 * (1.0 + mat.poisson));
            let tr = std::f64::consts::PI * rmin * (mat.density / g).sqrt()
                / (0.1631 * mat.poisson + 0.8766);
            rayleigh = rayleigh.min(tr);
            rmin_all = rmin_all.min(rmin);
            let overlap = c.hertz_overlap();
            if impact_overlap
                .as_ref()
                .is_none_or(|o| overlap / rmin > o.overlap / o.radius)
            {
                impact_overlap = Some(ImpactOverlap {
                    material: mat.name.clone(),
                    radius: rmin,
                    overlap,
                    young: mat.young,
                });
            }
        }
        let mut candidates: Vec<_> = world
            .interactions
            .iter()
            .rev()
            .filter(|i| i.between == (mi, mi))
            .collect();
        candidates.extend(
            world
                .interactions
                .iter()
                .rev()
                .filter(|i| i.between != (mi, mi) && (i.between.0 == mi || i.between.1 == mi)),
        );
        let tc = candidates
            .iter()
            .flat_map(|i| i.laws.iter())
            .find_map(|l| l.collision_time(&c))
            .unwrap_or_else(|| c.hertz_time());
        collision = collision.min(tc);
        relaxation = relaxation.min(relaxation_of(world, mi, &c));
        damping = damping.min(damping_time(
            &c,
            candidates.iter().map(|i| i.laws.as_slice()),
        ));
        // Bonds (fixed pairs) oscillate on their own time scale, whatever the contacts do.
        let bonds: Vec<_> = world
            .fixed_interactions
            .iter()
            .filter(|i| i.between.0 == mi || i.between.1 == mi)
            .collect();
        for t in bonds
            .iter()
            .flat_map(|i| i.laws.iter())
            .filter_map(|l| l.collision_time(&c))
        {
            collision = collision.min(t);
        }
        damping = damping.min(damping_time(&c, bonds.iter().map(|i| i.laws.as_slice())));
    }
    let travel = rmin_all / v;
    let mode = (world.dynamics.mode, world.dynamics.implicitness);
    let limits = match mode.0 {
        crate::dynamics::Mode::Overdamped => vec![(0.1 * relaxation, DtLimit::Relaxation)],
        crate::dynamics::Mode::Static => vec![(1.0, DtLimit::LoadStep)],
        _ => inertial_limits(rayleigh, collision, damping, travel),
    };
    let (auto_dt, limit) =
        limits
            .into_iter()
            .fold((f64::INFINITY, DtLimit::Rayleigh), |best, l| {
                if l.0 < best.0 {
                    l
                } else {
                    best
                }
            });
    TimestepReport {
        rayleigh,
        collision,
        damping,
        travel,
        impact_speed: v,
        auto_dt,
        limit,
        impact_overlap,
        relaxation,
        mode,
    }
}

/// The inertial modes' limits on `dt = "auto"`.
fn inertial_limits(
    rayleigh: f64,
    collision: f64,
    damping: f64,
    travel: f64,
) -> Vec<(f64, DtLimit)> {
    vec![
        (RAYLEIGH_FRACTION * rayleigh, DtLimit::Rayleigh),
        (collision / STEPS_PER_COLLISION, DtLimit::Collision),
        (DAMPING_FRACTION * damping, DtLimit::Damping),
        (TRAVEL_FRACTION * travel, DtLimit::Travel),
    ]
    // The first of equal limits wins (the fold keeps it), so a scene where the later limits
    // do not bind keeps the figures it had.
}

/// The shortest `gamma_0 / k` (s) of material `mi`'s drag against each of its contact and bond
/// chains, at collision `c`: `k = m* pi^2 / t_c^2`, the linear spring of the same collision
/// time; infinite without drag.
fn relaxation_of(world: &World, mi: usize, c: &CollisionContext<'_>) -> f64 {
    let gamma = c.material.drag.translational;
    if gamma <= 0.0 {
        return f64::INFINITY;
    }
    let chains = world.interactions.iter().chain(&world.fixed_interactions);
    chains
        .filter(|i| i.between.0 == mi || i.between.1 == mi)
        .filter_map(|it| it.laws.iter().find_map(|l| l.collision_time(c)))
        .map(|tc| gamma / (c.m_eff * std::f64::consts::PI.powi(2) / (tc * tc)))
        .fold(f64::INFINITY, f64::min)
}
