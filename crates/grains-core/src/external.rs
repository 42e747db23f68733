//! Changes of a run between steps that drive particles from outside: forces applied to them
//! ([`crate::Backend::apply_forces`]) and particles fixed or released
//! ([`crate::Backend::set_fixed`]). Both backends check and edit their arrays through these
//! functions (the GPU backend on arrays it read back), so they refuse the same requests with
//! the same messages and leave the same bits. Every request is checked whole before anything
//! is changed: a refused one changes nothing.

use crate::backend::{ids_problem, mechanical_energy, rows_problem, REMOVED_RADIUS};
use crate::error::CoreError;
use crate::kernels::passes::gather::kahan_add;
use crate::shapes::{KIND_CLUMP, KIND_MEMBER};
use crate::world::World;

/// The particle arrays a change between steps reads and edits: a backend's own (the CPU's) or
/// read back from the device (the GPU's).
#[derive(Debug)]
pub struct Driven<'a> {
    pub pos: &'a [[f32; 4]],
    pub vel: &'a mut [[f32; 4]],
    pub omega: &'a mut [[f32; 4]],
    /// Orientations; empty where no particle keeps one.
    pub quat: &'a [[f32; 4]],
    /// The gathered forces, which the next first half-step kicks with.
    pub force: &'a mut [[f32; 4]],
    /// The applied forces; empty in a world without them.
    pub applied_force: &'a mut [[f32; 4]],
    /// The work booked per particle ([`crate::state::Extent::ParticlesIfKinematic`]); empty
    /// where the world books none.
    pub kinematic_work: &'a mut [[f32; 2]],
}

/// Why particle `i` cannot be driven from outside (`what`: what it would take), if it cannot:
/// one out of the run (removed, or dormant until inserted) or a clump's member, which moves
/// with its body.
fn particle_problem(world: &World, i: usize, pos: &[[f32; 4]], what: &str) -> Option<String> {
    if pos.get(i).is_some_and(|p| p[3] == REMOVED_RADIUS) {
        return Some(format!(
            "particle {i} is not in the run (removed, or not inserted yet): it takes no {what}"
        ));
    }
    let rec = world.particles.shape_of(i);
    if rec.kind == KIND_MEMBER {
        let body = i as u32 - rec.data[3].to_bits();
        return Some(format!(
            "particle {i} is a member of the clump of particle {body}, which moves it: it takes \
             no {what} of its own"
        ));
    }
    None
}

/// Hold forces `f` (N) on particles `ids` of `world` ([`crate::Backend::apply_forces`]), in a
/// backend's arrays. Refused, with nothing changed, in a world without applied forces and
/// for a particle that does not exist, is out of the run, a clump's member or fixed (which no
/// force moves), or a force that is not finite or leaves the plane of a planar world.
///
/// The gathered force each particle holds is what the next first half-step kicks with, and
/// it holds the old applied force: the new one takes its place there too, `(F - old) + new`,
/// so the change acts from the next half-step on (exactly for a particle without contacts,
/// whose gathered force is its applied force alone).
pub fn apply_forces_in(
    world: &World,
    ids: &[u32],
    f: &[[f32; 3]],
    a: &mut Driven<'_>,
) -> Result<(), CoreError> {
    if !world.applied_forces {
        return Err(CoreError::BuiltWithout {
            what: "applied forces",
            flag: "applied_forces",
        });
    }
    let refuse = |m: String| Err(CoreError::Refused(m));
    if let Some(m) = rows_problem(world, ids, f, "applied force") {
        return refuse(m);
    }
    for &i in ids {
        let i = i as usize;
        if let Some(m) = particle_problem(world, i, a.pos, "applied force") {
            return refuse(m);
        }
        if a.vel[i][3] == 0.0 {
            return refuse(format!(
                "particle {i} is fixed: it keeps its set velocity and takes no applied force \
                 (release it first: set_fixed without a velocity)"
            ));
        }
    }
    for (&i, x) in ids.iter().zip(f) {
        let i = i as usize;
        let (g, old) = (a.force[i], a.applied_force[i]);
        let now: [f32; 3] = std::array::from_fn(|k| (g[k] - old[k]) + x[k]);
        a.force[i] = [now[0], now[1], now[2], g[3]];
        a.applied_force[i] = [x[0], x[1], x[2], 0.0];
    }
    Ok(())
}

