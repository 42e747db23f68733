//! From scene text to a [`World`]: read every section with its key paths, in order
//! ([`crate::sections`]), run the checks that need several sections ([`crate::checks`]), then
//! let grains-core assemble the world and settle what depends on it (an automatic time step,
//! the run length in steps, output intervals).
//!
//! The order is part of the format's behaviour: a scene with several mistakes is refused at
//! the first one met in this order.

use std::ops::Range;
use std::path::{Path, PathBuf};

use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::overlaps::OverlapReport;
use grains_core::shells::Shells;
use grains_core::timestep::{timestep_report, TimestepReport};
use grains_core::{CoreError, Domain, Particles, World};
use toml::de::DeTable;

use crate::checks::{Bondable, MaterialUses};
use crate::error::SceneError;
use crate::sections::bond::Bonds;
use crate::sections::insert::InsertBlock;
use crate::sections::simulation::Simulation;
use crate::sections::wall::Walls;
use crate::sections::{
    bond, domain, insert, interaction, material, output, particles, shell, simulation, wall,
};
use crate::walk::{Ctx, Table};
use crate::BackendChoice;

/// The top-level keys of a scene: one per section.
const SECTIONS: [&str; 13] = [
    "simulation",
    "domain",
    "initial",
    "material",
    "particles",
    "wall",
    "interaction",
    "bond",
    "shell",
    "ring",
    "insert",
    "cells",
    "output",
];

/// Everything `parse_scene` needs to build a `Scene`.
pub(crate) struct Parsed {
    pub world: World,
    pub timestep: TimestepReport,
    pub dt_auto: bool,
    pub steps: u64,
    pub backend: BackendChoice,
    pub dir: PathBuf,
    pub every_steps: Option<u64>,
    pub checkpoint_every_steps: Option<u64>,
    pub vtk: bool,
    pub csv: bool,
    pub contacts: bool,
    pub energy: bool,
    /// The `stress` format's region (the domain unless `stress_region` says otherwise); `None`
    /// without the format.
    pub stress: Option<[[f64; 3]; 2]>,
    pub max_initial_overlap: f64,
    pub lost: crate::LostParticles,
    pub overlaps: OverlapReport,
    /// What the scene holds that it should be told about (located, as errors).
    pub warnings: Vec<String>,
    /// Where the keys that checks after parsing name are.
    pub places: crate::Places,
    /// `[[wall]]` blocks.
    pub wall_blocks: usize,
    /// The earlier run the scene starts from.
    pub initial: Option<crate::sections::initial::Initial>,
}

/// What the sections from `[domain]` to `[[bond]]` build, checked against each other: the
/// parts of the world.
struct Parts {
    domain: Domain,
    /// Whether `[domain] dimensions = 2`.
    planar: bool,
    /// The `[domain]` table's span, where errors of the world as a whole point.
    domain_span: Range<usize>,
    materials: Vec<Material>,
    /// Every particle: the `[[particles]]` blocks', the `[[insert]]` blocks' dormant ones,
    /// the shells' nodes, then the mesh walls' triangles.
    particles: Particles,
    inserts: Vec<InsertBlock>,
    /// The `[[cells]]` block, whose pool follows the insertion blocks' particles.
    cells: Option<crate::sections::cells::CellsBlock>,
    shells: Shells,
    walls: Walls,
    interactions: Vec<Interaction>,
    bonds: Bonds,
    /// The earlier run the scene starts from (`[initial] from`), whose spheres are the first
    /// particles.
    initial: Option<crate::sections::initial::Initial>,
}

