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
//!
//! `dt = auto` takes `min(0.15 T_R, t_c / 40)`: below the 0.2 T_R customary bound and at least
//! 40 steps per collision, enough for the restitution and peak force to be resolved.

use crate::law::CollisionContext;
use crate::units::qty;
use crate::world::World;

/// Fraction of the Rayleigh time `dt = auto` takes.
pub const RAYLEIGH_FRACTION: f64 = 0.15;
/// Steps per collision `dt = auto` guarantees.
pub const STEPS_PER_COLLISION: f64 = 40.0;

/// Derived time-step figures of a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimestepReport {
    /// Smallest Rayleigh time (s).
    pub rayleigh: f64,
    /// Shortest collision time at `impact_speed` (s).
    pub collision: f64,
    /// Largest expected impact speed used (m/s).
    pub impact_speed: f64,
    /// What `dt = "auto"` chooses (s).
    pub auto_dt: f64,
}

impl TimestepReport {
    /// Whether `dt` exceeds the safe limits, with the reason.
    pub fn warning(&self, dt: f64) -> Option<String> {
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
        } else {
            None
        }
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
        .chain(world.walls.iter().map(|w| {
            let d = &world.domain;
            let reach: f64 = (0..3)
                .map(|k| (d.max[k] - d.min[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            let n = |v: [f32; 3]| (v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>()).sqrt();
            n(w.velocity) + n(w.omega) * reach
        }))
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

/// Rayleigh and collision times of a world.
pub fn timestep_report(world: &World) -> TimestepReport {
    let v = expected_impact_speed(world);
    let mut rayleigh = f64::INFINITY;
    let mut collision = f64::INFINITY;
    let node = world.shell_node_mask();
    // Shell nodes are points with their share of the membrane's mass: no Rayleigh wave to
    // resolve, but their contacts (at their own mass and contact radius) and the shell
    // elements' oscillation are.
    let mut bodies: Vec<(usize, f64, f64, bool)> = Vec::new();
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
            bodies.push((
                p.material[k] as usize,
                p.mass[k] as f64,
                p.pos[k][3] as f64,
                false,
            ));
        }
    }
    if let Some(t) = world.shells.element_time(&world.particles) {
        collision = collision.min(t);
    }
    for (mi, m, rmin, sphere) in bodies {
        let mat = &world.materials[mi];
        if sphere {
            let g = mat.young / (2.0 * (1.0 + mat.poisson));
            let tr = std::f64::consts::PI * rmin * (mat.density / g).sqrt()
                / (0.1631 * mat.poisson + 0.8766);
            rayleigh = rayleigh.min(tr);
        }
        let m_eff = 0.5 * m;
        let r_eff = 0.5 * rmin;
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
        let c = CollisionContext {
            material: mat,
            m_eff,
            r_eff,
            radius: rmin,
            impact_speed: v,
        };
        let tc = candidates
            .iter()
            .flat_map(|i| i.laws.iter())
            .find_map(|l| l.collision_time(&c))
            .unwrap_or_else(|| c.hertz_time());
        collision = collision.min(tc);
        // Bonds (fixed pairs) oscillate on their own time scale, whatever the contacts do.
        for l in world
            .fixed_interactions
            .iter()
            .filter(|i| i.between.0 == mi || i.between.1 == mi)
            .flat_map(|i| i.laws.iter())
        {
            if let Some(t) = l.collision_time(&c) {
                collision = collision.min(t);
            }
        }
    }
    let auto_dt = (RAYLEIGH_FRACTION * rayleigh).min(collision / STEPS_PER_COLLISION);
    TimestepReport {
        rayleigh,
        collision,
        impact_speed: v,
        auto_dt,
    }
}
