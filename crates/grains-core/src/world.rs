//! The world to simulate: particles (structure of arrays, vec4-sized fields), walls, domain,
//! materials and the interaction table. Both backends start from a [`World`].

use crate::error::CoreError;
use crate::gpu_types::{DomainParams, GridParams, StepParams, Wall, WALL_KINDS};
use crate::kernels::sources::SourceKind;
use crate::materials::{Interaction, Material, PairSet, PairTable, TouchingPair};
use crate::registry::ResolverKind;
use crate::shapes::ShapeKind;

/// Particle state as structure of arrays. Every per-particle field is 16 bytes so the arrays
/// upload to the GPU as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Particles {
    /// Centre (m) and radius (m).
    pub pos: Vec<[f32; 4]>,
    /// Velocity (m/s) and inverse mass (1/kg; 0 = fixed): the initial state, which a backend
    /// takes (empty in a backend's own world).
    pub vel: Vec<[f32; 4]>,
    /// Angular velocity (rad/s) and inverse moment of inertia (1/(kg m^2); 0 = fixed); taken
    /// by a backend as `vel` is.
    pub omega: Vec<[f32; 4]>,
    /// Orientation quaternion (x, y, z, w); taken by a backend as `vel` is.
    pub quat: Vec<[f32; 4]>,
    /// Material index.
    pub material: Vec<u32>,
    /// Mass (kg), kept for fixed particles too (energy, output).
    pub mass: Vec<f32>,
    /// Moment of inertia about the centre (kg m^2).
    pub inertia: Vec<f32>,
    /// Index into the shape table `shapes` ([`crate::shapes`]); `pos.w` is the bounding radius.
    pub shape: Vec<u32>,
    /// The shape table: entry 0 is the sphere (an empty table means spheres only).
    pub shapes: Vec<crate::shapes::ShapeRecord>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        // Not `pos`: a CPU backend's world has given its positions to the backend.
        self.material.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.material.is_empty()
    }

    /// Room for `more` particles in every per-particle array, exactly (a clump's members and a
    /// capsule take one each as well).
    pub fn reserve_exact(&mut self, more: usize) {
        self.pos.reserve_exact(more);
        self.vel.reserve_exact(more);
        self.omega.reserve_exact(more);
        self.quat.reserve_exact(more);
        self.material.reserve_exact(more);
        self.mass.reserve_exact(more);
        self.inertia.reserve_exact(more);
        self.shape.reserve_exact(more);
    }

    /// Give back the room the arrays grew into while particles were pushed one by one (up to
    /// as much again as they hold), which a run would otherwise keep to its end.
    pub fn shrink_to_fit(&mut self) {
        self.pos.shrink_to_fit();
        self.vel.shrink_to_fit();
        self.omega.shrink_to_fit();
        self.quat.shrink_to_fit();
        self.material.shrink_to_fit();
        self.mass.shrink_to_fit();
        self.inertia.shrink_to_fit();
        self.shape.shrink_to_fit();
        self.shapes.shrink_to_fit();
    }

    /// The shape table as the kernels read it: never empty, entry 0 the sphere.
    pub fn shape_table(&self) -> Vec<crate::shapes::ShapeRecord> {
        if self.shapes.is_empty() {
            vec![crate::shapes::ShapeRecord::sphere()]
        } else {
            self.shapes.clone()
        }
    }

    /// Whether spheres' orientations follow their spins (entry 0 of the shape table is
    /// [`crate::shapes::ShapeRecord::sphere_turning`]); off by default, as nothing a sphere
    /// touches depends on it.
    pub fn sphere_orientation(&self) -> bool {
        self.shapes.first().is_some_and(|s| s.turns())
    }

    /// Whether any particle keeps an orientation (a shape of the table turns,
    /// [`crate::shapes::ShapeRecord::turns`]): where none does, the backends hold no `quat`
    /// array and report every orientation as the identity.
    pub fn orientations_kept(&self) -> bool {
        self.shape_table().iter().any(|s| s.turns())
    }

    /// Whether a kinematic particle moves: a fixed body (inverse mass 0, not integrated) given
    /// a velocity or spin, which it keeps and with which it does work on the rest of the
    /// system (a clump's members follow their body and are not counted apart from it). Read
    /// from `vel` and `omega`, so only before a backend takes them ([`World::kinematic`] keeps
    /// the answer).
    pub fn kinematic_moves(&self) -> bool {
        use crate::shapes::KIND_MEMBER;
        (0..self.vel.len().min(self.omega.len())).any(|i| {
            let (v, w) = (self.vel[i], self.omega[i]);
            v[3] == 0.0
                && self.shape_of(i).kind != KIND_MEMBER
                && (v[..3].iter().chain(&w[..3]).any(|&x| x != 0.0))
        })
    }

    /// Track spheres' orientations (`on`) or leave them as they started.
    pub fn set_sphere_orientation(&mut self, on: bool) {
        use crate::shapes::ShapeRecord;
        let sphere = if on {
            ShapeRecord::sphere_turning()
        } else {
            ShapeRecord::sphere()
        };
        match self.shapes.first_mut() {
            Some(s) => *s = sphere,
            None if on => self.shapes.push(sphere),
            None => {}
        }
    }

    /// The shape record of particle `i`.
    pub fn shape_of(&self, i: usize) -> crate::shapes::ShapeRecord {
        self.shapes
            .get(self.shape[i] as usize)
            .copied()
            .unwrap_or_else(crate::shapes::ShapeRecord::sphere)
    }

    /// Index of `rec` in the shape table, added if new.
    pub fn add_shape(&mut self, rec: crate::shapes::ShapeRecord) -> u32 {
        if self.shapes.is_empty() {
            self.shapes.push(crate::shapes::ShapeRecord::sphere());
        }
        match self.shapes.iter().position(|s| *s == rec) {
            Some(i) => i as u32,
            None => {
                self.shapes.push(rec);
                (self.shapes.len() - 1) as u32
            }
        }
    }

    /// Append a solid capsule of segment half-length `half_length` and radius `radius` (m),
    /// oriented by the unit quaternion `quat` (x, y, z, w; body `z` is the axis), of `density`
    /// (kg/m^3). Its `pos.w` is the bounding radius `radius + half_length`, its `omega.w` the
    /// inverse of its transverse moment of inertia.
    #[allow(clippy::too_many_arguments)]
    pub fn push_capsule(
        &mut self,
        x: [f64; 3],
        radius: f64,
        half_length: f64,
        quat: [f32; 4],
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        density: f64,
        fixed: bool,
    ) {
        let (mass, perp, _) = crate::shapes::capsule_inertia(half_length, radius, density);
        let shape = self.add_shape(crate::shapes::ShapeRecord::capsule(
            half_length as f32,
            radius as f32,
        ));
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / mass, 1.0 / perp)
        };
        let bound = radius + half_length;
        self.pos
            .push([x[0] as f32, x[1] as f32, x[2] as f32, bound as f32]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(quat);
        self.material.push(material);
        self.mass.push(mass as f32);
        self.inertia.push(perp as f32);
        self.shape.push(shape);
    }

    /// Append a clump: a rigid body of the overlapping spheres `props` describes
    /// ([`crate::shapes::clump_props`]), whose member offsets were given relative to `x` (m)
    /// in the frame `quat` (x, y, z, w) turns into the world's. The body (at the centre of mass,
    /// in its principal frame) is appended first, then one particle per member sphere of
    /// `radii` (m). Members carry the body's inverse mass, so a contact's effective mass is the
    /// body's; they do not count in the energy, the body does.
    #[allow(clippy::too_many_arguments)]
    pub fn push_clump(
        &mut self,
        x: [f64; 3],
        props: &crate::shapes::ClumpProps,
        radii: &[f64],
        quat: [f32; 4],
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        fixed: bool,
    ) {
        use crate::shapes::{quat_mul, quat_rotate, ShapeRecord};
        let q = quat_mul(quat, props.axes);
        let com = quat_rotate(
            quat,
            glam::Vec3::new(
                props.com[0] as f32,
                props.com[1] as f32,
                props.com[2] as f32,
            ),
        );
        let xb = [0, 1, 2].map(|k| x[k] + com[k] as f64);
        let k = props.k.map(|x| x as f32);
        let perp = props.mass * props.k.iter().cloned().fold(f64::INFINITY, f64::min);
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / props.mass, 1.0 / perp)
        };
        let n = radii.len() as u32;
        let body = self.add_shape(ShapeRecord::clump(n, k));
        self.pos.push([
            xb[0] as f32,
            xb[1] as f32,
            xb[2] as f32,
            crate::shapes::CLUMP_BODY_RADIUS,
        ]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(q);
        self.material.push(material);
        self.mass.push(props.mass as f32);
        self.inertia.push(perp as f32);
        self.shape.push(body);
        let wv = glam::Vec3::new(w[0] as f32, w[1] as f32, w[2] as f32);
        for (j, (o, r)) in props.offsets.iter().zip(radii).enumerate() {
            let off = [o[0] as f32, o[1] as f32, o[2] as f32];
            let arm = quat_rotate(q, glam::Vec3::from(off));
            let vm = glam::Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32) + wv.cross(arm);
            let s = self.add_shape(ShapeRecord::member(off, j as u32 + 1));
            self.pos.push([
                xb[0] as f32 + arm.x,
                xb[1] as f32 + arm.y,
                xb[2] as f32 + arm.z,
                *r as f32,
            ]);
            self.vel.push([vm.x, vm.y, vm.z, im as f32]);
            self.omega
                .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
            self.quat.push(q);
            self.material.push(material);
            self.mass.push(0.0);
            self.inertia.push(0.0);
            self.shape.push(s);
        }
    }

    /// Append a solid sphere of `density` (kg/m^3).
    #[allow(clippy::too_many_arguments)]
    pub fn push_sphere(
        &mut self,
        x: [f64; 3],
        radius: f64,
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        density: f64,
        fixed: bool,
    ) {
        let mass = density * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let inertia = 0.4 * mass * radius * radius;
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / mass, 1.0 / inertia)
        };
        self.pos
            .push([x[0] as f32, x[1] as f32, x[2] as f32, radius as f32]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(crate::shapes::IDENTITY);
        self.material.push(material);
        self.mass.push(mass as f32);
        self.inertia.push(inertia as f32);
        self.shape.push(crate::shapes::SPHERE);
    }
}