pub(crate) fn parse(
    text: &str,
    path: &Path,
    memory: Option<&crate::MemoryBudget>,
) -> Result<Parsed, SceneError> {
    let ctx = Ctx {
        file: path,
        src: text,
        memory,
        warnings: Default::default(),
        planar: Default::default(),
        materials: Default::default(),
    };
    let root = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        ctx.err(&span, "", format!("TOML syntax error: {}", e.message()))
    })?;
    let root_span = root.span();
    let root = Table {
        ctx: &ctx,
        t: root.get_ref(),
        span: root_span,
        path: String::new(),
    };
    root.deny_unknown(&SECTIONS)?;
    let sim = simulation::read(&ctx, &root)?;
    let mut parts = read_parts(&ctx, &root)?;
    let initial = parts.initial.take();
    let (mut world, timestep, overlaps) = build_world(&ctx, &sim, parts)?;
    crate::checks::dynamics_scene(&ctx, &root, &sim, &world)?;
    let steps = sim.steps(&ctx, world.dt)?;
    let output = output::read(&ctx, &root)?;
    let every_steps = output.every.map(|e| e.steps(world.dt));
    let checkpoint_every_steps = output.checkpoint_every.map(|e| e.steps(world.dt));
    world.particles.shrink_to_fit();
    let places = places(&ctx, &root)?;
    let wall_blocks = match root.get("wall") {
        Some(v) => ctx.tables(v, "wall")?.len(),
        None => 0,
    };

    let domain = [world.domain.min, world.domain.max];
    let stress = output
        .stress
        .then(|| output.stress_region.unwrap_or(domain));
    Ok(Parsed {
        world,
        timestep,
        dt_auto: sim.dt_given.is_none(),
        steps,
        backend: sim.backend,
        dir: output.dir,
        every_steps,
        checkpoint_every_steps,
        vtk: output.vtk,
        csv: output.csv,
        contacts: output.contacts,
        energy: output.energy,
        stress,
        max_initial_overlap: sim.max_initial_overlap,
        lost: sim.lost,
        overlaps,
        warnings: ctx.warnings.take(),
        places,
        wall_blocks,
        initial,
    })
}