/// Fix particles `ids` of `world` at velocities `velocity` (m/s), or release them (`None`)
/// ([`crate::Backend::set_fixed`]), in a backend's arrays. Refused, with nothing changed, in
/// a world that does not book kinematic particles' work ([`World::kinematic`]) and for a
/// particle that does not exist, is out of the run, or belongs to a clump (whose members
/// carry their body's inverse mass), or a velocity that is not finite or leaves the plane.
///
/// A particle fixed has inverse mass and inertia 0, no spin and its velocity, and no applied
/// force (a fixed particle takes none). One released gets its inverse mass and inertia back
/// from `world` (to f32 rounding of `1 / mass`) and keeps its velocity; releasing a free
/// particle changes nothing. The ledger counts only free particles' mechanical energy, so
/// what a particle carries as it is fixed (kinetic, rotational, gravitational) is booked
/// as work taken out by what fixed it, and what it carries as it is released as work put in,
/// both in its `kinematic_work`: the total stays where it was.
pub fn set_fixed_in(
    world: &World,
    ids: &[u32],
    velocity: Option<&[[f32; 3]]>,
    a: &mut Driven<'_>,
) -> Result<(), CoreError> {
    if !world.kinematic {
        return Err(CoreError::BuiltWithout {
            what: "kinematic particles' work in the ledger",
            flag: "kinematic",
        });
    }
    let refuse = |m: String| Err(CoreError::Refused(m));
    let problem = match velocity {
        Some(v) => rows_problem(world, ids, v, "velocity"),
        None => ids_problem(world, ids),
    };
    if let Some(m) = problem {
        return refuse(m);
    }
    for &i in ids {
        let i = i as usize;
        if let Some(m) = particle_problem(world, i, a.pos, "change of its own") {
            return refuse(m);
        }
        if world.particles.shape_of(i).kind == KIND_CLUMP {
            return refuse(format!(
                "particle {i} is a clump's body, whose members carry its inverse mass: a clump \
                 is fixed or free from its scene on"
            ));
        }
    }
    for (k, &i) in ids.iter().enumerate() {
        match velocity {
            Some(v) => fix(world, i as usize, v[k], a),
            None => release(world, i as usize, a),
        }
    }
    Ok(())
}

/// The kinetic, rotational and gravitational energy particle `i` carries in the ledger (J).
fn carried(world: &World, i: usize, a: &Driven<'_>) -> f64 {
    let one = i..=i;
    let q = a.quat.get(one.clone()).unwrap_or(&[]);
    let (ke, re, pe) = mechanical_energy(
        world,
        &a.pos[one.clone()],
        &a.vel[one.clone()],
        &a.omega[one],
        q,
        i,
    );
    ke + re + pe
}

/// Add `e` (J) to particle `i`'s booked work, compensated as the passes add.
fn book(i: usize, e: f64, a: &mut Driven<'_>) {
    if let Some(w) = a.kinematic_work.get_mut(i) {
        let (s, c) = kahan_add(w[0], w[1], e as f32, 1.0);
        *w = [s, c];
    }
}

/// Particle `i` fixed, moving at `v` from now on.
fn fix(world: &World, i: usize, v: [f32; 3], a: &mut Driven<'_>) {
    if a.vel[i][3] != 0.0 {
        let e = carried(world, i, a);
        book(i, -e, a);
    }
    if let Some(h) = a.applied_force.get_mut(i).filter(|h| h[..3] != [0.0; 3]) {
        // Its gathered force is then its contacts' alone, as kinematic_power reads it.
        let g = a.force[i];
        a.force[i] = [g[0] - h[0], g[1] - h[1], g[2] - h[2], g[3]];
        *h = [0.0; 4];
    }
    a.vel[i] = [v[0], v[1], v[2], 0.0];
    a.omega[i] = [0.0; 4];
}

/// Particle `i` free again, with the mass and inertia the world gives it.
fn release(world: &World, i: usize, a: &mut Driven<'_>) {
    if a.vel[i][3] != 0.0 {
        return;
    }
    let p = &world.particles;
    let inverse = |x: f32| (1.0 / x as f64) as f32;
    a.vel[i][3] = inverse(p.mass[i]);
    a.omega[i][3] = inverse(p.inertia[i]);
    let e = carried(world, i, a);
    book(i, e, a);
}
