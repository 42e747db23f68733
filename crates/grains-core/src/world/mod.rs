//! The world to simulate: particles (structure of arrays, vec4-sized fields), walls, domain,
//! materials and the interaction table. Both backends start from a [`World`].

use crate::error::CoreError;
use crate::kernel_types::{GridParams, StepParams, Wall};
use crate::kernels::sources::SourceKind;
use crate::kernels::walls::WALL_KINDS;
use crate::material::Material;
use crate::materials::{Interaction, PairSet, PairTable, TouchingPair};
use crate::registry::ResolverKind;
use crate::shapes::ShapeKind;

mod domain;
mod grid;
mod pair_table;
mod particles;

pub use domain::Domain;
pub use pair_table::{fixed_touching_pairs, neighbour_resolver, touching_pairs};
pub use particles::Particles;

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
    pub triangles: Vec<crate::kernel_types::Triangle>,
    /// The mesh walls as bodies: their records (after `walls` in a backend's walls), where
    /// each triangle sits in its body, conveyors and tables of poses.
    pub meshes: crate::mesh_walls::MeshBodies,
    /// Servo walls: walls whose velocity is set to hold a load ([`crate::servo`]).
    pub servos: Vec<crate::servo::Servo>,
    /// Insertion blocks: their particles are in `particles`, dormant until inserted.
    pub insertions: Vec<crate::insert::Insertion>,
    /// Steps between insertion batches (0: no insertion).
    pub insert_every: u64,
    /// A `[[cells]]` block: its cells divide into its pool's division pairs ([`crate::cells`]).
    pub cells: Option<crate::cells::CellCycle>,
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
    /// that gives a fixed particle a velocity after `World::new` sets it again, and one that
    /// fixes particles between steps ([`crate::Backend::set_fixed`], which a world without it
    /// refuses) sets it before building the backend, from a state of the same world.
    pub kinematic: bool,
    /// Whether the backends hold an applied force per particle (`applied_force`, set between
    /// steps by [`crate::Backend::apply_forces`]), which joins the particle's gathered force
    /// every step and whose work is booked in `kinematic_work` (`applied_power`). Off by
    /// default: a world without it holds no such array and runs no such pass. A caller turns
    /// it on before building a backend, from a state of the same world taken without it (whose
    /// empty `applied_force` is taken up as zeros).
    pub applied_forces: bool,
    /// Whether the world is planar (`[domain] dimensions = 2`): every particle stays in the
    /// plane z = 0, moving in x and y and turning about z only, as spheres constrained to a
    /// plane (each keeps its sphere's mass and inertia). The kicks drop what would leave the
    /// plane ([`crate::kernels::passes::integrate_second_half::velocity_kick`]) and the grid
    /// has one layer of cells.
    pub planar: bool,
    /// The dynamics mode and the implicit solve's settings ([`World::with_dynamics`]).
    pub dynamics: crate::dynamics::Dynamics,
}

/// How many times the largest expected impact speed a particle may reach before a guarded run
/// calls it a blow-up: energy conservation bounds every speed a passive scene can produce by
/// the expected impact speed, so 100 times it is far outside physics yet caught long before
/// positions overflow.
pub const SPEED_LIMIT_FACTOR: f64 = 100.0;

