//! What every backend offers the CLI, tests and benches.

use crate::kernel_types::{PairSlot, MESH_BODY};
use crate::kernels::sources::neighbour::FarSlot;
use crate::kernels::sources::SourceKind;
use crate::world::World;
use std::borrow::Cow;

/// Particle state read back for output (index = particle id): borrowed from the backend's
/// own arrays where it holds them on the host (the CPU backend, so that writing a frame does
/// not copy every particle: 100 bytes each at the run's peak), read back into owned arrays
/// where it does not (the GPU backend).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot<'a> {
    pub step: u64,
    /// Time (s).
    pub time: f64,
    /// Position (m) and radius (m).
    pub pos: Cow<'a, [[f32; 4]]>,
    /// Velocity (m/s) and inverse mass (1/kg).
    pub vel: Cow<'a, [[f32; 4]]>,
    /// Spin (rad/s) and inverse moment of inertia.
    pub omega: Cow<'a, [[f32; 4]]>,
    /// Orientation (quaternion x, y, z, w); empty where no particle keeps one
    /// ([`crate::world::Particles::orientations_kept`]): each is then the identity.
    pub quat: Cow<'a, [[f32; 4]]>,
    /// Force total of the step, contacts and applied force, without gravity (N).
    pub force: Cow<'a, [[f32; 4]]>,
    /// Contact torque total (N m).
    pub torque: Cow<'a, [[f32; 4]]>,
    pub material: Cow<'a, [u32]>,
}

impl Snapshot<'_> {
    /// The snapshot of the first `n` particles, borrowed from this one.
    pub fn first(&self, n: usize) -> Snapshot<'_> {
        Snapshot {
            step: self.step,
            time: self.time,
            pos: Cow::Borrowed(&self.pos[..n]),
            vel: Cow::Borrowed(&self.vel[..n]),
            omega: Cow::Borrowed(&self.omega[..n]),
            quat: Cow::Borrowed(&self.quat[..n.min(self.quat.len())]),
            force: Cow::Borrowed(&self.force[..n]),
            torque: Cow::Borrowed(&self.torque[..n]),
            material: Cow::Borrowed(&self.material[..n]),
        }
    }

    /// The same snapshot owning its arrays, free of the backend it was read from.
    pub fn into_owned(self) -> Snapshot<'static> {
        Snapshot {
            step: self.step,
            time: self.time,
            pos: Cow::Owned(self.pos.into_owned()),
            vel: Cow::Owned(self.vel.into_owned()),
            omega: Cow::Owned(self.omega.into_owned()),
            quat: Cow::Owned(self.quat.into_owned()),
            force: Cow::Owned(self.force.into_owned()),
            torque: Cow::Owned(self.torque.into_owned()),
            material: Cow::Owned(self.material.into_owned()),
        }
    }
}

/// The energy ledger at one instant (J). `total` is the sum of the others and stays constant
/// up to integration error.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyReport {
    pub kinetic: f64,
    pub rotational: f64,
    /// `-m g . (x - domain.min)` summed over free particles.
    pub gravitational: f64,
    /// Stored in contact springs (normal and tangential).
    pub elastic: f64,
    /// Dissipated by dashpots since the start.
    pub damping_dissipated: f64,
    /// Dissipated by friction slip since the start.
    pub friction_dissipated: f64,
    /// The sum of the columns above and `removed`, less `wall_work`, `kinematic_work` and
    /// `inserted`.
    pub total: f64,
    /// Carried out of the run by removed particles (lost particles deleted), since the start.
    pub removed: f64,
    /// Work done on the particles by moving walls since the start (J).
    pub wall_work: f64,
    /// Brought into the run by inserted particles since the start (J).
    pub inserted: f64,
    /// Work done on the rest of the system from outside the contacts since the start (J): by
    /// kinematic particles (fixed, moving at a set velocity or spin,
    /// [`crate::kernels::passes::kinematic_power`]), by applied forces
    /// ([`crate::kernels::passes::applied_power`]), and as particles are fixed and released
    /// between steps ([`crate::external::set_fixed_in`]). One column for all of it, so
    /// `energy.csv` keeps its columns.
    pub kinematic_work: f64,
}

/// The load the particles put on one wall at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallLoad {
    /// Force on the wall (N).
    pub force: [f64; 3],
    /// Torque on the wall about its centre of rotation (N m).
    pub torque: [f64; 3],
    /// The centre (m).
    pub center: [f64; 3],
}

/// The loads on the walls from their slots: a wall receives `-F` from each particle and, about
/// its centre `c`, the torque `-((x - c) x F + T)` with `T` the slot's torque on the particle
/// about its own centre (which holds the moment of `F` through the contact point). The wall
/// slots are those of the neighbour list's records `(p, n_particles + w)` in contact (the list's
/// records as both backends keep them, [`crate::cpu::NeighbourList`]'s `pair_start` and
/// `pair_j`). `walls` are a backend's records, the analytic walls then the mesh walls'
/// bodies: a body's load sums what its triangles (the last `triangles.len()` particles)
/// receive from their contacts, `(x_t - c) x F_t + T_t` about its centre for a triangle at
/// `x_t` taking the force `F_t` and the torque `T_t` about its own centre.
pub fn wall_loads(
    walls: &[crate::kernel_types::Wall],
    triangles: &[crate::kernel_types::Triangle],
    pos: &[[f32; 4]],
    pair_start: &[u32],
    pair_j: &[u32],
    nbr_slot: &[u32],
    slots: PackedSlots<'_>,
) -> Vec<WallLoad> {
    let n = pos.len();
    let nw = walls.len() - walls.iter().filter(|w| w.kind == MESH_BODY).count();
    let first_triangle = n - triangles.len();
    let mut out: Vec<WallLoad> = walls
        .iter()
        .map(|w| WallLoad {
            center: w.center.map(|x| x as f64),
            ..Default::default()
        })
        .collect();
    if walls.is_empty() {
        return out;
    }
    // The load on the body of triangle particle `t` of a force `f` and torque `m` on it.
    let add = |out: &mut Vec<WallLoad>, t: usize, f: [f32; 3], m: [f32; 3]| {
        let body = triangles[t - first_triangle].body as usize;
        if let Some(l) = out.get_mut(nw + body) {
            l.take(pos[t], f.map(f64::from), m.map(f64::from));
        }
    };
    for (p, r, j) in records(pair_start, pair_j) {
        let (p, j) = (p as usize, j as usize);
        let wall = j >= n;
        if !wall && p < first_triangle && j < first_triangle {
            continue;
        }
        let Some(s) = slot_of(r, nbr_slot, slots, wall) else {
            continue;
        };
        if !wall {
            // A particle on a triangle, or the triangle first.
            if j >= first_triangle {
                add(&mut out, j, s.force.map(|v| -v), s.torque2);
            }
            if p >= first_triangle {
                add(&mut out, p, s.force, s.torque1);
            }
            continue;
        }
        // The wall takes the reverse of what the particle does.
        if let (Some(&x), Some(l)) = (pos.get(p), out.get_mut(j - n)) {
            l.take(
                x,
                s.force.map(|v| -f64::from(v)),
                s.torque1.map(|v| -f64::from(v)),
            );
        }
    }
    out
}