/// Axis-aligned domain, optionally periodic per axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    pub min: [f64; 3],
    pub max: [f64; 3],
    pub periodic: [bool; 3],
}

impl Domain {
    /// The first non-periodic axis on which point `x` lies outside the domain, if any: where a
    /// particle is lost.
    pub fn outside_axis(&self, x: &[f32; 4]) -> Option<usize> {
        (0..3).find(|&k| {
            !self.periodic[k] && ((x[k] as f64) < self.min[k] || (x[k] as f64) > self.max[k])
        })
    }

    /// The GPU-shaped form.
    pub fn params(&self) -> DomainParams {
        let mut mask = 0;
        for k in 0..3 {
            if self.periodic[k] {
                mask |= 1 << k;
            }
        }
        DomainParams {
            min: self.min.map(|x| x as f32),
            periodic_mask: mask,
            max: self.max.map(|x| x as f32),
            _pad0: 0,
            length: [0, 1, 2].map(|k| (self.max[k] - self.min[k]) as f32),
            _pad1: 0,
        }
    }
}

/// The resolver of a neighbour-list pair of particles of these shapes (and whether each is a
/// shell node); `None` for two mesh triangles, which are fixed and never need a force from
/// each other.
pub fn neighbour_resolver(
    a: ShapeKind,
    b: ShapeKind,
    shell_a: bool,
    shell_b: bool,
) -> Option<ResolverKind> {
    use ShapeKind::{Capsule, Clump, Member, Sphere, Triangle};
    // A clump's members touch as spheres; its body touches nothing.
    let as_sphere = |k| if k == Member { Sphere } else { k };
    Some(match (as_sphere(a), as_sphere(b)) {
        (Clump, _) | (_, Clump) | (Member, _) | (_, Member) => return None,
        (Triangle, Triangle) => return None,
        (Triangle, Sphere) | (Sphere, Triangle) => ResolverKind::SphereTriangle,
        (Triangle, Capsule) | (Capsule, Triangle) => ResolverKind::CapsuleTriangle,
        (Capsule, Capsule) => ResolverKind::CapsuleCapsule,
        (Capsule, Sphere) | (Sphere, Capsule) => ResolverKind::CapsuleSphere,
        (Sphere, Sphere) if shell_a != shell_b => ResolverKind::SpherePoint,
        (Sphere, Sphere) => ResolverKind::SphereSphere,
    })
}

