//! The checks that need several blocks at once: materials that meet need an interaction,
//! particle centres lie on the open side of every wall, and bonds join only particles that
//! can hold one ([`Bondable`]).

use std::ops::Range;

use grains_core::kernel_types::Wall;
use grains_core::kernels::walls::WallKind;
use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::units::qty;
use grains_core::Particles;

use crate::error::SceneError;
use crate::messages::{point3, vec3};
use crate::sections::material::material_of;
use crate::sections::wall::Walls;
use crate::walk::{Ctx, Table};

/// Where each material is first used by a block that makes particles (`[[particles]]`,
/// `[[insert]]`, `[[shell]]`), so that "these two materials meet" errors point at the block
/// that brought the second one in.
pub(crate) struct MaterialUses {
    first: Vec<Option<(Range<usize>, String)>>,
}

impl MaterialUses {
    /// No material used yet, out of `materials`.
    pub(crate) fn new(materials: usize) -> Self {
        MaterialUses {
            first: vec![None; materials],
        }
    }

    /// Material `material` used at `span` (key path `key`), kept if it is the first use.
    pub(crate) fn note(&mut self, material: usize, span: Range<usize>, key: String) {
        if let Some(slot) = self.first.get_mut(material) {
            if slot.is_none() {
                *slot = Some((span, key));
            }
        }
    }

    /// Note the `material` of every block named in `blocks`, which their own sections have
    /// already read and checked.
    pub(crate) fn note_blocks(
        &mut self,
        ctx: &Ctx<'_>,
        root: &Table<'_, '_>,
        materials: &[Material],
        blocks: &[&str],
    ) -> Result<(), SceneError> {
        for &block in blocks {
            let Some(v) = root.get(block) else { continue };
            for b in ctx.tables(v, block)? {
                let mv = b.req("material", "a material name")?;
                let mi = material_of(ctx, materials, mv, &b.key("material"))?;
                self.note(mi, mv.span(), b.key("material"));
            }
        }
        Ok(())
    }
}