impl WallLoad {
    /// Add a force `f` (N) acting on a body at `x` and a torque `m` (N m) about that body's
    /// centre: the force, and its moment about the wall's centre with the torque.
    fn take(&mut self, x: [f32; 4], f: [f64; 3], m: [f64; 3]) {
        let r = [0, 1, 2].map(|c| x[c] as f64 - self.center[c]);
        let cross = [
            r[1] * f[2] - r[2] * f[1],
            r[2] * f[0] - r[0] * f[2],
            r[0] * f[1] - r[1] * f[0],
        ];
        for c in 0..3 {
            self.force[c] += f[c];
            self.torque[c] += cross[c] + m[c];
        }
    }
}

/// Whether velocities `v` may be given to particles `ids` of `world`: as many of each, every
/// id a particle of the scene (not a mesh wall's triangle), every component finite, and none
/// out of the plane of a planar world.
pub fn check_velocities(
    world: &World,
    ids: &[u32],
    v: &[[f32; 3]],
) -> Result<(), crate::CoreError> {
    check_rows(world, ids, v, "velocity")
}

/// [`check_velocities`] of rows `v` of `what` (velocity, position).
fn check_rows(
    world: &World,
    ids: &[u32],
    v: &[[f32; 3]],
    what: &str,
) -> Result<(), crate::CoreError> {
    match rows_problem(world, ids, v, what) {
        Some(m) => Err(crate::CoreError::BadState(m)),
        None => Ok(()),
    }
}

/// What is wrong with rows `v` of `what` for particles `ids` of `world`, if anything: as many
/// of each, every id a particle of the scene (not a mesh wall's triangle), every component
/// finite, and none out of the plane of a planar world.
pub(crate) fn rows_problem(
    world: &World,
    ids: &[u32],
    v: &[[f32; 3]],
    what: &str,
) -> Option<String> {
    if ids.len() != v.len() {
        return Some(format!("{} ids for {} rows of {what}", ids.len(), v.len()));
    }
    if let Some(m) = ids_problem(world, ids) {
        return Some(m);
    }
    if let Some(k) = v.iter().position(|x| x.iter().any(|c| !c.is_finite())) {
        return Some(format!(
            "the {what} of particle {} is not finite: {:?}",
            ids[k], v[k]
        ));
    }
    if world.planar {
        if let Some(k) = v.iter().position(|x| x[2] != 0.0) {
            return Some(format!(
                "the {what} of particle {} leaves the plane of a 2-D scene: {:?}",
                ids[k], v[k]
            ));
        }
    }
    None
}

/// What is wrong with particle ids `ids` of `world`, if anything: each must be a particle of
/// the scene (not a mesh wall's triangle).
pub(crate) fn ids_problem(world: &World, ids: &[u32]) -> Option<String> {
    let n = world.particles.len() - world.triangle_tail();
    let i = ids.iter().find(|&&i| i as usize >= n)?;
    Some(format!(
        "particle {i} does not exist: the scene has {n} particles"
    ))
}

/// Whether positions `x` may be given to particles `ids` of `world`: as many of each, every id
/// a particle of the scene, every coordinate finite and inside the domain on its non-periodic
/// axes, and none off the plane of a planar world.
pub fn check_positions(world: &World, ids: &[u32], x: &[[f32; 3]]) -> Result<(), crate::CoreError> {
    check_rows(world, ids, x, "position")?;
    let d = &world.domain;
    for (&i, p) in ids.iter().zip(x) {
        if let Some(k) = d.outside_axis(&[p[0], p[1], p[2], 0.0]) {
            return Err(crate::CoreError::BadState(format!(
                "particle {i} would be at {p:?}, outside the domain along axis {k} ({} to {} m)",
                d.min[k], d.max[k]
            )));
        }
    }
    Ok(())
}

/// A list's records as `(owner, record, partner)`, in record order.
pub(crate) fn records<'a>(
    pair_start: &'a [u32],
    pair_j: &'a [u32],
) -> impl Iterator<Item = (u32, u32, u32)> + 'a {
    pair_start
        .windows(2)
        .enumerate()
        .flat_map(move |(p, w)| (w[0]..w[1]).map(move |r| (p as u32, r, pair_j[r as usize])))
}

/// Contacts at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContactCount {
    /// Particle-particle contacts (each pair once).
    pub pairs: u64,
    /// Particle-wall contacts.
    pub walls: u64,
    /// Fixed-topology pairs exerting a force (bonds).
    pub fixed: u64,
}