impl World {
    /// In an implicit world, the shells' edge viscosity (Mpacts N_T_ShellViscosity) becomes a
    /// matrix element: each edge's `Gamma` is taken out of the edge's parameters (so the shell
    /// pass exerts no explicit dashpot) and returned, per edge, for the solve, which takes it
    /// as the block `Gamma I` between the edge's two nodes. Empty otherwise. Both backends
    /// call it once, on their own world.
    pub fn shell_viscosity_to_matrix(&mut self) -> Vec<f32> {
        if !self.dynamics.implicit() || self.shells.is_empty() {
            return Vec::new();
        }
        self.shells
            .edge_params
            .iter_mut()
            .map(|p| std::mem::take(&mut p.viscosity))
            .collect()
    }

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
        let shells = crate::shells::Shells::default();
        let parts = (particles, walls, materials, interactions);
        World::new_with_shells(parts, domain, gravity, dt, skin, shells)
    }

    /// [`World::new`] with its shells and rings ([`World::with_shells`]) from the start, so
    /// that the pair table is built once knowing them: nodes of rings with node-to-segment
    /// contact need no interaction between their materials.
    pub fn new_with_shells(
        (particles, walls, materials, interactions): (
            Particles,
            Vec<Wall>,
            Vec<Material>,
            Vec<Interaction>,
        ),
        domain: Domain,
        gravity: [f64; 3],
        dt: f64,
        skin: f64,
        shells: crate::shells::Shells,
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
            meshes: Default::default(),
            servos: Vec::new(),
            insertions: Vec::new(),
            insert_every: 0,
            cells: None,
            table: PairTable::default(),
            domain,
            gravity,
            dt,
            skin,
            speed_limit: f64::INFINITY,
            kinematic: false,
            applied_forces: false,
            planar: false,
            dynamics: crate::dynamics::Dynamics::default(),
        };
        world.kinematic = world.particles.kinematic_moves();
        if !shells.is_empty() {
            return world.with_shells(shells);
        }
        world.speed_limit = SPEED_LIMIT_FACTOR * crate::timestep::expected_impact_speed(&world);
        world.build_table()?;
        world.grid()?;
        Ok(world)
    }

    /// This world in dynamics mode `dynamics`: in an implicit mode every chain ends with the
    /// contact matrix's assembly (`contact_matrix`), so the table is built again.
    pub fn with_dynamics(
        mut self,
        dynamics: crate::dynamics::Dynamics,
    ) -> Result<World, CoreError> {
        self.dynamics = dynamics;
        self.build_table()?;
        Ok(self)
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

    /// Each fixed pair's flag at the start: on (1), but a division pair's, off until its cell
    /// divides ([`crate::kernels::sources::fixed::FIXED_OFF`]).
    pub fn fixed_active_start(&self) -> Vec<u32> {
        let mut a = vec![1u32; self.fixed_pairs.len()];
        if let Some(c) = &self.cells {
            let k = c.first_pair as usize;
            a[k..k + c.pairs as usize].fill(crate::kernels::sources::fixed::FIXED_OFF);
        }
        a
    }

    /// This world with a `[[cells]]` block, whose pool's particles and fixed pairs (after any
    /// bonds') are already its own: each pool particle of the cells' material, each pair
    /// `(first + 2k, first + 2k + 1)` at `first_pair + k`.
    pub fn with_cells(mut self, cycle: crate::cells::CellCycle) -> Result<World, CoreError> {
        let n = self.particles.len();
        let end = cycle.first as usize + 2 * cycle.pairs as usize;
        let pairs_end = cycle.first_pair as usize + cycle.pairs as usize;
        let placed = end <= n
            && pairs_end <= self.fixed_pairs.len()
            && cycle.first > 0
            && self.fixed_pairs[cycle.first_pair as usize..pairs_end] == cycle.fixed_pairs()[..];
        if !placed {
            return Err(CoreError::BadState(format!(
                "the division pool (particles {} to {end}, fixed pairs {} to {pairs_end}) is not                  among the world's {n} particles and {} fixed pairs",
                cycle.first,
                cycle.first_pair,
                self.fixed_pairs.len()
            )));
        }
        self.cells = Some(cycle);
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
    /// already among its particles, the last of them, in the table's order, and their bodies
    /// ([`crate::mesh_walls::add_mesh_wall`]).
    pub fn with_triangles(
        mut self,
        triangles: Vec<crate::kernel_types::Triangle>,
        meshes: crate::mesh_walls::MeshBodies,
    ) -> Result<World, CoreError> {
        let p = &self.particles;
        let bad = |what: String| Err(CoreError::BadShape(what));
        let first = p.len() - self.triangle_tail();
        if p.len() - first != triangles.len() || meshes.home.len() != triangles.len() {
            return bad(format!(
                "{} triangle particles close the particles, for a table of {} triangles and {} \
                 places in their bodies",
                p.len() - first,
                triangles.len(),
                meshes.home.len()
            ));
        }
        for i in 0..p.len() {
            let rec = p.shape_of(i);
            if rec.kind == crate::shapes::KIND_TRIANGLE
                && rec.data[0].to_bits() as usize != i.wrapping_sub(first)
            {
                return bad(format!(
                    "particle {i} names triangle {} of a table whose particles start at {first}",
                    rec.data[0].to_bits(),
                ));
            }
        }
        if let Some(t) = triangles
            .iter()
            .position(|t| t.body as usize >= meshes.bodies.len())
        {
            return bad(format!(
                "triangle {t} names body {} of {}",
                triangles[t].body,
                meshes.bodies.len()
            ));
        }
        for b in &meshes.bodies {
            if (b.table_start + b.table_rows) as usize > meshes.poses.len() {
                return bad("a mesh wall's table of poses runs past the world's".into());
            }
        }
        self.triangles = triangles;
        self.kinematic |= meshes.move_any();
        self.meshes = meshes;
        // A moving mesh's surface is as fast as a moving wall's.
        let limit = SPEED_LIMIT_FACTOR * crate::timestep::expected_impact_speed(&self);
        self.speed_limit = self.speed_limit.max(limit);
        Ok(self)
    }

    /// Whether the backends book work done on the particles from outside the contacts, per
    /// particle in `kinematic_work`: by kinematic particles that move ([`World::kinematic`])
    /// or by applied forces ([`World::applied_forces`]).
    pub fn books_particle_work(&self) -> bool {
        self.kinematic || self.applied_forces
    }

    /// The records a backend's walls array holds: the analytic walls, then the mesh walls'
    /// bodies.
    pub fn wall_records(&self) -> Vec<Wall> {
        let mut out = self.walls.clone();
        out.extend_from_slice(&self.meshes.bodies);
        out
    }

    /// Whether a run logs the walls' loads (`walls.csv`): where a wall moves or a mesh wall
    /// is, one row a wall and mesh wall, in [`World::wall_records`]' order.
    pub fn logs_wall_loads(&self) -> bool {
        self.walls_move() || !self.meshes.bodies.is_empty()
    }

    /// Whether any record of [`World::wall_records`] moves: the walls' motion pass then runs.
    pub fn walls_move(&self) -> bool {
        self.walls
            .iter()
            .chain(&self.meshes.bodies)
            .any(|w| w.moves())
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
        let meshes = &self.meshes;
        eat(bytemuck::cast_slice(&meshes.bodies));
        eat(bytemuck::cast_slice(&meshes.conveyor));
        eat(bytemuck::cast_slice(&meshes.home));
        eat(bytemuck::cast_slice(&meshes.poses));
        if !self.servos.is_empty() {
            eat(format!("{:?}", self.servos).as_bytes());
        }
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
        eat(&[self.planar as u8]);
        let d = &self.dynamics;
        eat(d.mode.keyword().as_bytes());
        for x in [d.implicitness, d.tolerance] {
            eat(&x.to_le_bytes());
        }
        eat(&d.max_iterations.to_le_bytes());
        h
    }

    /// Largest interaction range (m) of the chains the broad phase serves, and of
    /// node-to-segment contact between rings ([`crate::shells::Shells::surface_range`]): fixed
    /// pairs are never found by the hash, so their range (a bond's rupture length) does not
    /// widen it.
    pub fn interaction_range(&self) -> f32 {
        self.table
            .chains
            .iter()
            .zip(&self.table.chain_range)
            .filter(|(c, _)| c.source != SourceKind::Fixed)
            .map(|(_, &r)| r)
            .fold(self.shells.surface_range(&self.particles), f32::max)
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
            planar: self.planar as u32,
            n_bodies: self.meshes.bodies.len() as u32,
            n_triangles: self.triangles.len() as u32,
            division_first: self.cells.as_ref().map_or(0, |c| c.first),
            division_pairs: self.cells.as_ref().map_or(0, |c| c.first_pair),
            kick: if self.dynamics.implicit() {
                0.0
            } else {
                0.5 * self.dt as f32
            },
            ..StepParams::default()
        }
    }
}