/// Every pair of materials whose particles can touch, and every particle material with every
/// wall material, needs an `[[interaction]]`; the error points at the block that brought the
/// pair in (`uses` for particles, `wall_uses` for walls, each `(material, span, key path)`).
/// `particle_materials` is each particle's material: one of a material alone cannot touch
/// itself. Two materials whose particles are all nodes of rings with node-to-segment contact
/// (`segment_only`) meet through it and need no interaction between them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn touching_materials_have_interactions(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    interactions: &[Interaction],
    uses: &MaterialUses,
    wall_uses: &[(usize, Range<usize>, String)],
    particle_materials: &[u32],
    segment_only: &[bool],
) -> Result<(), SceneError> {
    let has = |a: usize, b: usize| {
        interactions
            .iter()
            .any(|i| i.between == (a, b) || i.between == (b, a))
    };
    let name = |k: usize| materials.get(k).map(|m| m.name.clone()).unwrap_or_default();
    let present: Vec<usize> = (0..materials.len())
        .filter(|&k| uses.first.get(k).is_some_and(|u| u.is_some()))
        .collect();
    // Later-used materials are reported at their own first use, so the message points at
    // the block that introduced the missing pair.
    let mut by_use = present.clone();
    by_use.sort_by_key(|&k| {
        uses.first
            .get(k)
            .and_then(|u| u.as_ref())
            .map(|u| u.0.start)
    });
    let mut count = vec![0usize; materials.len()];
    for &m in particle_materials {
        if let Some(c) = count.get_mut(m as usize) {
            *c += 1;
        }
    }
    for (x, &b) in by_use.iter().enumerate() {
        for &a in by_use.get(..=x).unwrap_or(&[]) {
            if a == b && count.get(a).copied().unwrap_or(0) < 2 {
                continue;
            }
            let by_segments = |m: usize| segment_only.get(m).copied().unwrap_or(false);
            if by_segments(a) && by_segments(b) {
                continue;
            }
            if !has(a, b) {
                let (span, key) = uses
                    .first
                    .get(b)
                    .and_then(|u| u.clone())
                    .unwrap_or((root.span.clone(), String::new()));
                return Err(ctx.err(
                    &span,
                    &key,
                    format!(
                        "particles of \"{}\" and \"{}\" can touch but no [[interaction]] has between = [\"{}\", \"{}\"]; defined interactions: {}",
                        name(a), name(b), name(a), name(b), defined_pairs(materials, interactions)
                    ),
                ));
            }
        }
    }
    for (w, span, key) in wall_uses {
        for &a in &present {
            if !has(a, *w) {
                return Err(ctx.err(
                    span,
                    key,
                    format!(
                        "particles of \"{}\" can touch this wall of \"{}\" but no [[interaction]] has between = [\"{}\", \"{}\"]; defined interactions: {}",
                        name(a), name(*w), name(a), name(*w), defined_pairs(materials, interactions)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The interactions defined, as messages list them: `["a", "b"], ...`, or `none`.
fn defined_pairs(materials: &[Material], interactions: &[Interaction]) -> String {
    if interactions.is_empty() {
        return "none".to_string();
    }
    let n = |k: usize| materials.get(k).map(|m| m.name.as_str()).unwrap_or("");
    interactions
        .iter()
        .map(|i| format!("[\"{}\", \"{}\"]", n(i.between.0), n(i.between.1)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every moving particle's centre lies on the open side of every plane and cylinder: one that
/// starts behind a wall would be shot out by a huge overlap. Dormant particles (to insert) are
/// not in the run yet, and mesh triangles are walls themselves.
pub(crate) fn particles_in_front_of_walls(
    ctx: &Ctx<'_>,
    walls: &Walls,
    particles: &Particles,
) -> Result<(), SceneError> {
    let movable = walls.movable(particles);
    for (i, (w, (span, key))) in walls.walls.iter().zip(&walls.sources).enumerate() {
        // Disks and cones are touched from either side or open at the top: no side to refuse.
        let refusal = match WallKind::of(w.kind) {
            Some(WallKind::Cylinder) => centre_on_wrong_side_of_cylinder(i, w, movable),
            Some(WallKind::Plane) => centre_behind_plane(i, w, movable),
            _ => None,
        };
        if let Some(message) = refusal {
            return Err(ctx.err(span, key, message));
        }
    }
    Ok(())
}

/// The first live particle of `movable` inside solid cylinder `i` (or outside it, hollow).
fn centre_on_wrong_side_of_cylinder(i: usize, w: &Wall, movable: &[[f32; 4]]) -> Option<String> {
    let hollow = w.hollow != 0;
    movable
        .iter()
        .enumerate()
        .filter(|(_, x)| x[3] > 0.0)
        .find_map(|(k, x)| {
            let (_, rho) = grains_core::kernels::resolvers::sphere_cylinder::cylinder_radial(
                particle_centre(x),
                w,
            );
            (hollow != (rho < w.radius)).then(|| {
                format!(
                    "particle {k} at {} lies {} cylinder {i} (radius {}); expected every particle centre {} it",
                    point3(x),
                    if hollow { "outside hollow" } else { "inside solid" },
                    qty(w.radius as f64, "m"),
                    if hollow { "inside" } else { "outside" }
                )
            })
        })
}

/// The first live particle of `movable` behind plane `i`.
fn centre_behind_plane(i: usize, w: &Wall, movable: &[[f32; 4]]) -> Option<String> {
    movable
        .iter()
        .enumerate()
        .filter(|(_, x)| x[3] > 0.0)
        .find_map(|(k, x)| {
            let side: f64 = (0..3)
                .map(|c| (x[c] as f64 - w.point[c] as f64) * w.normal[c] as f64)
                .sum();
            (side < 0.0).then(|| {
                format!(
                    "particle {k} at {} lies {} behind plane {i} (point {}, normal {}); expected every particle centre on the side the normal points to",
                    point3(x), qty(-side, "m"), point3(&w.point), vec3(&w.normal)
                )
            })
        })
}

/// The centre of a particle (its position row) as the resolvers' vector type.
fn particle_centre(x: &[f32; 4]) -> grains_core::kernels::resolvers::Vec3 {
    grains_core::kernels::resolvers::Vec3::new(x[0], x[1], x[2])
}

/// What a bond may join: the scene's particles, with the id ranges of the `[[insert]]` blocks'
/// dormant particles (first id, count).
pub(crate) struct Bondable<'a> {
    pub particles: &'a Particles,
    pub inserted: &'a [(u32, usize)],
}

impl Bondable<'_> {
    /// Why particle `id` cannot take a bond, if it cannot: a dormant particle of an `[[insert]]`
    /// block (its rest length would be taken where it waits, out of the domain), a triangle of
    /// a mesh wall (fixed, not a particle), or a clump's body (its members are its surface).
    pub(crate) fn refusal(&self, id: u32) -> Option<String> {
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
    pub(crate) fn pair_refusal(&self, [i, j]: [u32; 2]) -> Option<String> {
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

/// The largest a particle's diameter may be against the domain's smallest open (non-periodic)
/// extent: the particle must fit in it. Thin domains are legitimate (a monolayer between two
/// plates a little more than a diameter apart), so the bound is the extent itself; radii in
/// millimetres where the scene's unit is the metre exceed it a thousandfold.
pub(crate) const DOMAIN_FRACTION: f64 = 1.0;

/// How many times too large a particle is before the refusal names millimetres as the likely
/// cause.
const UNIT_SLIP_RATIO: f64 = 10.0;

/// The domain's smallest extent along an open axis, and that axis; infinite when all three
/// are periodic (a periodic axis's length has its own check, against the broad phase's cells).
pub(crate) fn smallest_extent(domain: &grains_core::Domain) -> (f64, usize) {
    (0..3)
        .filter(|&k| !domain.periodic[k])
        .map(|k| (domain.max[k] - domain.min[k], k))
        .fold((f64::INFINITY, 0), |a, b| if b.0 < a.0 { b } else { a })
}

/// Refuse, at `span` on `key`, a particle of `radius` whose diameter is more than
/// [`DOMAIN_FRACTION`] of the domain's smallest open extent, naming millimetres where it is
/// [`UNIT_SLIP_RATIO`] times too large or more.
pub(crate) fn radius_fits_domain(
    ctx: &Ctx<'_>,
    domain: &grains_core::Domain,
    radius: f64,
    span: &Range<usize>,
    key: &str,
) -> Result<(), SceneError> {
    let (extent, axis) = smallest_extent(domain);
    let allowed = DOMAIN_FRACTION * extent;
    if 2.0 * radius <= allowed {
        return Ok(());
    }
    let slip = if 2.0 * radius >= UNIT_SLIP_RATIO * allowed {
        ": were the radii given in mm? (SI units: m)"
    } else {
        ""
    };
    Err(ctx.err(
        span,
        key,
        format!(
            "radius {} in a domain {} across{slip}; expected a diameter of at most the domain's \
             smallest open extent (along {}), which the particle must fit in",
            qty(radius, "m"),
            qty(extent, "m"),
            ["x", "y", "z"][axis]
        ),
    ))
}

/// How much larger than the domain's diagonal a mesh may be across before it is taken for a
/// file in other units (mm for m): a hopper or drum larger than its domain by a few times is
/// cut by it on purpose, by a hundred times it is a unit slip.
pub(crate) const MESH_DOMAIN_FACTOR: f64 = 100.0;

/// Refuse, at `span` on `key`, a mesh (placed, in m) whose bounding box's diagonal exceeds
/// [`MESH_DOMAIN_FACTOR`] times the domain's: most likely a file in mm. `scale` is the factor
/// the block gave (1 by default), to which the suggestion applies a thousandth.
pub(crate) fn mesh_fits_domain(
    ctx: &Ctx<'_>,
    domain: &grains_core::Domain,
    vertices: &[[f64; 3]],
    scale: f64,
    span: &Range<usize>,
    key: &str,
) -> Result<(), SceneError> {
    let diagonal =
        |lo: [f64; 3], hi: [f64; 3]| (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    let (lo, hi) = vertices.iter().fold(
        ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |(lo, hi), v| {
            (
                [0, 1, 2].map(|k| lo[k].min(v[k])),
                [0, 1, 2].map(|k| hi[k].max(v[k])),
            )
        },
    );
    if vertices.is_empty() {
        return Ok(());
    }
    let (across, room) = (diagonal(lo, hi), diagonal(domain.min, domain.max));
    if across.is_nan() || across <= MESH_DOMAIN_FACTOR * room {
        return Ok(());
    }
    Err(ctx.err(
        span,
        key,
        format!(
            "the mesh is {} across in a {} domain (diagonals): is the file in mm? give \
             `scale = {}` (SI units: m)",
            qty(across, "m"),
            qty(room, "m"),
            (scale * 1e-3) as f32
        ),
    ))
}

/// The blocks of a scene a planar world cannot hold yet.
pub(crate) struct PlanarBlocks {
    /// `[[insert]]` blocks (their regions place particles off the plane).
    pub inserts: bool,
    /// `[[shell]]` blocks (membranes in three dimensions).
    pub shells: bool,
    /// Mesh walls.
    pub meshes: bool,
}

/// A planar scene (`[domain] dimensions = 2`, at `span`): gravity in the plane, every particle
/// a sphere centred in z = 0 with no velocity out of the plane and no spin but about z, and no
/// block that places bodies out of the plane.
pub(crate) fn planar_scene(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    span: &Range<usize>,
    particles: &Particles,
    blocks: PlanarBlocks,
) -> Result<(), SceneError> {
    let key = "domain.dimensions";
    let refuse = |message: String| Err(ctx.err(span, key, message));
    if let Some((g, gspan)) = planar_gravity(ctx, root)? {
        if g[2] != 0.0 {
            let message = format!(
                "gravity {} m/s^2 has a z component in a 2-D scene (`[domain] dimensions = 2`); \
                 expected gravity in the plane, e.g. [0.0, -9.81, 0.0]",
                vec3(&g)
            );
            return Err(ctx.err(&gspan, "simulation.gravity", message));
        }
    }
    let blocked = [
        (blocks.inserts, "`[[insert]]` blocks"),
        (blocks.shells, "`[[shell]]` blocks"),
        (blocks.meshes, "mesh walls"),
    ];
    if let Some((_, what)) = blocked.iter().find(|(b, _)| *b) {
        return refuse(format!(
            "a 2-D scene holds spheres and analytic walls; {what} are not available in 2-D"
        ));
    }
    for (i, x) in particles.pos.iter().enumerate() {
        let kind = particles.shape_of(i).kind;
        if kind != grains_core::shapes::KIND_SPHERE {
            return refuse(format!(
                "particle {i} is not a sphere; a 2-D scene holds spheres and analytic walls"
            ));
        }
        let (v, w) = (particles.vel[i], particles.omega[i]);
        let what = if x[2] != 0.0 {
            format!("lies at {}, off the plane z = 0", point3(x))
        } else if v[2] != 0.0 {
            format!("moves at {} m/s, out of the plane", vec3(&v))
        } else if w[0] != 0.0 || w[1] != 0.0 {
            format!(
                "spins at {} rad/s, about an axis not normal to the plane",
                vec3(&w)
            )
        } else {
            continue;
        };
        return refuse(format!(
            "particle {i} {what} of a 2-D scene; expected every particle centred in z = 0, \
             moving in x and y and spinning about z only"
        ));
    }
    Ok(())
}

/// A vector read from the scene and the span of its value.
type Located = ([f64; 3], Range<usize>);

/// `[simulation] gravity` and the span of its value, where given.
fn planar_gravity(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<Option<Located>, SceneError> {
    let Some(sim) = root.get("simulation") else {
        return Ok(None);
    };
    let sim = ctx.table(sim, "simulation", "a [simulation] table")?;
    let Some(g) = sim.get("gravity") else {
        return Ok(None);
    };
    Ok(Some((ctx.vec3(g, &sim.key("gravity"), "m/s^2")?, g.span())))
}

/// The checks of a scene's dynamics: the `resistance` slot only where a solve takes it, drag
/// on every free particle's material in the overdamped mode (a free particle without drag
/// makes the friction matrix singular wherever it touches nothing), and spheres only in the
/// implicit modes.
pub(crate) fn dynamics_scene(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    sim: &crate::sections::simulation::Simulation,
    world: &grains_core::World,
) -> Result<(), SceneError> {
    use grains_core::dynamics::Mode;
    let mode = sim.dynamics.mode;
    if mode == Mode::Inertial {
        for block in ["interaction", "bond"] {
            let Some(v) = root.get(block) else { continue };
            for t in ctx.tables(v, block)? {
                if t.get("resistance").is_some() {
                    return Err(ctx.err(
                        &t.key_span("resistance"),
                        &t.key("resistance"),
                        "a resistance law acts through the implicit solve, and this scene's \
                         dynamics is \"inertial\"; set [simulation] dynamics = \"overdamped\" \
                         (or \"underdamped\"), or use a dashpot (damping slot) instead",
                    ));
                }
            }
        }
        return Ok(());
    }
    let p = &world.particles;
    let moving_non_sphere =
        |i: usize| p.vel[i][3] > 0.0 && p.shape_of(i).kind != grains_core::shapes::KIND_SPHERE;
    if let Some(i) = (0..p.len()).find(|&i| moving_non_sphere(i)) {
        return Err(ctx.err(
            &sim.dynamics_span,
            "simulation.dynamics",
            format!(
                "the {} mode moves spheres only, and particle {i} is a capsule or a clump; \
                 use spheres, or dynamics = \"inertial\"",
                mode.keyword()
            ),
        ));
    }
    if mode != Mode::Overdamped {
        return Ok(());
    }
    let mats = ctx.tables(root.req("material", "[[material]] blocks")?, "material")?;
    for (i, _) in p.vel.iter().enumerate().filter(|(_, v)| v[3] > 0.0) {
        let m = p.material[i] as usize;
        let mat = &world.materials[m];
        for (key, value, unit) in [
            ("substrate_friction", mat.drag.translational, "N s/m"),
            (
                "substrate_rotational_friction",
                mat.drag.rotational,
                "N m s",
            ),
        ] {
            if value > 0.0 {
                continue;
            }
            let t = &mats[m];
            return Err(ctx.err(
                &t.key_span(key),
                &t.key(key),
                format!(
                    "material \"{}\" moves freely in an overdamped scene and needs `{key}` > 0 \
                     ({unit}): without drag a particle that touches nothing makes the friction \
                     matrix singular; found {}",
                    mat.name,
                    if t.get(key).is_some() {
                        "0".to_string()
                    } else {
                        "none".to_string()
                    }
                ),
            ));
        }
    }
    Ok(())
}