impl ContactCount {
    /// Particle-particle contacts per particle, each contact counted for both particles (the
    /// coordination number LIGGGHTS' `contact/atom` averages).
    pub fn per_particle(&self, particles: usize) -> f64 {
        2.0 * self.pairs as f64 / particles.max(1) as f64
    }
}

/// What the GPU backend's list buffers hold beyond what a step needed when they grow: a
/// `1 / LIST_MARGIN` share (and the memory estimates count it). A sixteenth, not an eighth:
/// the list's buffers are most of the device memory, and a growth costs a copy of them and
/// one check interval's frozen dispatches.
pub const LIST_MARGIN: u64 = 16;

/// Whether a slot holds an active contact: its laws exerted a force or hold energy (every
/// normal law does for any positive overlap; an adhesive one also while it holds on apart).
pub fn slot_active(s: &PairSlot) -> bool {
    s.force != [0.0; 3] || s.elastic != 0.0
}

/// The packed slots of a neighbour list's records in contact, as a backend keeps them.
#[derive(Clone, Copy, Debug)]
pub enum PackedSlots<'a> {
    /// Whole slots (the GPU backend's, a state's).
    Whole(&'a [PairSlot]),
    /// What the CPU backend keeps of each, its owner's side summed in the sweep
    /// ([`FarSlot::slot`] says what a slot is given back with).
    Far(&'a [FarSlot]),
}

impl PackedSlots<'_> {
    /// Packed slot `k`, of a wall contact or (`!wall`) a particle pair.
    #[inline]
    pub fn get(&self, k: usize, wall: bool) -> Option<PairSlot> {
        match self {
            PackedSlots::Whole(s) => s.get(k).copied(),
            PackedSlots::Far(s) => s.get(k).map(|f| f.slot(wall)),
        }
    }
}

/// The slot of neighbour-list record `r` (a wall contact's where `wall`): `None` for a record
/// out of contact (or a missing one), which has no slot.
pub fn slot_of(r: u32, nbr_slot: &[u32], slots: PackedSlots<'_>, wall: bool) -> Option<PairSlot> {
    let a = *nbr_slot.get(r as usize)?;
    slots.get((a as usize).checked_sub(1)?, wall)
}

/// The slot of a pair out of contact.
const NO_SLOT: PairSlot = PairSlot {
    force: [0.0; 3],
    elastic: 0.0,
    torque1: [0.0; 3],
    damping_dissipated: 0.0,
    torque2: [0.0; 3],
    friction_dissipated: 0.0,
};

/// A source's slots with their bodies: `(Some((i, j)), slot)` where `j` is a particle, or
/// `-1 - w` for wall `w`.
pub type SourcePairs<'a> = Box<dyn Iterator<Item = (Option<(u32, i64)>, PairSlot)> + 'a>;

/// The slots of every pair source of a state, with the neighbour list that names the first
/// source's pairs (the other sources' pairs are fixed by the world).
#[derive(Clone, Copy, Debug)]
pub struct SourceSlots<'a> {
    /// Where each particle's records start (`n + 1`).
    pub pair_start: &'a [u32],
    /// Each record's partner (`n + w` for wall `w`), as both backends keep them
    /// ([`crate::cpu::NeighbourList::pair_j`]).
    pub pair_j: &'a [u32],
    /// Each record's slot plus one, 0 out of contact (`nbr_slot`).
    pub nbr_slot: &'a [u32],
    /// The packed slots of the neighbour list's records in contact, particle pairs' and walls'
    /// alike.
    pub slots: PackedSlots<'a>,
    pub fixed_slots: &'a [PairSlot],
    /// The walls as they stand.
    pub walls: &'a [crate::kernel_types::Wall],
    /// The shell edges' records (`shell_forces`) and the shells' `shell_volumes`.
    pub shell_forces: &'a [[f32; 4]],
    pub shell_volumes: &'a [[f32; 4]],
    /// The ring nodes' node-to-segment records (empty without such contact).
    pub surface_records: &'a [[f32; 4]],
}

impl<'a> SourceSlots<'a> {
    /// The slots of source `s`, each with its two bodies, once per pair: a neighbour-list
    /// pair through its record, in record order (a zero slot out of contact).
    pub fn pairs(&self, s: SourceKind, world: &'a World) -> SourcePairs<'a> {
        let (active, packed) = (self.nbr_slot, self.slots);
        let slots = move |r: u32, wall| slot_of(r, active, packed, wall).unwrap_or(NO_SLOT);
        let n = world.particles.len() as u32;
        let entries = records(self.pair_start, self.pair_j);
        match s {
            SourceKind::Neighbour => Box::new(
                entries
                    .filter(move |&(_, _, j)| j < n)
                    .map(move |(i, r, j)| (Some((i, j as i64)), slots(r, false))),
            ),
            SourceKind::Wall => Box::new(
                entries
                    .filter(move |&(_, _, j)| j >= n)
                    .map(move |(i, r, j)| (Some((i, -1 - (j - n) as i64)), slots(r, true))),
            ),
            SourceKind::Fixed => Box::new(
                self.fixed_slots
                    .iter()
                    .zip(&world.fixed_pairs)
                    .map(|(sl, &[i, j])| (Some((i, j as i64)), *sl)),
            ),
        }
    }
}

/// Count the active contacts among a backend's slots ([`slot_active`]).
pub fn count_contacts(world: &World, s: &SourceSlots<'_>) -> ContactCount {
    let mut c = ContactCount::default();
    for src in SourceKind::ALL {
        let active = s
            .pairs(src, world)
            .filter(|(p, sl)| p.is_some() && slot_active(sl))
            .count() as u64;
        match src {
            SourceKind::Neighbour => c.pairs = active,
            SourceKind::Wall => c.walls = active,
            SourceKind::Fixed => c.fixed = active,
        }
    }
    c
}

/// One active contact, as `contacts.csv` and the force-chain frames show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// First particle.
    pub i: u32,
    /// Second particle, or `-1 - w` for wall `w`.
    pub j: i64,
    /// Overlap (m), negative for an adhesive contact held apart.
    pub overlap: f32,
    /// Normal force (N), positive when it pushes the bodies apart.
    pub normal_force: f32,
    /// Magnitude of the tangential force (N).
    pub tangential_force: f32,
    /// The tangential force on `i` (N): the contact's force on `i` less its normal part.
    pub tangential: [f32; 3],
    /// Unit normal from `i` towards `j` (into the wall).
    pub normal: [f32; 3],
    /// Contact point (m), in the middle of the overlap.
    pub point: [f32; 3],
    /// Whether the pair is a bond (a fixed pair of the world) rather than a contact.
    pub bond: bool,
    /// The velocity of `j`'s surface relative to `i`'s at the contact point (m/s): each body's
    /// velocity and spin about its centre (a moving wall's about its centre of rotation).
    pub relative_velocity: [f32; 3],
    /// The moment of the contact's force about `i`'s centre (N m), `(x_c - x_i) x F_i` (the
    /// torques of rolling resistance and twisting friction are not in it).
    pub torque: [f32; 3],
}