/// `file:line:column: key` of what the checks after parsing name: each material's `young`
/// and each `[[insert]]` block's region.
fn places(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<crate::Places, SceneError> {
    let at = |span: std::ops::Range<usize>, key: String| {
        let (line, column) = ctx.line_col(span.start);
        format!("{}:{line}:{column}: {key}", ctx.file.display())
    };
    let mut places = crate::Places::default();
    if let Some(v) = root.get("material") {
        for m in ctx.tables(v, "material")? {
            places.young.push(at(m.key_span("young"), m.key("young")));
        }
    }
    if let Some(v) = root.get("insert") {
        for b in ctx.tables(v, "insert")? {
            let k = if b.get("cylinder").is_some() {
                "cylinder"
            } else {
                "box"
            };
            places.inserts.push(at(b.key_span(k), b.key(k)));
        }
    }
    Ok(places)
}

/// Read the sections that build the world, each checked against those before it.
fn read_parts(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<Parts, SceneError> {
    let domain::DomainSection {
        domain,
        span: domain_span,
        planar,
    } = domain::read(ctx, root)?;
    ctx.planar.set(planar.is_some());
    let materials = material::read(ctx, root)?;
    *ctx.materials.borrow_mut() = materials.iter().map(|m| m.name.clone()).collect();
    let mut particles = Particles::default();
    let mut uses = MaterialUses::new(materials.len());
    let initial = crate::sections::initial::read(ctx, root, &materials, &mut particles, &mut uses)?;
    particles::read(ctx, root, &domain, &materials, &mut particles, &mut uses)?;
    // [[insert]]: dormant particles after the [[particles]] blocks; then [[shell]] and
    // [[ring]], whose nodes are the last particles.
    let inserts = insert::read(ctx, root, &materials, &domain, &mut particles)?;
    let cells = crate::sections::cells::read(ctx, root, &materials, &domain, &mut particles)?;
    let mut shells = shell::read(ctx, root, &materials, &domain, &mut particles)?;
    let shell_blocks = !shells.is_empty();
    crate::sections::ring::read(ctx, root, &materials, &domain, &mut shells, &mut particles)?;
    uses.note_blocks(ctx, root, &materials, &["insert", "shell", "ring"])?;

    let walls = wall::read(ctx, root, &materials, &domain, &inserts, &mut particles)?;
    crate::checks::particles_in_front_of_walls(ctx, &walls, &particles)?;

    let interactions = interaction::read(ctx, root, &materials)?;
    crate::checks::touching_materials_have_interactions(
        ctx,
        root,
        &materials,
        &interactions,
        &uses,
        &walls.materials_used,
        &particles.material,
        &grains_core::shells::surface_only_materials(&shells, &particles.material, materials.len()),
    )?;

    let inserted: Vec<(u32, usize)> = inserts
        .iter()
        .map(|b| (b.insertion.first, b.insertion.radii.len()))
        .collect();
    let bondable = Bondable {
        particles: &particles,
        inserted: &inserted,
    };
    let bonds = bond::read(ctx, root, &bondable, &domain, &materials)?;
    if let Some(span) = &planar {
        let blocks = crate::checks::PlanarBlocks {
            inserts: !inserts.is_empty(),
            shells: shell_blocks,
            meshes: walls.first_triangle.is_some(),
        };
        crate::checks::planar_scene(ctx, root, span, &particles, blocks)?;
    }
    Ok(Parts {
        domain,
        domain_span,
        planar: planar.is_some(),
        materials,
        particles,
        inserts,
        cells,
        shells,
        walls,
        interactions,
        bonds,
        initial,
    })
}

/// The world, its time step settled (given, or chosen from the world itself), with the
/// time-step report and the overlaps it starts with.
fn build_world(
    ctx: &Ctx<'_>,
    sim: &Simulation,
    parts: Parts,
) -> Result<(World, TimestepReport, OverlapReport), SceneError> {
    let core_err = |span: &Range<usize>, key: &str, err: CoreError| {
        let (line, column) = ctx.line_col(span.start);
        SceneError::Core {
            file: ctx.file.to_path_buf(),
            line,
            column,
            key: key.to_string(),
            err,
        }
    };
    let domain_err = |e: CoreError| core_err(&parts.domain_span, "domain", e);
    // Mesh triangles are walls: the skin is sized by the particles.
    let rmax = parts
        .walls
        .movable(&parts.particles)
        .iter()
        .map(|p| p[3] as f64)
        .chain(
            parts
                .inserts
                .iter()
                .flat_map(|b| b.insertion.radii.iter().map(|&r| r as f64)),
        )
        .fold(0.0, f64::max);
    let skin = sim.skin.unwrap_or(0.5 * rmax);
    // A provisional dt when it is to be chosen from the world itself.
    let mut world = World::new_with_shells(
        (
            parts.particles,
            parts.walls.walls,
            parts.materials,
            parts.interactions,
        ),
        parts.domain,
        sim.gravity,
        sim.dt_given.unwrap_or(1.0),
        skin,
        parts.shells,
    )
    .map_err(domain_err)?;
    world.planar = parts.planar;
    if sim.dynamics.implicit() {
        world = world
            .with_dynamics(sim.dynamics)
            .map_err(|e| core_err(&sim.dynamics_span, "simulation.dynamics", e))?;
    }
    world
        .particles
        .set_sphere_orientation(sim.sphere_orientation);
    let mut bonds = parts.bonds;
    let cells = parts.cells.map(|mut c| {
        c.cycle.first_pair = bonds.pairs.len() as u32;
        bonds.pairs.extend(c.cycle.fixed_pairs());
        c
    });
    if let Some(c) = &cells {
        crate::sections::cells::apart_from_bonds(ctx, c, &bonds.interactions)?;
        bonds.interactions.push(c.interaction.clone());
    }
    if !bonds.pairs.is_empty() {
        world = world
            .with_fixed_pairs(bonds.pairs, bonds.interactions)
            .map_err(|e| core_err(&bonds.span, "bond", e))?;
    }
    if let Some(c) = cells {
        world = world
            .with_cells(c.cycle)
            .map_err(|e| core_err(&c.span, "cells", e))?;
    }
    if !parts.walls.triangles.is_empty() {
        world = world
            .with_triangles(parts.walls.triangles, parts.walls.meshes)
            .map_err(domain_err)?;
    }
    world.servos = parts.walls.servos;
    let insert_every = parts
        .inserts
        .iter()
        .map(|b| b.every)
        .fold(f64::INFINITY, f64::min);
    if !parts.inserts.is_empty() {
        world = world
            .with_insertions(parts.inserts.into_iter().map(|b| b.insertion).collect())
            .map_err(domain_err)?;
    }
    let timestep = timestep_report(&world);
    let dt = sim.time_step(ctx, timestep.auto_dt)?;
    world.dt = dt;
    // Scripted blocks alone ask for no batches.
    if insert_every.is_finite() {
        world.insert_every = ((insert_every / dt).round() as u64).max(1);
    }
    // What the initial overlaps can release counts among the speeds the scene can produce: a
    // packing started slightly overlapped must not trip the guard as a blow-up.
    let overlaps = grains_core::overlaps::initial_overlaps(&world);
    if let Some(w) = overlaps.worst {
        let v = grains_core::overlaps::release_speed(&world, &w);
        world.speed_limit = world
            .speed_limit
            .max(grains_core::world::SPEED_LIMIT_FACTOR * v);
    }
    Ok((world, timestep, overlaps))
}
