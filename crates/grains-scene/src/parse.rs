//! From scene text to a [`World`]: read every section with its key paths, check it, generate
//! the particles, then let grains-core assemble the world.

use std::ops::Range;
use std::path::{Path, PathBuf};

use grains_core::materials::{Interaction, Material};
use grains_core::timestep::{timestep_report, TimestepReport};
use grains_core::units::qty;
use grains_core::{CoreError, Domain, LawKind, LawSpec, Particles, Slot, World};
use toml::de::DeTable;

use crate::checks::MaterialUses;
use crate::error::SceneError;
use crate::law_keys::SlotKeys;
use crate::messages::MaxByStart;
use crate::sections::material::material_of;
use crate::walk::{Ctx, Table, Value};
use crate::BackendChoice;

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
    pub max_initial_overlap: f64,
    pub lost: crate::LostParticles,
    pub overlaps: grains_core::overlaps::OverlapReport,
    /// What the scene holds that it should be told about (located, as errors).
    pub warnings: Vec<String>,
}

enum Every {
    Seconds(f64),
    Steps(u64),
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
    root.deny_unknown(&[
        "simulation",
        "domain",
        "material",
        "particles",
        "wall",
        "interaction",
        "bond",
        "shell",
        "insert",
        "output",
    ])?;

    let sim = crate::sections::simulation::read(&ctx, &root)?;
    let (domain, domain_span) = crate::sections::domain::read(&ctx, &root)?;
    let materials = crate::sections::material::read(&ctx, &root)?;
    let material_index = |v: &Value<'_>, key: &str| -> Result<usize, SceneError> {
        material_of(&ctx, &materials, v, key)
    };
    let mut particles = Particles::default();
    let mut uses = MaterialUses::new(materials.len());
    crate::sections::particles::read(&ctx, &root, &domain, &materials, &mut particles, &mut uses)?;
    // [[insert]]: dormant particles after the [[particles]] blocks; then [[shell]], whose
    // nodes are the last particles.
    let inserts =
        crate::sections::insert::parse_inserts(&ctx, &root, &materials, &domain, &mut particles)?;
    let shells =
        crate::sections::shell::parse_shells(&ctx, &root, &materials, &domain, &mut particles)?;
    uses.note_blocks(&ctx, &root, &materials, &["insert", "shell"])?;

    let walls = crate::sections::wall::read(&ctx, &root, &materials, &inserts, &mut particles)?;
    crate::checks::particles_in_front_of_walls(&ctx, &walls, &particles)?;

    // [[interaction]]
    let mut interactions: Vec<Interaction> = Vec::new();
    let mut interaction_lines: Vec<usize> = Vec::new();
    if let Some(v) = root.get("interaction") {
        for it in ctx.tables(v, "interaction")? {
            it.deny_unknown(&[
                "between",
                "normal",
                "damping",
                "tangential",
                "rolling",
                "twisting",
                "extra",
            ])?;
            for slot in Slot::ALL {
                reserved_slot(&ctx, &it, slot)?;
            }
            let bv = it.req("between", "[\"material\", \"material\"]")?;
            let what = "two material names [\"a\", \"b\"]";
            let pair = ctx.array(bv, &it.key("between"), what)?;
            if pair.len() != 2 {
                return Err(ctx.err(
                    &bv.span(),
                    &it.key("between"),
                    format!("expected {what}, found {} element(s)", pair.len()),
                ));
            }
            let mut idx = [0usize; 2];
            for (k, (x, o)) in pair.iter().zip(idx.iter_mut()).enumerate() {
                *o = material_index(x, &format!("{}[{k}]", it.key("between")))?;
            }
            let (a, b) = (idx[0], idx[1]);
            if let Some(k) = interactions
                .iter()
                .position(|i| i.between == (a, b) || i.between == (b, a))
            {
                return Err(ctx.err(
                    &bv.span(),
                    &it.key("between"),
                    format!(
                        "a second [[interaction]] between \"{}\" and \"{}\"; interaction[{k}] (line {}) already defines it",
                        materials.get(a).map(|m| m.name.as_str()).unwrap_or(""),
                        materials.get(b).map(|m| m.name.as_str()).unwrap_or(""),
                        interaction_lines.get(k).copied().unwrap_or(0)
                    ),
                ));
            }
            let mut laws = Vec::new();
            for slot in Slot::ALL {
                laws.extend(slot_laws(&ctx, &it, slot)?);
            }
            interactions.push(Interaction::new(a, b, laws));
            interaction_lines.push(ctx.line_col(it.span.start).0);
        }
    }

    crate::checks::touching_materials_have_interactions(
        &ctx,
        &root,
        &materials,
        &interactions,
        &uses,
        &walls.materials_used,
        &particles.material,
    )?;

    // [[bond]]
    let inserted: Vec<(u32, usize)> = inserts
        .iter()
        .map(|b| (b.insertion.first, b.insertion.radii.len()))
        .collect();
    let (bond_pairs, bond_interactions, bond_span) = parse_bonds(
        &ctx,
        &root,
        &Bondable {
            particles: &particles,
            inserted: &inserted,
        },
        &domain,
        &materials,
    )?;

    // The world, with a provisional dt when it is to be chosen from the world itself.
    // Mesh triangles are walls: the skin is sized by the particles.
    let rmax = walls
        .movable(&particles)
        .iter()
        .map(|p| p[3] as f64)
        .chain(
            inserts
                .iter()
                .flat_map(|b| b.insertion.radii.iter().map(|&r| r as f64)),
        )
        .fold(0.0, f64::max);
    let skin = sim.skin.unwrap_or(0.5 * rmax);
    let core_err = |e: CoreError| {
        let (line, column) = ctx.line_col(domain_span.start);
        SceneError::Core {
            file: path.to_path_buf(),
            line,
            column,
            key: "domain".to_string(),
            err: e,
        }
    };
    let mut world = World::new(
        particles,
        walls.walls,
        materials,
        interactions,
        domain,
        sim.gravity,
        sim.dt_given.unwrap_or(1.0),
        skin,
    )
    .map_err(core_err)?;
    world
        .particles
        .set_sphere_orientation(sim.sphere_orientation);
    if !bond_pairs.is_empty() {
        world = world
            .with_fixed_pairs(bond_pairs, bond_interactions)
            .map_err(|e| {
                let (line, column) = ctx.line_col(bond_span.start);
                SceneError::Core {
                    file: path.to_path_buf(),
                    line,
                    column,
                    key: "bond".to_string(),
                    err: e,
                }
            })?;
    }
    if !shells.is_empty() {
        world = world.with_shells(shells).map_err(core_err)?;
    }
    if !walls.triangles.is_empty() {
        world = world.with_triangles(walls.triangles).map_err(core_err)?;
    }
    let insert_every = inserts
        .iter()
        .map(|b| b.every)
        .fold(f64::INFINITY, f64::min);
    if !inserts.is_empty() {
        world = world
            .with_insertions(inserts.into_iter().map(|b| b.insertion).collect())
            .map_err(core_err)?;
    }
    let timestep = timestep_report(&world);
    let dt = sim.time_step(&ctx, timestep.auto_dt)?;
    world.dt = dt;
    if !world.insertions.is_empty() {
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

    let steps = sim.steps(&ctx, dt)?;

    // [output]
    let mut dir = PathBuf::from("out");
    let mut every = None;
    let mut checkpoint_every = None;
    let (mut vtk, mut csv, mut energy) = (true, false, true);
    let mut contacts = false;
    if let Some(v) = root.get("output") {
        let o = ctx.table(v, "output", "an [output] table")?;
        o.deny_unknown(&[
            "dir",
            "every",
            "every_steps",
            "formats",
            "energy",
            "checkpoint_every",
            "checkpoint_every_steps",
        ])?;
        if let Some(d) = o.get("dir") {
            let s = ctx.string(d, "output.dir", "a folder path (a string)")?;
            if s.is_empty() {
                return Err(ctx.err(&d.span(), "output.dir", "expected a non-empty folder path"));
            }
            dir = PathBuf::from(s);
        }
        every = match (o.get("every"), o.get("every_steps")) {
            (Some(_), Some(_)) => {
                return Err(ctx.err(
                    &o.key_span("every_steps").max_by_start(o.key_span("every")),
                    "output.every_steps",
                    "give either `every` (s) or `every_steps`, not both",
                ))
            }
            (Some(e), None) => Some(Every::Seconds(ctx.positive(e, "output.every", "s")?)),
            (None, Some(e)) => Some(Every::Steps(ctx.integer(e, "output.every_steps", 1)?)),
            (None, None) => None,
        };
        checkpoint_every = match (o.get("checkpoint_every"), o.get("checkpoint_every_steps")) {
            (Some(_), Some(_)) => {
                return Err(ctx.err(
                    &o.key_span("checkpoint_every_steps")
                        .max_by_start(o.key_span("checkpoint_every")),
                    "output.checkpoint_every_steps",
                    "give either `checkpoint_every` (s) or `checkpoint_every_steps`, not both",
                ))
            }
            (Some(e), None) => Some(Every::Seconds(ctx.positive(
                e,
                "output.checkpoint_every",
                "s",
            )?)),
            (None, Some(e)) => Some(Every::Steps(ctx.integer(
                e,
                "output.checkpoint_every_steps",
                1,
            )?)),
            (None, None) => None,
        };
        if let Some(f) = o.get("formats") {
            let what = "an array of formats among \"vtk\", \"csv\", \"contacts\"";
            let list = ctx.array(f, "output.formats", what)?;
            vtk = false;
            csv = false;
            for (k, x) in list.iter().enumerate() {
                let key = format!("output.formats[{k}]");
                match ctx.string(x, &key, "\"vtk\", \"csv\" or \"contacts\"")? {
                    "vtk" => vtk = true,
                    "csv" => csv = true,
                    "contacts" => contacts = true,
                    _ => {
                        return Err(ctx.err(
                            &x.span(),
                            &key,
                            format!(
                                "expected \"vtk\", \"csv\" or \"contacts\", found {}",
                                ctx.found(x)
                            ),
                        ))
                    }
                }
            }
        }
        if let Some(e) = o.get("energy") {
            energy = ctx.boolean(e, "output.energy")?;
        }
    }
    let to_steps = |e: Every| match e {
        Every::Steps(n) => n,
        Every::Seconds(s) => {
            let n = (s / dt).round();
            if (1.0..1e18).contains(&n) {
                n as u64
            } else if n >= 1e18 {
                u64::MAX
            } else {
                1
            }
        }
    };
    let every_steps = every.map(to_steps);
    let checkpoint_every_steps = checkpoint_every.map(to_steps);
    world.particles.shrink_to_fit();

    Ok(Parsed {
        world,
        timestep,
        dt_auto: sim.dt_given.is_none(),
        steps,
        backend: sim.backend,
        dir,
        every_steps,
        checkpoint_every_steps,
        vtk,
        csv,
        contacts,
        energy,
        max_initial_overlap: sim.max_initial_overlap,
        lost: sim.lost,
        overlaps,
        warnings: ctx.warnings.take(),
    })
}