/// Everything a backend needs to run.
#[derive(Clone, Debug)]
pub struct World {
    pub particles: Particles,
    pub walls: Vec<Wall>,
    pub materials: Vec<Material>,
    pub interactions: Vec<Interaction>,
    /// Pairs of the fixed-topology source (particle indices), for the whole run: bonds, mesh
    /// edges. Empty unless set with [`World::with_fixed_pairs`].
    pub fixed_pairs: Vec<[u32; 2]>,
    /// The interactions of fixed pairs, by material pair (their own chains, beside the
    /// contact chains of `interactions`).
    pub fixed_interactions: Vec<Interaction>,
    /// Triangulated shells: their nodes are particles, their elements run in the shell passes.
    pub shells: crate::shells::Shells,
    /// Triangles of the mesh walls, relative to the centre of the (fixed) particle each is
    /// carried by; a triangle particle's shape record holds its index here.
    pub triangles: Vec<crate::gpu_types::Triangle>,
    /// Insertion blocks: their particles are in `particles`, dormant until inserted.
    pub insertions: Vec<crate::insert::Insertion>,
    /// Steps between insertion batches (0: no insertion).
    pub insert_every: u64,
    pub table: PairTable,
    pub domain: Domain,
    /// Gravity (m/s^2).
    pub gravity: [f64; 3],
    /// Time step (s).
    pub dt: f64,
    /// Skin of the candidate list (m).
    pub skin: f64,
    /// Speed beyond which a free particle stops a guarded run as a blow-up (m/s):
    /// [`SPEED_LIMIT_FACTOR`] times the largest impact speed the scene can produce
    /// ([`crate::timestep::expected_impact_speed`]), set by [`World::new`]; the scene parser
    /// raises it to cover what the initial overlaps can release
    /// ([`crate::overlaps::release_speed`]).
    pub speed_limit: f64,
    /// Whether a kinematic particle moves ([`Particles::kinematic_moves`] of the particles
    /// [`World::new`] was given, kept after a backend takes their velocities): the backends
    /// then book its work (`kinematic_power`) in a per-particle `kinematic_work`. A caller
    /// that gives a fixed particle a velocity after `World::new` sets it again.
    pub kinematic: bool,
}