impl ContactRecord {
    /// The contact's force on `i` (N): the normal force against the normal, and the
    /// tangential force.
    pub fn force(&self) -> [f32; 3] {
        std::array::from_fn(|k| -self.normal_force * self.normal[k] + self.tangential[k])
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The velocity of the surface of body `j` (a particle, or wall `-1 - j`) at `point` (m/s).
fn surface_velocity(
    j: i64,
    point: [f32; 3],
    pos: &[[f32; 4]],
    motion: (&[[f32; 4]], &[[f32; 4]]),
    walls: &[crate::kernel_types::Wall],
    domain: &crate::kernel_types::DomainParams,
) -> [f32; 3] {
    use crate::kernels::resolvers::sphere_sphere::min_image;
    let (vel, omega) = motion;
    let (v, w, arm) = if j >= 0 {
        let (v, w, x) = (vel[j as usize], omega[j as usize], pos[j as usize]);
        let arm = min_image([point[0] - x[0], point[1] - x[1], point[2] - x[2]], domain);
        ([v[0], v[1], v[2]], [w[0], w[1], w[2]], arm)
    } else {
        let wall = &walls[(-1 - j) as usize];
        if wall.moving == 0 {
            return [0.0; 3];
        }
        let c = wall.center;
        let arm = [point[0] - c[0], point[1] - c[1], point[2] - c[2]];
        (wall.velocity, wall.omega, arm)
    };
    let spin = cross(w, arm);
    [v[0] + spin[0], v[1] + spin[1], v[2] + spin[2]]
}

/// The active contacts of a state ([`slot_active`]), pairs in list order then wall contacts,
/// with their geometry recomputed from the positions the slots were evaluated at (the
/// resolvers' own overlap and normal).
/// `motion`: each particle's velocity and spin, for the records' relative velocities.
pub fn contact_records(
    world: &World,
    pos: &[[f32; 4]],
    motion: (&[[f32; 4]], &[[f32; 4]]),
    slots: &SourceSlots<'_>,
) -> Vec<ContactRecord> {
    use crate::kernels::resolvers::sphere_sphere::min_image;
    let domain = world.domain.params();
    let split = |f: [f32; 3], n: [f32; 3]| {
        let fnn = f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
        let t = [f[0] - fnn * n[0], f[1] - fnn * n[1], f[2] - fnn * n[2]];
        // The force is on body 1; along +n it pulls body 1 towards body 2.
        (-fnn, (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt(), t)
    };
    let mut out = Vec::new();
    for src in SourceKind::ALL {
        for (pair, s) in slots.pairs(src, world) {
            let Some((i, j)) = pair else { continue };
            if !slot_active(&s) {
                continue;
            }
            let a = pos[i as usize];
            let (n, overlap) = if j >= 0 {
                let b = pos[j as usize];
                let d = min_image([b[0] - a[0], b[1] - a[1], b[2] - a[2]], &domain);
                let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                let n = if dist > 0.0 {
                    d.map(|x| x / dist)
                } else {
                    [0.0, 0.0, 1.0]
                };
                (n, a[3] + b[3] - dist)
            } else {
                crate::kernels::walls::wall_contact(a, &slots.walls[(-1 - j) as usize])
            };
            let arm = a[3] - 0.5 * overlap;
            let (normal_force, tangential_force, tangential) = split(s.force, n);
            let point = [a[0] + n[0] * arm, a[1] + n[1] * arm, a[2] + n[2] * arm];
            let mut r = ContactRecord {
                i,
                j,
                overlap,
                normal_force,
                tangential_force,
                tangential,
                normal: n,
                point,
                bond: src == SourceKind::Fixed,
                relative_velocity: [0.0; 3],
                torque: [0.0; 3],
            };
            let (vj, vi) = (
                surface_velocity(j, point, pos, motion, slots.walls, &domain),
                surface_velocity(i as i64, point, pos, motion, slots.walls, &domain),
            );
            r.relative_velocity = std::array::from_fn(|k| vj[k] - vi[k]);
            r.torque = cross(n.map(|x| x * arm), r.force());
            out.push(r);
        }
    }
    out
}

/// The particle that stopped a guarded run ([`Backend::run_guarded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The step it was found at; the backend's state is the state after this step.
    pub step: u64,
    /// The lowest index of the faulty particles of that step.
    pub particle: u32,
}

/// The lowest free particle whose velocity at the end of a step is non-finite or faster than
/// `max_speed` (m/s), or `None`. The first half of each step checks the drifted state
/// ([`crate::kernels::passes::integrate_first_half::particle_fault`]), but the second half's
/// kick, which applies the step's new forces, is only seen by the next step's first half: a
/// guarded run checks its last step's end with this, so a blow-up in the last step of a run
/// (a run of one step included) is caught too. Positions need no second look: the second half
/// does not move them. Fixed particles and clump members (placed with their body) are skipped
/// as the first half skips them.
pub fn end_of_step_fault(world: &World, max_speed: f32, vel: &[[f32; 4]]) -> Option<u32> {
    let p = &world.particles;
    vel.iter().enumerate().find_map(|(i, v)| {
        if v[3] <= 0.0 || p.shape_of(i).kind == crate::shapes::KIND_MEMBER {
            return None;
        }
        let v = glam::Vec3A::new(v[0], v[1], v[2]);
        crate::kernels::passes::integrate_first_half::velocity_fault(v, max_speed)
            .then_some(i as u32)
    })
}

/// Counters a run reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Steps taken.
    pub steps: u64,
    /// Broad-phase rebuilds, the one at start included.
    pub rebuilds: u64,
    /// Candidate entries in the neighbour list (each pair counts twice).
    pub neighbour_entries: u64,
    /// Particles removed from the run ([`Backend::remove_particles`]).
    pub removed: u64,
    /// Particles inserted ([`Backend::insert_particles`]).
    pub inserted: u64,
    /// Implicit solves taken (one a step in an implicit dynamics mode).
    pub solves: u64,
    /// Conjugate-gradient iterations over all solves.
    pub solve_iterations: u64,
}

/// The radius a removed particle is given: so negative that no pair and no wall ever comes
/// within its reach (the broad phase and every resolver see a negative overlap), while it
/// keeps its index, so ids and fixed pairs stay valid.
pub const REMOVED_RADIUS: f32 = -1e30;

/// Take particles `ids` out of state arrays in place ([`remove_particle`] each), skipping those
/// already removed: the indices it changed, and the energy they carried (J). An id beyond the
/// arrays is an error. Both backends remove through it (the GPU backend on arrays it read
/// back, writing the changed elements again).
pub fn remove_particles_in(
    world: &World,
    ids: &[u32],
    pos: &mut [[f32; 4]],
    pos_comp: &mut [[f32; 4]],
    vel: &mut [[f32; 4]],
    omega: &mut [[f32; 4]],
    quat: &[[f32; 4]],
) -> Result<(Vec<usize>, f64), crate::CoreError> {
    let mut changed = Vec::new();
    let mut energy = 0.0;
    for &id in ids {
        let i = id as usize;
        if i >= pos.len() {
            return Err(crate::CoreError::BadState(format!(
                "cannot remove particle {id}: there are {} particles",
                pos.len()
            )));
        }
        if pos[i][3] == REMOVED_RADIUS {
            continue;
        }
        energy += remove_particle(
            world,
            i,
            &mut pos[i],
            &mut pos_comp[i],
            &mut vel[i],
            &mut omega[i],
            quat.get(i).copied().unwrap_or(crate::shapes::IDENTITY),
        );
        changed.push(i);
        // A clump's body takes its members with it (their energy is the body's).
        let rec = world.particles.shape_of(i);
        if rec.kind == crate::shapes::KIND_CLUMP {
            for m in i + 1..=i + rec.data[0].to_bits() as usize {
                pos[m] = [pos[m][0], pos[m][1], pos[m][2], REMOVED_RADIUS];
                pos_comp[m] = [0.0; 4];
                vel[m] = [0.0; 4];
                omega[m] = [0.0; 4];
                changed.push(m);
            }
        }
    }
    Ok((changed, energy))
}

/// Wake the dormant particles of `placed` (`(id, centre, velocity)`) in these arrays: their
/// insertion radius, mass and inertia (from `world`), no spin, no compensation. Their
/// reference position stays where they slept, so the next step rebuilds the neighbour list
/// with them. Returns the indices changed and the energy they bring (J).
pub fn insert_particles_in(
    world: &World,
    placed: &[(u32, [f32; 3], [f32; 3])],
    pos: &mut [[f32; 4]],
    pos_comp: &mut [[f32; 4]],
    vel: &mut [[f32; 4]],
    omega: &mut [[f32; 4]],
    quat: &[[f32; 4]],
) -> Result<(Vec<usize>, f64), crate::CoreError> {
    let mut changed = Vec::new();
    for &(id, x, v) in placed {
        let i = id as usize;
        let radius = world.insertion_radius(id).ok_or_else(|| {
            crate::CoreError::BadState(format!("particle {id} is not a particle to insert"))
        })?;
        if i >= pos.len() || pos[i][3] != REMOVED_RADIUS {
            return Err(crate::CoreError::BadState(format!(
                "particle {id} is already in the run"
            )));
        }
        let p = &world.particles;
        pos[i] = [x[0], x[1], x[2], radius];
        pos_comp[i] = [0.0; 4];
        vel[i] = [v[0], v[1], v[2], 1.0 / p.mass[i]];
        omega[i] = [0.0, 0.0, 0.0, 1.0 / p.inertia[i]];
        changed.push(i);
    }
    let mut energy = 0.0;
    for &i in &changed {
        let (ke, re, pe) = mechanical_energy(
            world,
            &pos[i..=i],
            &vel[i..=i],
            &omega[i..=i],
            quat.get(i..=i).unwrap_or(&[]),
            i,
        );
        energy += ke + re + pe;
    }
    Ok((changed, energy))
}

/// Check that each of `pairs` is a division pair of the world that is on (`fixed_active`).
pub fn check_division_ends(
    world: &World,
    pairs: &[u32],
    fixed_active: &[u32],
) -> Result<(), crate::CoreError> {
    let pool = world
        .cells
        .as_ref()
        .map_or(0..0, |c| c.first_pair..c.first_pair + c.pairs);
    for &k in pairs {
        if !pool.contains(&k)
            || fixed_active[k as usize] == crate::kernels::sources::fixed::FIXED_OFF
        {
            return Err(crate::CoreError::Refused(format!(
                "fixed pair {k} is no division pair in cytokinesis"
            )));
        }
    }
    Ok(())
}

/// How many of the particles `changed` are bodies (not a clump's members, which go with theirs).
pub fn bodies_in(world: &World, changed: &[usize]) -> u64 {
    changed
        .iter()
        .filter(|&&i| world.particles.shape_of(i).kind != crate::shapes::KIND_MEMBER)
        .count() as u64
}

/// Take particle `i` out of the run in place: no mass (it no longer moves or takes forces), no
/// velocity, and [`REMOVED_RADIUS`]; returns the kinetic, rotational and gravitational energy
/// it carried (J), as [`mechanical_energy`] counts it.
pub fn remove_particle(
    world: &World,
    i: usize,
    pos: &mut [f32; 4],
    pos_comp: &mut [f32; 4],
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    quat: [f32; 4],
) -> f64 {
    let (ke, re, pe) = mechanical_energy(
        world,
        std::slice::from_ref(pos),
        std::slice::from_ref(vel),
        std::slice::from_ref(omega),
        &[quat],
        i,
    );
    *pos = [pos[0], pos[1], pos[2], REMOVED_RADIUS];
    *pos_comp = [0.0; 4];
    *vel = [0.0; 4];
    *omega = [0.0; 4];
    ke + re + pe
}

/// A simulation backend: CPU loops or GPU dispatches of the same kernels.
pub trait Backend: Send {
    /// Short name for messages ("cpu", or the adapter's name).
    fn name(&self) -> String;
    /// Advance one step.
    fn step(&mut self);
    /// Advance `n` steps.
    fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
    /// Advance `n` steps, reporting a backend failure (a device lost, a neighbour list that
    /// cannot grow within the device's limits) as an error instead of a panic. The CLI uses
    /// this; `run` suits tests.
    fn try_run(&mut self, n: u64) -> Result<(), crate::CoreError> {
        self.run(n);
        Ok(())
    }
    /// Advance up to `n` steps, stopping after the first step that leaves a free particle
    /// non-finite, faster than the world's `speed_limit`, or outside a non-periodic domain
    /// ([`crate::kernels::passes::integrate_first_half::particle_fault`]): `Ok(None)` when all
    /// `n` steps ran, else the fault, with the backend's state at its step. The CPU backend
    /// checks every step; the GPU backend checks on the device every step and stops its batch
    /// after the faulty step (a freeze). Both then check the end of the last step
    /// ([`end_of_step_fault`]), whose kick no later first half sees.
    fn run_guarded(&mut self, n: u64) -> Result<Option<Fault>, crate::CoreError>;
    /// Take particles `ids` out of the run (lost particles deleted): they keep their index but
    /// no longer move, touch anything or count in the ledger's mechanical energy; the energy
    /// they carried goes to its `removed` column. Already removed ids are skipped.
    fn remove_particles(&mut self, ids: &[u32]) -> Result<(), crate::CoreError>;
    /// The fixed source's history records (`BackendState::fixed_history`): what a bond's laws
    /// remember, such as whether a spring has broken
    /// ([`crate::kernels::sources::fixed::broken_fixed_pairs`]).
    fn fixed_history(&mut self) -> Vec<f32>;
    /// The shell edges' records (`BackendState::shell_forces`, four per edge): for output,
    /// each edge's tension is `w` of its third record.
    fn shell_forces(&mut self) -> Vec<[f32; 4]>;
    /// The load on each wall now ([`wall_loads`]).
    fn wall_loads(&mut self) -> Vec<WallLoad>;
    /// The walls as they stand now (a moving wall where its motion has carried it), in the
    /// world's order, then the mesh walls' bodies: what output draws.
    fn walls(&mut self) -> Vec<crate::kernel_types::Wall>;
    /// Set the velocities (m/s) of particles `ids` to `v`, between steps (a script's change of
    /// a run: [`check_velocities`] refuses what does not fit the world first).
    fn set_velocities(&mut self, ids: &[u32], v: &[[f32; 3]]) -> Result<(), crate::CoreError>;
    /// Move particles `ids` to `x` (m), between steps ([`check_positions`] refuses what does
    /// not fit the world first); the neighbour list is rebuilt at the next step where they
    /// moved past half the skin.
    fn set_positions(&mut self, ids: &[u32], x: &[[f32; 3]]) -> Result<(), crate::CoreError>;
    /// Hold force `f[k]` (N) on particle `ids[k]` from the next half-step on, every step until
    /// changed again (a zero force clears it): it joins the particle's gathered force
    /// ([`crate::kernels::passes::applied_power`]), so both half-kicks of velocity Verlet (or
    /// an implicit mode's solve) take it, and its work goes to the ledger's `kinematic_work`.
    /// Refused with [`crate::CoreError::BuiltWithout`] in a world without applied forces
    /// ([`World::applied_forces`]), and with [`crate::CoreError::Refused`] for an id out of
    /// range, a force not finite, a particle fixed, out of the run or a clump's member
    /// ([`crate::external::apply_forces_in`]); a refused call changes nothing.
    fn apply_forces(&mut self, ids: &[u32], f: &[[f32; 3]]) -> Result<(), crate::CoreError>;
    /// Fix particles `ids` between steps (`Some(v)`: each becomes kinematic, inverse mass and
    /// inertia 0, no spin, moving at `v[k]` (m/s) from now on; its work on the rest of the
    /// system is booked by `kinematic_power`) or release them (`None`: their inverse mass and
    /// inertia back from the world, their velocity kept). Refused with
    /// [`crate::CoreError::BuiltWithout`] in a world that does not book kinematic work
    /// ([`World::kinematic`]), and with [`crate::CoreError::Refused`] for an id out of range,
    /// a velocity not finite, a particle out of the run or of a clump
    /// ([`crate::external::set_fixed_in`], which also says how the ledger books the change); a
    /// refused call changes nothing.
    fn set_fixed(
        &mut self,
        ids: &[u32],
        velocity: Option<&[[f32; 3]]>,
    ) -> Result<(), crate::CoreError>;
    /// Set moving wall `wall`'s velocity from now on (a servo, [`crate::servo`]): its motion
    /// counts afresh from its pose now ([`crate::servo::rebase`]). Nothing for a wall that
    /// does not exist.
    fn steer_wall(&mut self, wall: usize, velocity: [f32; 3]);
    /// The mesh walls' triangles as they stand now, relative to their particles' centres
    /// (turned with their bodies): what output draws.
    fn triangles(&mut self) -> Vec<crate::kernel_types::Triangle>;
    /// Bring dormant particles into the run ([`crate::insert`]): particle `id` at `pos` (m)
    /// moving at `vel` (m/s), with its insertion radius, mass and inertia, at rest in spin.
    fn insert_particles(
        &mut self,
        placed: &[(u32, [f32; 3], [f32; 3])],
    ) -> Result<(), crate::CoreError>;
    /// Divide cells ([`crate::cells`]): each mother leaves the run, her two daughters (her
    /// division pair's dormant particles) enter it as given, and the pair switches on with a
    /// fresh history, driving them alone through the cytokinesis. Checked whole first.
    fn divide_cells(
        &mut self,
        divisions: &[crate::cells::Division],
    ) -> Result<(), crate::CoreError>;
    /// End the cytokinesis of fixed pairs `pairs` (division pairs that are on): each is switched
    /// off, its history and slot zeroed, and its two particles are an ordinary contact from the
    /// next step on.
    fn end_divisions(&mut self, pairs: &[u32]) -> Result<(), crate::CoreError>;
    /// Bytes of device buffers the backend holds (the GPU backend's live buffers and their saved
    /// copies); `None` for a backend whose state is in host memory.
    fn device_bytes(&self) -> Option<u64> {
        None
    }
    /// The arrays the backend holds in storage textures rather than buffers, with how many
    /// textures each (the GPU backend past what a kernel's storage buffers reach); none for a
    /// backend in host memory.
    fn texture_arrays(&self) -> Vec<(String, usize)> {
        Vec::new()
    }
    /// Bytes of the arrays a host-memory backend holds for its state, scratch included (the
    /// CPU backend); `None` for a device backend ([`Backend::device_bytes`]).
    fn host_bytes(&self) -> Option<u64> {
        None
    }
    /// Steps a caller should hand [`Backend::run_guarded`] at once to keep the backend
    /// efficient: the CPU backend a few million particle-steps' worth (its steps in one call
    /// share a pool worker and fuse across step boundaries), the GPU backend one check
    /// interval (many steps per submission).
    fn batch(&self) -> u64 {
        1
    }
    /// Steps taken and the time reached (s).
    fn counters(&self) -> Counters;
    /// Current time (s).
    fn time(&self) -> f64;
    /// Read the particle state back.
    fn snapshot(&mut self) -> Snapshot<'_>;
    /// Energy ledger now.
    fn energy(&mut self) -> EnergyReport;
    /// Sorted candidate pairs (p < q), for audits and parity.
    fn candidate_pairs(&mut self) -> Vec<(u32, u32)>;
    /// Contacts now (active pairs and wall contacts, [`slot_active`]).
    fn contacts(&mut self) -> ContactCount;
    /// The active contacts now, with their geometry and forces.
    fn contact_records(&mut self) -> Vec<ContactRecord>;
    /// Everything needed to resume this run later, on either backend.
    fn state(&mut self) -> crate::state::BackendState;
    /// [`Backend::state`] handed to `sink` piece by piece, with the same bytes. By default the
    /// state is taken whole first; the CPU backend produces each array from its own as it
    /// goes, so that a checkpoint does not hold the state a second time.
    fn stream_state(&mut self, sink: &mut dyn crate::state::StateSink) -> std::io::Result<()> {
        self.state().stream(sink)
    }
    /// Steps at which the broad phase was rebuilt.
    fn rebuild_steps(&self) -> &[u64];
}

/// The energy ledger of a backend's state, summed in f64 in a fixed order: mechanical energy
/// from the particles, elastic energy from every pair source's slots in [`SourceKind::ALL`]
/// order (owning entries only, p < q, of the neighbour list), dissipation from the
/// per-particle Kahan accumulators, and the work moving walls (`wall_work`, with that of the
/// mesh walls' triangles from `kinematic_work`), kinematic particles and applied forces
/// (`kinematic_work`) did.
#[allow(clippy::too_many_arguments)]
pub fn energy_report(
    world: &World,
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    quat: &[[f32; 4]],
    slots: &SourceSlots<'_>,
    dissipated: &[[f32; 4]],
    wall_work: &[[f32; 2]],
    kinematic_work: &[[f32; 2]],
    removed: f64,
    inserted: f64,
) -> EnergyReport {
    let (mut kinetic, mut rotational, gravitational) =
        mechanical_energy(world, pos, vel, omega, quat, 0);
    // Without inertia, velocities carry no energy.
    if matches!(
        world.dynamics.mode,
        crate::dynamics::Mode::Overdamped | crate::dynamics::Mode::Static
    ) {
        (kinetic, rotational) = (0.0, 0.0);
    }
    let mut elastic = 0.0f64;
    for src in SourceKind::ALL {
        for (pair, s) in slots.pairs(src, world) {
            if pair.is_some() {
                elastic += s.elastic as f64;
            }
        }
    }
    // Springs and hinges (role 0's `w`), and enclosed volumes.
    elastic += slots
        .shell_forces
        .iter()
        .step_by(4)
        .map(|r| r[3] as f64)
        .sum::<f64>();
    elastic += slots.shell_volumes.iter().map(|r| r[2] as f64).sum::<f64>();
    // Node-to-surface penalties: each slave's summary record.
    use crate::kernels::passes::surface_contact::{MASTERS, SURFACE_RECORDS};
    elastic += (slots.surface_records.iter())
        .skip(2 * MASTERS)
        .step_by(SURFACE_RECORDS)
        .map(|r| r[0] as f64)
        .sum::<f64>();
    let (mut damp, mut fric) = (0.0f64, 0.0f64);
    for a in dissipated {
        damp += a[0] as f64 - a[1] as f64;
        fric += a[2] as f64 - a[3] as f64;
    }
    let sum = |a: &[[f32; 2]]| a.iter().map(|a| a[0] as f64 - a[1] as f64).sum::<f64>();
    // The mesh walls' triangles (the last particles) book their work as kinematic particles;
    // the ledger counts it as the walls' work.
    let meshes = kinematic_work.len().saturating_sub(world.triangles.len());
    let work = sum(wall_work) + sum(&kinematic_work[meshes..]);
    let kinematic = sum(&kinematic_work[..meshes]);
    EnergyReport {
        kinetic,
        rotational,
        gravitational,
        elastic,
        damping_dissipated: damp,
        friction_dissipated: fric,
        total: kinetic + rotational + gravitational + elastic + damp + fric + removed
            - work
            - kinematic
            - inserted,
        removed,
        wall_work: work,
        inserted,
        kinematic_work: kinematic,
    }
}

/// Kinetic, rotational and gravitational energy of a state, in f64: of particles
/// `first..first + pos.len()`, whose arrays `pos`, `vel`, `omega` and `quat` are. A body with
/// principal moments (a capsule) counts `1/2 w_b . I w_b` in its body frame.
pub fn mechanical_energy(
    world: &World,
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    quat: &[[f32; 4]],
    first: usize,
) -> (f64, f64, f64) {
    let p = &world.particles;
    let g = world.gravity;
    let (mut ke, mut re, mut pe) = (0.0, 0.0, 0.0);
    for k in 0..pos.len() {
        let i = first + k;
        // A clump's members carry its inverse mass for contacts; the body holds its energy.
        if vel[k][3] == 0.0 || p.shape_of(i).kind == crate::shapes::KIND_MEMBER {
            continue;
        }
        let m = p.mass[i] as f64;
        let v = vel[k];
        let w = omega[k];
        ke += 0.5
            * m
            * (v[0] as f64 * v[0] as f64 + v[1] as f64 * v[1] as f64 + v[2] as f64 * v[2] as f64);
        if let Some(ik) = p.shape_of(i).inertia_per_mass() {
            let wb = crate::shapes::quat_rotate_inv(quat[k], glam::Vec3::new(w[0], w[1], w[2]));
            re += 0.5
                * m
                * (ik[0] as f64 * (wb.x as f64).powi(2)
                    + ik[1] as f64 * (wb.y as f64).powi(2)
                    + ik[2] as f64 * (wb.z as f64).powi(2));
        } else {
            re += 0.5
                * p.inertia[i] as f64
                * (w[0] as f64 * w[0] as f64
                    + w[1] as f64 * w[1] as f64
                    + w[2] as f64 * w[2] as f64);
        }
        for c in 0..3 {
            pe -= m * g[c] * (pos[k][c] as f64 - world.domain.min[c]);
        }
    }
    (ke, re, pe)
}

// The dense pack the memory estimates of both backends assume.

/// Neighbour-list entries per particle assumed by the memory estimate: a dense pack has about
/// 6-8 partners within a skin of a quarter diameter, and the list stores each pair from both
/// sides.
pub const ENTRIES_PER_PARTICLE: usize = 16;

/// Neighbour-list records (pairs, each once) per particle assumed by the memory estimate: half
/// the entries (a record is shared by a pair's two entries).
pub const RECORDS_PER_PARTICLE: usize = ENTRIES_PER_PARTICLE / 2;

/// Records in contact per particle assumed by the memory estimate, each with a packed force
/// slot: a settled pack of spheres touches about 6 neighbours, each pair once.
pub const CONTACTS_PER_PARTICLE: usize = 3;

/// What a run has done so far, kept alike by both backends and carried in their state: steps
/// taken, the steps that rebuilt the neighbour list, and the particles removed and inserted
/// with the energy they took away or brought (for the ledger).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunTally {
    pub steps: u64,
    pub rebuild_steps: Vec<u64>,
    pub removed: u64,
    /// Energy the removed particles carried (J).
    pub removed_energy: f64,
    pub inserted: u64,
    /// Energy the inserted particles brought (J).
    pub inserted_energy: f64,
}

impl RunTally {
    /// Book `divisions` divisions: each mother removed, her two daughters inserted, with the
    /// energies [`crate::cells::divide_in`] found.
    pub fn book_divisions(&mut self, divisions: usize, out: &crate::cells::Divided) {
        self.removed += divisions as u64;
        self.removed_energy += out.removed_energy;
        self.inserted += 2 * divisions as u64;
        self.inserted_energy += out.inserted_energy;
    }

    /// The tally a state carries ([`crate::state::BackendState`]'s scalars).
    pub fn of_state(s: &crate::state::BackendState) -> RunTally {
        RunTally {
            steps: s.step,
            rebuild_steps: s.rebuild_steps.clone(),
            removed: s.removed,
            removed_energy: s.removed_energy,
            inserted: s.inserted,
            inserted_energy: s.inserted_energy,
        }
    }

    /// The state's scalars, as a streamed state or checkpoint begins.
    pub fn header(&self) -> crate::state::StateHeader {
        crate::state::StateHeader {
            step: self.steps,
            rebuild_steps: self.rebuild_steps.clone(),
            removed: self.removed,
            removed_energy: self.removed_energy,
            inserted: self.inserted,
            inserted_energy: self.inserted_energy,
        }
    }
}