/// A slot no law fills yet (none today; a slot added to the format before its first law):
/// refused with the reason when given.
fn reserved_slot(ctx: &Ctx<'_>, it: &Table<'_, '_>, slot: Slot) -> Result<(), SceneError> {
    let k = slot.key();
    if slot.laws().is_empty() && it.get(k).is_some() {
        return Err(ctx.err(
            &it.key_span(k),
            &it.key(k),
            format!("no law exists yet for the {k} slot; remove `{k}`"),
        ));
    }
    Ok(())
}

/// Keywords of the laws of a slot, comma-separated.
fn laws_of(slot: Slot) -> String {
    slot.laws()
        .iter()
        .map(|l| format!("\"{}\"", l.keyword()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The laws of one slot of an interaction: its table (the `extra` slot also takes an array of
/// tables, one law each), each `law` keyword checked against the slot, and the keys parsed by
/// the law's own module. Empty when an optional slot is absent; the normal slot is required.
fn slot_laws(ctx: &Ctx<'_>, it: &Table<'_, '_>, slot: Slot) -> Result<Vec<LawSpec>, SceneError> {
    let key = slot.key();
    let v = match (it.get(key), slot) {
        (Some(v), _) => v,
        (None, Slot::Normal) => {
            return Err(it
                .req(
                    key,
                    &format!("{{ law = ... }} with law one of {}", laws_of(slot)),
                )
                .err()
                .unwrap_or_else(|| ctx.err(&it.span, &it.key(key), "missing")))
        }
        (None, _) => return Ok(Vec::new()),
    };
    if slot == Slot::Extra && v.get_ref().as_array().is_some() {
        let what = format!(
            "an array of tables {{ law = ... }} with law one of {}",
            laws_of(slot)
        );
        let items = ctx.array(v, &it.key(key), &what)?;
        let mut laws: Vec<LawSpec> = Vec::new();
        for (k, x) in items.iter().enumerate() {
            let path = format!("{}[{k}]", it.key(key));
            let law = law_table(ctx, x, &path, slot)?;
            if laws.iter().any(|l| l.kind() == law.kind()) {
                return Err(ctx.err(
                    &x.span(),
                    &path,
                    format!(
                        "\"{}\" is already in this extra list; a law acts at most once per chain",
                        law.kind().keyword()
                    ),
                ));
            }
            laws.push(law);
        }
        return Ok(laws);
    }
    Ok(vec![law_table(ctx, v, &it.key(key), slot)?])
}

/// One law table `{ law = "...", key = value, ... }` at key path `path` in `slot`.
fn law_table(ctx: &Ctx<'_>, v: &Value<'_>, path: &str, slot: Slot) -> Result<LawSpec, SceneError> {
    let t = ctx.table(
        v,
        path,
        &format!("a table {{ law = ... }} with law one of {}", laws_of(slot)),
    )?;
    let lv = t.req("law", &format!("one of {}", laws_of(slot)))?;
    let word = ctx.string(lv, &t.key("law"), &format!("one of {}", laws_of(slot)))?;
    let law = LawKind::from_keyword(word).ok_or_else(|| {
        ctx.err(
            &lv.span(),
            &t.key("law"),
            format!(
                "unknown {} law \"{word}\"; accepted: {}",
                slot.key(),
                laws_of(slot)
            ),
        )
    })?;
    if law.slot() != slot {
        return Err(ctx.err(
            &lv.span(),
            &t.key("law"),
            format!(
                "\"{word}\" is a {} law and cannot fill the {} slot; accepted here: {} (put \"{word}\" under `{}`)",
                law.slot().key(),
                slot.key(),
                laws_of(slot),
                law.slot().key()
            ),
        ));
    }
    let mut accepted = vec!["law"];
    accepted.extend_from_slice(law.keys());
    t.deny_unknown(&accepted)?;
    law.parse(&SlotKeys { t: &t })
}

/// What a bond may join: the scene's particles, with the id ranges of the `[[insert]]` blocks'
/// dormant particles (first id, count).
struct Bondable<'a> {
    particles: &'a Particles,
    inserted: &'a [(u32, usize)],
}

impl Bondable<'_> {
    /// Why particle `id` cannot take a bond, if it cannot: a dormant particle of an `[[insert]]`
    /// block (its rest length would be taken where it waits, out of the domain), a triangle of
    /// a mesh wall (fixed, not a particle), or a clump's body (its members are its surface).
    fn refusal(&self, id: u32) -> Option<String> {
        let p = self.particles;
        if let Some((k, &(first, count))) = self
            .inserted
            .iter()
            .enumerate()
            .find(|(_, &(first, count))| id >= first && ((id - first) as usize) < count)
        {
            return Some(format!(
                "particle {id} is a dormant particle of insert[{k}] (ids {first} to {}): it is \
                 placed only during the run, while a bond takes its rest length at the start; \
                 expected a particle of a [[particles]] block or a shell node",
                first as usize + count - 1
            ));
        }
        let shape = p.shape_of(id as usize);
        match shape.kind {
            grains_core::shapes::KIND_TRIANGLE => Some(format!(
                "particle {id} is a triangle of a mesh wall, not a particle: a bond joins two \
                 particles; expected a particle of a [[particles]] block or a shell node"
            )),
            grains_core::shapes::KIND_CLUMP => {
                let members = shape.data[0].to_bits();
                Some(format!(
                    "particle {id} is the body of a clump, which touches nothing (its member \
                     spheres, particles {} to {}, are its surface); expected one of its members",
                    id + 1,
                    id + members
                ))
            }
            _ => None,
        }
    }

    /// The clump body particle `i` is a member of, if it is one.
    fn clump_of(&self, i: u32) -> Option<u32> {
        let shape = self.particles.shape_of(i as usize);
        (shape.kind == grains_core::shapes::KIND_MEMBER)
            .then(|| i.checked_sub(shape.data[3].to_bits()))
            .flatten()
    }

    /// Why pair `ij` cannot take a bond, if it cannot: two members of one clump move as one
    /// rigid body, and a bond inside it has nothing to hold.
    fn pair_refusal(&self, [i, j]: [u32; 2]) -> Option<String> {
        match (self.clump_of(i), self.clump_of(j)) {
            (Some(a), Some(b)) if a == b && i != j => Some(format!(
                "particles {i} and {j} are members of one clump (body {a}): they move as one rigid \
                 body, so a bond between them has nothing to hold; expected particles of \
                 different bodies"
            )),
            _ => None,
        }
    }
}

/// The pairs of a `[[bond]]` block's `pairs = [[i, j], ...]`, each id checked to exist and to
/// take a bond ([`Bondable`]), each refusal at its id or pair.
fn listed_pairs(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    pv: &Value<'_>,
    bondable: &Bondable<'_>,
) -> Result<Vec<[u32; 2]>, SceneError> {
    let n = bondable.particles.len() as u64;
    let mut pairs = Vec::new();
    let what = "an array of particle id pairs [[i, j], ...]";
    let list = ctx.array(pv, &b.key("pairs"), what)?;
    if list.is_empty() {
        return Err(ctx.err(
            &pv.span(),
            &b.key("pairs"),
            format!("expected {what}, found an empty array"),
        ));
    }
    for (k, x) in list.iter().enumerate() {
        let key = format!("{}[{k}]", b.key("pairs"));
        let two = ctx.array(x, &key, "a pair of particle ids [i, j]")?;
        if two.len() != 2 {
            return Err(ctx.err(
                &x.span(),
                &key,
                format!(
                    "expected a pair of particle ids [i, j], found {} element(s)",
                    two.len()
                ),
            ));
        }
        let mut ij = [0u32; 2];
        for (c, (y, o)) in two.iter().zip(ij.iter_mut()).enumerate() {
            let id = ctx.integer(y, &format!("{key}[{c}]"), 0)?;
            if id >= n {
                return Err(ctx.err(
                    &y.span(),
                    &format!("{key}[{c}]"),
                    format!(
                        "particle {id} does not exist: the scene has {n} particles (ids 0 to {})",
                        n - 1
                    ),
                ));
            }
            *o = id as u32;
            if let Some(why) = bondable.refusal(id as u32) {
                return Err(ctx.err(&y.span(), &format!("{key}[{c}]"), why));
            }
        }
        if let Some(why) = bondable.pair_refusal(ij) {
            return Err(ctx.err(&x.span(), &key, why));
        }
        if ij[0] == ij[1] {
            return Err(ctx.err(
                &x.span(),
                &key,
                format!(
                    "a bond joins two different particles, found [{}, {}]",
                    ij[0], ij[1]
                ),
            ));
        }
        pairs.push(ij);
    }
    Ok(pairs)
}

/// The `[[bond]]` blocks: their pairs (in block order) and one interaction per material pair
/// they join, with the block's chain; and where the first block is, for core errors.
#[allow(clippy::type_complexity)]
fn parse_bonds(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    bondable: &Bondable<'_>,
    domain: &Domain,
    materials: &[Material],
) -> Result<(Vec<[u32; 2]>, Vec<Interaction>, Range<usize>), SceneError> {
    let particles = bondable.particles;
    let mut pairs: Vec<[u32; 2]> = Vec::new();
    let mut interactions: Vec<Interaction> = Vec::new();
    // Which block made each bond interaction, for "two blocks join the same materials".
    let mut made_by: Vec<usize> = Vec::new();
    let Some(v) = root.get("bond") else {
        return Ok((pairs, interactions, 0..0));
    };
    let blocks = ctx.tables(v, "bond")?;
    let first_span = blocks.first().map(|b| b.span.clone()).unwrap_or(0..0);
    let mut seen: std::collections::HashSet<[u32; 2]> = std::collections::HashSet::new();
    for (bi, b) in blocks.iter().enumerate() {
        let mut accepted = vec!["pairs", "touching", "tolerance"];
        accepted.extend(Slot::ALL.iter().map(|s| s.key()));
        b.deny_unknown(&accepted)?;
        for slot in Slot::ALL {
            reserved_slot(ctx, b, slot)?;
        }
        let mine: Vec<[u32; 2]>;
        match (b.get("pairs"), b.get("touching")) {
            (Some(_), Some(_)) => {
                return Err(ctx.err(
                    &b.key_span("touching").max_by_start(b.key_span("pairs")),
                    &b.key("touching"),
                    "give either `pairs = [[i, j], ...]` or `touching = true`, not both",
                ))
            }
            (None, None) => {
                return Err(ctx.err(
                    &b.span,
                    &b.key("pairs"),
                    "missing the bonded pairs: expected `pairs = [[i, j], ...]` (particle ids in \
                     scene order) or `touching = true` (every pair touching at the start)",
                ))
            }
            (Some(pv), None) => {
                if b.get("tolerance").is_some() {
                    return Err(ctx.err(
                        &b.key_span("tolerance"),
                        &b.key("tolerance"),
                        "`tolerance` goes with `touching = true`; with `pairs` remove it",
                    ));
                }
                mine = listed_pairs(ctx, b, pv, bondable)?;
            }
            (None, Some(tv)) => {
                if !ctx.boolean(tv, &b.key("touching"))? {
                    return Err(ctx.err(
                        &tv.span(),
                        &b.key("touching"),
                        "expected `touching = true` (or `pairs = [[i, j], ...]` instead)",
                    ));
                }
                let gap = match b.get("tolerance") {
                    Some(g) => ctx.non_negative(g, &b.key("tolerance"), "m")?,
                    None => 0.0,
                };
                // Only pairs a bond can join: a triangle of a mesh wall near a bead, or two
                // overlapping members of one clump, are not bonded particles.
                mine = grains_core::overlaps::pairs_within(&particles.pos, domain, gap)
                    .into_iter()
                    .map(|(i, j, _)| [i, j])
                    .filter(|&[i, j]| {
                        bondable.refusal(i).is_none()
                            && bondable.refusal(j).is_none()
                            && bondable.pair_refusal([i, j]).is_none()
                    })
                    .collect();
                if mine.is_empty() {
                    return Err(ctx.err(
                        &tv.span(),
                        &b.key("touching"),
                        format!(
                            "no two particles are within {} of touching at the start; place them \
                             closer or raise `tolerance` (m)",
                            qty(gap, "m")
                        ),
                    ));
                }
            }
        }
        for &[i, j] in &mine {
            let key = [i.min(j), i.max(j)];
            if !seen.insert(key) {
                let span = b.get("pairs").map(|v| v.span()).unwrap_or(b.span.clone());
                return Err(ctx.err(
                    &span,
                    &b.key("pairs"),
                    format!(
                        "particles {} and {} are bonded twice; a pair takes one bond (give its \
                         chain all the laws it needs)",
                        key[0], key[1]
                    ),
                ));
            }
        }
        let mut laws = Vec::new();
        for slot in Slot::ALL {
            laws.extend(slot_laws(ctx, b, slot)?);
        }
        for &[i, j] in &mine {
            let (a, c) = (
                particles.material[i as usize] as usize,
                particles.material[j as usize] as usize,
            );
            let (a, c) = (a.min(c), a.max(c));
            match interactions.iter().position(|x| x.between == (a, c)) {
                Some(k) if made_by[k] != bi => {
                    let name = |m: usize| materials.get(m).map(|x| x.name.as_str()).unwrap_or("");
                    return Err(ctx.err(
                        &b.span,
                        &b.path,
                        format!(
                            "bond[{}] already bonds particles of \"{}\" and \"{}\"; the bonds \
                             of one pair of materials share one chain, so give them one \
                             [[bond]] block",
                            made_by[k],
                            name(a),
                            name(c)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    interactions.push(Interaction::new(a, c, laws.clone()));
                    made_by.push(bi);
                }
            }
        }
        pairs.extend(mine);
    }
    Ok((pairs, interactions, first_span))
}