/// How many times the largest expected impact speed a particle may reach before a guarded run
/// calls it a blow-up: energy conservation bounds every speed a passive scene can produce by
/// the expected impact speed, so 100 times it is far outside physics yet caught long before
/// positions overflow.
pub const SPEED_LIMIT_FACTOR: f64 = 100.0;

/// Largest number of broad-phase cells per particle before cells are enlarged (memory bound
/// for sparse scenes in big domains).
const MAX_CELLS_PER_PARTICLE: usize = 8;

impl World {
    /// Assemble a world; builds the pair table from the materials actually present.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        particles: Particles,
        walls: Vec<Wall>,
        materials: Vec<Material>,
        interactions: Vec<Interaction>,
        domain: Domain,
        gravity: [f64; 3],
        dt: f64,
        skin: f64,
    ) -> Result<World, CoreError> {
        if particles.is_empty() {
            return Err(CoreError::NoParticles);
        }
        let mut world = World {
            particles,
            walls,
            materials,
            interactions,
            fixed_pairs: Vec::new(),
            fixed_interactions: Vec::new(),
            shells: crate::shells::Shells::default(),
            triangles: Vec::new(),
            insertions: Vec::new(),
            insert_every: 0,
            table: PairTable::default(),
            domain,
            gravity,
            dt,
            skin,
            speed_limit: f64::INFINITY,
            kinematic: false,
        };
        world.kinematic = world.particles.kinematic_moves();
        world.speed_limit = SPEED_LIMIT_FACTOR * crate::timestep::expected_impact_speed(&world);
        world.build_table()?;
        world.grid()?;
        Ok(world)
    }

    /// This world with fixed-topology pairs (particle indices) joined by the chains of
    /// `interactions` (by material pair), in the fixed pair source: they act for the whole run,
    /// beside any contact of the same two particles.
    pub fn with_fixed_pairs(
        mut self,
        pairs: Vec<[u32; 2]>,
        interactions: Vec<Interaction>,
    ) -> Result<World, CoreError> {
        let n = self.particles.len();
        for (index, &[i, j]) in pairs.iter().enumerate() {
            if i as usize >= n || j as usize >= n || i == j {
                return Err(CoreError::BadFixedPair {
                    index,
                    i,
                    j,
                    particles: n,
                });
            }
        }
        self.fixed_pairs = pairs;
        self.fixed_interactions = interactions;
        self.build_table()?;
        self.grid()?;
        Ok(self)
    }

    /// This world with `shells`, whose nodes are already among its particles
    /// ([`crate::shells::Shells::add`]).
    pub fn with_shells(mut self, shells: crate::shells::Shells) -> Result<World, CoreError> {
        let n = self.particles.len() as u32;
        let bad = shells
            .edges
            .iter()
            .flatten()
            .chain(shells.triangles.iter().flat_map(|t| &t[..3]))
            .any(|&p| p != crate::shells::NO_NODE && p >= n);
        if bad || shells.nodes.iter().any(|&(a, c)| a + c > n) {
            return Err(CoreError::BadMesh(format!(
                "the shells name nodes beyond the {n} particles"
            )));
        }
        // Nodes are the last particles but for mesh walls' triangles (so a sphere is body 1
        // of every sphere-node pair the list evaluates), and a shell's material is its own (so
        // a material pair names one resolver).
        let n = n - self.triangle_tail() as u32;
        let nodes: u32 = shells.nodes.iter().map(|r| r.1).sum();
        let tail = n - nodes.min(n);
        let mut at = tail;
        for &(first, count) in &shells.nodes {
            if first != at {
                return Err(CoreError::BadMesh(format!(
                    "shell nodes must be the last {nodes} particles, in shell order; a shell \
                     starts at particle {first}, expected {at}"
                )));
            }
            at += count;
        }
        let p = &self.particles;
        let node_materials: std::collections::BTreeSet<u32> = p.material[tail as usize..n as usize]
            .iter()
            .copied()
            .collect();
        for k in 0..tail as usize {
            let m = p.material[k];
            if node_materials.contains(&m) {
                let name = self
                    .materials
                    .get(m as usize)
                    .map_or("", |x| x.name.as_str());
                return Err(CoreError::BadMesh(format!(
                    "material \"{name}\" is a shell's and particle {k}'s; give the shell a \
                     material of its own"
                )));
            }
        }
        self.shells = shells;
        self.speed_limit = SPEED_LIMIT_FACTOR * crate::timestep::expected_impact_speed(&self);
        self.build_table()?;
        self.grid()?;
        Ok(self)
    }

    /// How many of the last particles are mesh walls' triangles.
    pub fn triangle_tail(&self) -> usize {
        let p = &self.particles;
        // By `shape`, which a run's scene keeps when its particle arrays go to the backend.
        (0..p.shape.len())
            .rev()
            .take_while(|&i| p.shape_of(i).kind == crate::shapes::KIND_TRIANGLE)
            .count()
    }

    /// This world with the triangle table of its mesh walls, whose triangle particles are
    /// already among its particles ([`crate::mesh_walls::add_mesh_wall`]).
    pub fn with_triangles(
        mut self,
        triangles: Vec<crate::gpu_types::Triangle>,
    ) -> Result<World, CoreError> {
        let p = &self.particles;
        for i in 0..p.len() {
            let rec = p.shape_of(i);
            if rec.kind == crate::shapes::KIND_TRIANGLE
                && rec.data[0].to_bits() as usize >= triangles.len()
            {
                return Err(CoreError::BadShape(format!(
                    "particle {i} names triangle {} of a table of {}",
                    rec.data[0].to_bits(),
                    triangles.len()
                )));
            }
        }
        self.triangles = triangles;
        Ok(self)
    }

    /// The radius particle `id` takes when inserted, if it is one to insert (m).
    pub fn insertion_radius(&self, id: u32) -> Option<f32> {
        self.insertions.iter().find_map(|ins| {
            id.checked_sub(ins.first)
                .and_then(|j| ins.radii.get(j as usize).copied())
        })
    }

    /// Whether `x` (m) is inside the domain (periodic axes always are).
    pub fn domain_contains(&self, x: [f64; 3]) -> bool {
        (0..3).all(|k| {
            self.domain.periodic[k] || (x[k] >= self.domain.min[k] && x[k] <= self.domain.max[k])
        })
    }

    /// The largest radius a particle (not a mesh triangle) has or will have when inserted (m).
    pub fn largest_radius(&self) -> f32 {
        let n = self.particles.len() - self.triangle_tail();
        let now = self.particles.pos[..n]
            .iter()
            .map(|p| p[3])
            .fold(0.0f32, f32::max);
        self.insertions
            .iter()
            .flat_map(|i| i.radii.iter().copied())
            .fold(now, f32::max)
    }

    /// This world with insertion blocks, whose dormant particles are already among its
    /// particles.
    pub fn with_insertions(
        mut self,
        insertions: Vec<crate::insert::Insertion>,
    ) -> Result<World, CoreError> {
        let n = self.particles.len();
        for ins in &insertions {
            if ins.first as usize + ins.radii.len() > n {
                return Err(CoreError::BadState(format!(
                    "an insertion block names particles beyond the {n} of the world"
                )));
            }
        }
        self.insertions = insertions;
        self.speed_limit = SPEED_LIMIT_FACTOR * crate::timestep::expected_impact_speed(&self);
        self.build_table()?;
        self.grid()?;
        Ok(self)
    }

    /// Whether each particle is a shell node.
    pub fn shell_node_mask(&self) -> Vec<bool> {
        let mut m = vec![false; self.particles.len()];
        for &(first, count) in &self.shells.nodes {
            m[first as usize..(first + count) as usize].fill(true);
        }
        m
    }

    /// The kind of shape of each material's particles (`None` for a material no particle
    /// has); a material shared by two kinds is an error, because the material pair picks the
    /// resolver.
    pub fn material_shapes(&self) -> Result<Vec<Option<ShapeKind>>, CoreError> {
        let p = &self.particles;
        let mut out: Vec<Option<(ShapeKind, usize)>> = vec![None; self.materials.len()];
        for i in 0..p.len() {
            // A clump's members are its spheres; its body has no surface.
            let k = match p.shape_of(i).shape_kind() {
                Some(ShapeKind::Clump) => continue,
                Some(ShapeKind::Member) | None => ShapeKind::Sphere,
                Some(k) => k,
            };
            let Some(slot) = out.get_mut(p.material[i] as usize) else {
                continue;
            };
            match *slot {
                None => *slot = Some((k, i)),
                Some((k0, i0)) if k0 != k => {
                    let name = self
                        .materials
                        .get(p.material[i] as usize)
                        .map_or("", |m| m.name.as_str());
                    let word = |k: ShapeKind| match k {
                        ShapeKind::Sphere | ShapeKind::Member | ShapeKind::Clump => {
                            "a sphere (or a clump)"
                        }
                        ShapeKind::Capsule => "a capsule",
                        ShapeKind::Triangle => "a mesh wall's triangle",
                    };
                    return Err(CoreError::BadShape(format!(
                        "material \"{name}\" is used by {} (particle {i0}) and by {} \
                         (particle {i}); give each kind of shape a material of its own (the \
                         pair of materials picks the contact geometry)",
                        word(k0),
                        word(k)
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(out.into_iter().map(|o| o.map(|(k, _)| k)).collect())
    }

    /// The pair table of the material pairs each source meets.
    fn build_table(&mut self) -> Result<(), CoreError> {
        let (particles, materials) = (&self.particles, &self.materials);
        let (all_pairs, _) = touching_pairs(particles, &[], materials);
        // One set of wall pairs per wall kind, each with its resolver and its block of the
        // wall source's table.
        let n2 = materials.len() * materials.len();
        let wall_pairs: Vec<(u32, Vec<TouchingPair>)> = (0..WALL_KINDS as u32)
            .map(|k| {
                let of_kind: Vec<Wall> =
                    self.walls.iter().filter(|w| w.kind == k).copied().collect();
                (k, touching_pairs(particles, &of_kind, materials).1)
            })
            .collect();
        // A sphere meets a shell node through `sphere_point`; nodes meet each other, and
        // spheres each other, as spheres. Other shapes pick their resolver by the shapes of
        // the two materials (a material is one kind of shape).
        let mut shell_material = vec![false; materials.len()];
        for &(first, count) in &self.shells.nodes {
            for p in first..first + count {
                if let Some(m) = shell_material.get_mut(particles.material[p as usize] as usize) {
                    *m = true;
                }
            }
        }
        let is_shell = |m: usize| shell_material.get(m).copied().unwrap_or(false);
        let kinds = self.material_shapes()?;
        let kind = |m: usize| kinds.get(m).copied().flatten().unwrap_or(ShapeKind::Sphere);
        let mut by_resolver: std::collections::BTreeMap<ResolverKind, Vec<TouchingPair>> =
            Default::default();
        for tp in all_pairs {
            let Some(r) =
                neighbour_resolver(kind(tp.a), kind(tp.b), is_shell(tp.a), is_shell(tp.b))
            else {
                continue;
            };
            by_resolver.entry(r).or_default().push(tp);
        }
        let mut wall_sets: Vec<(u32, ResolverKind, Vec<TouchingPair>)> = Vec::new();
        for (k, pairs) in wall_pairs {
            let mut spheres = Vec::new();
            let mut capsules = Vec::new();
            for tp in pairs {
                match kind(tp.a) {
                    ShapeKind::Sphere | ShapeKind::Member => spheres.push(tp),
                    ShapeKind::Triangle | ShapeKind::Clump => {}
                    ShapeKind::Capsule if k == crate::gpu_types::WALL_PLANE => capsules.push(tp),
                    ShapeKind::Capsule => {
                        let name = materials.get(tp.a).map_or("", |m| m.name.as_str());
                        return Err(CoreError::BadShape(format!(
                            "capsules of \"{name}\" meet a {} wall, and capsules have a \
                             resolver for plane and mesh walls only; use planes (or a box) \
                             or a [[wall]] mesh",
                            ["plane", "cylinder", "disk", "cone"][k as usize]
                        )));
                    }
                }
            }
            wall_sets.push((k, ResolverKind::of_wall(k), spheres));
            if !capsules.is_empty() {
                wall_sets.push((k, ResolverKind::CapsulePlane, capsules));
            }
        }
        let fixed = fixed_touching_pairs(particles, &self.fixed_pairs, materials);
        let mut r_max = vec![0.0f64; materials.len()];
        for (p, &m) in particles.pos.iter().zip(&particles.material) {
            if let Some(r) = r_max.get_mut(m as usize) {
                *r = r.max(p[3] as f64);
            }
        }
        for ins in &self.insertions {
            for (j, &radius) in ins.radii.iter().enumerate() {
                let m = particles.material[ins.first as usize + j] as usize;
                if let Some(r) = r_max.get_mut(m) {
                    *r = r.max(radius as f64);
                }
            }
        }
        let mut sets: Vec<PairSet<'_>> = by_resolver
            .iter()
            .map(|(&resolver, pairs)| PairSet {
                source: SourceKind::Neighbour,
                resolver,
                pairs,
                interactions: &self.interactions,
                offset: 0,
            })
            .collect();
        for (k, resolver, pairs) in &wall_sets {
            sets.push(PairSet {
                source: SourceKind::Wall,
                resolver: *resolver,
                pairs,
                interactions: &self.interactions,
                offset: *k as usize * n2,
            });
        }
        sets.push(PairSet {
            source: SourceKind::Fixed,
            resolver: ResolverKind::SphereSphere,
            pairs: &fixed,
            interactions: &self.fixed_interactions,
            offset: 0,
        });
        let mut table = PairTable::build(materials, &sets, &r_max)?;
        // A fixed pair is evaluated at any distance (its laws decide where they act: a damper
        // between bonded particles acts apart too); a found pair out to its chain's range, plus
        // the skin for a chain that acts beyond touching.
        table.chain_reach = table
            .chain_range
            .iter()
            .zip(&table.chains)
            .map(|(&r, c)| match c.source {
                SourceKind::Fixed => f32::MAX,
                SourceKind::Neighbour | SourceKind::Wall if r > 0.0 => r + self.skin as f32,
                SourceKind::Neighbour | SourceKind::Wall => 0.0,
            })
            .collect();
        self.table = table;
        Ok(())
    }

    /// A 64-bit fingerprint (FNV-1a) of what makes a saved state meaningful for this world:
    /// particle count, radii and materials, walls, materials, the interaction table and its
    /// chains, domain, gravity, dt and skin. Initial positions and velocities are left out:
    /// a checkpoint replaces them.
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= *b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        eat(&(self.particles.len() as u64).to_le_bytes());
        for (p, m) in self.particles.pos.iter().zip(&self.particles.material) {
            eat(&p[3].to_le_bytes());
            eat(&m.to_le_bytes());
        }
        eat(bytemuck::cast_slice(&self.walls));
        eat(bytemuck::cast_slice(&self.particles.shape));
        eat(bytemuck::cast_slice(&self.particles.shape_table()));
        eat(bytemuck::cast_slice(&self.triangles));
        for m in &self.materials {
            for x in [m.density, m.young, m.poisson] {
                eat(&x.to_le_bytes());
            }
        }
        eat(bytemuck::cast_slice(&self.table.params));
        eat(&(self.table.params_stride as u64).to_le_bytes());
        eat(bytemuck::cast_slice(&self.table.sphere_chain));
        eat(bytemuck::cast_slice(&self.table.wall_chain));
        eat(bytemuck::cast_slice(&self.table.fixed_chain));
        eat(bytemuck::cast_slice(&self.fixed_pairs));
        let sh = &self.shells;
        eat(bytemuck::cast_slice(&sh.edges));
        eat(bytemuck::cast_slice(&sh.edge_params));
        eat(bytemuck::cast_slice(&sh.triangles));
        eat(bytemuck::cast_slice(&sh.shells));
        for ins in &self.insertions {
            eat(&ins.first.to_le_bytes());
            eat(bytemuck::cast_slice(&ins.radii));
            for x in [ins.start, ins.rate] {
                eat(&x.to_le_bytes());
            }
            eat(&ins.seed.to_le_bytes());
            eat(format!("{:?}{:?}", ins.region, ins.velocity).as_bytes());
        }
        eat(&self.insert_every.to_le_bytes());
        for c in &self.table.chains {
            eat(c.name().as_bytes());
        }
        for k in 0..3 {
            for x in [self.domain.min[k], self.domain.max[k], self.gravity[k]] {
                eat(&x.to_le_bytes());
            }
            eat(&[self.domain.periodic[k] as u8]);
        }
        eat(&self.dt.to_le_bytes());
        eat(&self.skin.to_le_bytes());
        h
    }

    /// Largest interaction range (m) of the chains the broad phase serves: fixed pairs are
    /// never found by the hash, so their range (a bond's rupture length) does not widen it.
    pub fn interaction_range(&self) -> f32 {
        self.table
            .chains
            .iter()
            .zip(&self.table.chain_range)
            .filter(|(c, _)| c.source != SourceKind::Fixed)
            .map(|(_, &r)| r)
            .fold(0.0, f32::max)
    }

    /// Step constants.
    pub fn step_params(&self) -> StepParams {
        StepParams {
            gravity: self.gravity.map(|g| g as f32),
            dt: self.dt as f32,
            n_particles: self.particles.len() as u32,
            n_walls: self.walls.len() as u32,
            n_materials: self.materials.len() as u32,
            skin: self.skin as f32,
            unit: 1.0,
            nbr_history_stride: self.table.nbr_history_stride as u32,
            n_fixed: self.fixed_pairs.len() as u32,
            max_speed: self.speed_limit as f32,
            own_sums: self.table.chains.iter().any(|c| c.source.in_list()) as u32,
            ..StepParams::default()
        }
    }

    /// The broad-phase grid: cells at least (largest diameter + skin + range) wide, fitted to
    /// the domain, at least 3 per periodic axis.
    pub fn grid(&self) -> Result<GridParams, CoreError> {
        if self.particles.pos.len() != self.particles.len() {
            return Err(CoreError::BadState(format!(
                "the world holds {} positions for {} particles: a CPU backend's own world gave \
                 its positions to the backend; build a backend from the scene's world, or from a \
                 state",
                self.particles.pos.len(),
                self.particles.len()
            )));
        }
        // Two mesh triangles are never candidates: cells must hold two particles, or a particle
        // and a triangle, within reach.
        let tail = self.triangle_tail();
        let n = self.particles.len() - tail;
        let rtri = self.particles.pos[n..]
            .iter()
            .map(|p| p[3])
            .fold(0.0f32, f32::max);
        let rmax = self.largest_radius();
        let cutoff = self.skin as f32 + self.interaction_range();
        // No particle with a size (every one dormant) and no skin: any cell will do.
        let mut want = ((2.0 * rmax).max(rmax + rtri) + cutoff).max(f32::MIN_POSITIVE.sqrt());
        let d = self.domain.params();
        loop {
            let mut dims = [1u32; 3];
            let mut size = [0f32; 3];
            for k in 0..3 {
                let l = d.length[k];
                let n = ((l / want).floor() as u32).max(1);
                if self.domain.periodic[k] && n < 3 {
                    return Err(CoreError::PeriodicAxisTooShort {
                        axis: ['x', 'y', 'z'][k],
                        length: l,
                        cell: want,
                        min: 3.0 * want,
                    });
                }
                dims[k] = n;
                size[k] = l / n as f32;
            }
            let n_cells = dims.iter().map(|&x| x as usize).product::<usize>();
            if n_cells > MAX_CELLS_PER_PARTICLE * self.particles.len() + 1024 {
                want *= 1.25;
                continue;
            }
            return Ok(GridParams {
                origin: d.min,
                cutoff,
                cell_size: size,
                n_cells: n_cells as u32,
                dims,
                periodic_mask: d.periodic_mask,
            });
        }
    }
}

/// The material pairs that can touch, and why: two particles of one material when it has at
/// least two, particles of two materials when both have some, and each particle material with
/// each wall material. A material with a single particle needs no interaction with itself.
pub fn touching_pairs(
    particles: &Particles,
    walls: &[Wall],
    materials: &[Material],
) -> (Vec<TouchingPair>, Vec<TouchingPair>) {
    let mut count = vec![0usize; materials.len()];
    for &m in &particles.material {
        if let Some(c) = count.get_mut(m as usize) {
            *c += 1;
        }
    }
    let name = |k: usize| materials.get(k).map(|m| m.name.as_str()).unwrap_or("");
    let mut spheres = Vec::new();
    for a in 0..count.len() {
        for b in a..count.len() {
            let why = if a == b && count[a] >= 2 {
                format!("{} particles of \"{}\"", count[a], name(a))
            } else if a != b && count[a] > 0 && count[b] > 0 {
                format!("particles of \"{}\" and of \"{}\"", name(a), name(b))
            } else {
                continue;
            };
            spheres.push(TouchingPair { a, b, why });
        }
    }
    let mut wall_mats: Vec<usize> = walls.iter().map(|w| w.material as usize).collect();
    wall_mats.sort_unstable();
    wall_mats.dedup();
    let mut on_walls = Vec::new();
    for (a, &c) in count.iter().enumerate() {
        if c == 0 {
            continue;
        }
        for &w in &wall_mats {
            let why = format!("particles of \"{}\" and a wall of \"{}\"", name(a), name(w));
            on_walls.push(TouchingPair { a, b: w, why });
        }
    }
    (spheres, on_walls)
}

/// The material pairs the fixed pairs join, each once, with the first pair that joins them.
pub fn fixed_touching_pairs(
    particles: &Particles,
    fixed_pairs: &[[u32; 2]],
    materials: &[Material],
) -> Vec<TouchingPair> {
    let name = |k: usize| materials.get(k).map(|m| m.name.as_str()).unwrap_or("");
    let mut out: Vec<TouchingPair> = Vec::new();
    for &[i, j] in fixed_pairs {
        let (a, b) = (
            particles.material[i as usize] as usize,
            particles.material[j as usize] as usize,
        );
        let (a, b) = (a.min(b), a.max(b));
        if out.iter().any(|t| (t.a, t.b) == (a, b)) {
            continue;
        }
        let why = format!(
            "the fixed pair of particles {i} (\"{}\") and {j} (\"{}\")",
            name(a),
            name(b)
        );
        out.push(TouchingPair { a, b, why });
    }
    out
}
