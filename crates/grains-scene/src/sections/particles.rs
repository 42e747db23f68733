//! The `[[particles]]` blocks: spheres, capsules or clumps placed by a lattice, a pack file or
//! a list of positions, each block's particles appended in block order.

use std::ops::Range;
use std::path::{Path, PathBuf};

use grains_core::material::Material;
use grains_core::shapes::ClumpProps;
use grains_core::units::qty;
use grains_core::{Domain, Particles};

use crate::checks::MaterialUses;
use crate::error::SceneError;
use crate::generators::{parse_pack, Lattice};
use crate::messages::{point3, vec3, MaxByStart};
use crate::sections::material::material_of;
use crate::walk::{Ctx, Table, Value};

/// Most particles a scene may hold: indices are u32 on the GPU, and this keeps a typo in a
/// lattice count from exhausting memory before it can be reported.
const MAX_PARTICLES: u64 = 1 << 28;

/// Where a block's particles came from, to point at one when it is wrong. A lattice and a pack
/// file say it once for the whole block (a lattice site follows from the particle's index, a
/// file line is one number), so that a million-particle block does not hold a million
/// messages' worth of strings while it is parsed.
enum Origin {
    /// Elements of an inline list: each one's span and key path.
    Spans(Vec<(Range<usize>, String)>),
    /// The lattice table (its span and key path) and the lattice, whose sites it names.
    Lattice(Range<usize>, String, Lattice),
    /// A pack file and each particle's line in it.
    PackLines(PathBuf, Vec<usize>),
}

impl Origin {
    /// Where particle `k` of block `b` came from: the span and key path to point at, and a
    /// prefix naming the lattice site or file line.
    fn locate(&self, b: &Table<'_, '_>, k: usize) -> (Range<usize>, String, String) {
        match self {
            Origin::Spans(spans) => match spans.get(k) {
                Some((span, key)) => (span.clone(), key.clone(), String::new()),
                None => (b.span.clone(), b.path.clone(), String::new()),
            },
            Origin::Lattice(span, key, lat) => {
                let [i, j, k] = lat.site(k as u64);
                (
                    span.clone(),
                    key.clone(),
                    format!("lattice site ({i}, {j}, {k}): "),
                )
            }
            Origin::PackLines(file, lines) => (
                b.get("file").map(|v| v.span()).unwrap_or(b.span.clone()),
                b.key("file"),
                match lines.get(k) {
                    Some(line) => format!("{}:{line}: ", file.display()),
                    None => String::new(),
                },
            ),
        }
    }
}

/// A block's particle source as read: the positions, and what a pack file or lattice adds.
struct Source {
    pos: Vec<[f64; 3]>,
    /// A pack file's radii; empty for other sources.
    radius: Vec<f64>,
    /// A pack file's velocities, or a lattice's random ones at `speed`; empty when neither.
    vel: Vec<Option<[f64; 3]>>,
    origin: Origin,
    /// The source as messages name it.
    name: &'static str,
}

/// The shape of a block's particles.
enum Shape {
    Sphere,
    Capsule { half_length: f64 },
    Clump(Clump),
}

/// A clump's rigid-body properties and its member spheres' radii.
struct Clump {
    props: ClumpProps,
    member_radii: Vec<f64>,
}

/// A block read whole, before its particles are checked against the domain and pushed.
struct Block {
    source: Source,
    radii: Vec<f64>,
    vel: Vec<[f64; 3]>,
    omega: Vec<[f64; 3]>,
    fixed: Vec<bool>,
    quats: Vec<[f32; 4]>,
    shape: Shape,
}

/// Read every `[[particles]]` block into `particles`, noting each block's material in `uses`.
/// A scene of shells or inserted particles alone needs no `[[particles]]` block.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    domain: &Domain,
    materials: &[Material],
    particles: &mut Particles,
    uses: &mut MaterialUses,
) -> Result<(), SceneError> {
    let blocks = match (
        root.get("particles"),
        root.get("shell")
            .or(root.get("ring"))
            .or(root.get("insert"))
            .or(root.get("initial")),
    ) {
        (None, Some(_)) => Vec::new(),
        _ => ctx.tables(
            root.req(
                "particles",
                "at least one [[particles]], [[shell]] or [[ring]] block",
            )?,
            "particles",
        )?,
    };
    for b in &blocks {
        b.deny_unknown(&[
            "material",
            "radius",
            "radii",
            "lattice",
            "file",
            "positions",
            "velocities",
            "angular_velocities",
            "fixed",
            "velocity",
            "shape",
            "length",
            "orientation",
            "orientations",
            "members",
        ])?;
        let mat_v = b.req("material", "a material name")?;
        let mi = material_of(ctx, materials, mat_v, &b.key("material"))?;
        uses.note(mi, mat_v.span(), b.key("material"));
        let density = materials.get(mi).map(|m| m.density).unwrap_or(0.0);
        let before = particles.len();
        add_block(ctx, b, domain, mi as u32, density, particles)?;
        let largest = particles.pos[before..]
            .iter()
            .map(|p| p[3] as f64)
            .fold(0.0, f64::max);
        let k = ["radius", "radii", "members", "file", "lattice", "positions"]
            .into_iter()
            .find(|k| b.get(k).is_some())
            .unwrap_or("radius");
        let span = b.get(k).map(|v| v.span()).unwrap_or(b.span.clone());
        crate::checks::radius_fits_domain(ctx, domain, largest, &span, &b.key(k))?;
    }
    Ok(())
}

/// Read one `[[particles]]` block and append its particles to `out`.
fn add_block(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &Domain,
    material: u32,
    density: f64,
    out: &mut Particles,
) -> Result<(), SceneError> {
    let mut source = read_source(ctx, b, domain, out.len())?;
    let n = source.pos.len();
    let clump = clump_members(ctx, b, density)?;
    let radii = radii(ctx, b, clump.as_ref(), &mut source, n)?;
    let vel = velocities(ctx, b, &source, n)?;
    let omega = angular_velocities(ctx, b, &source, n)?;
    let fixed = fixed_flags(ctx, b, &source, n)?;
    let shape = block_shape(ctx, b, clump)?;
    let quats = orientations(ctx, b, &source, n)?;
    let block = Block {
        source,
        radii,
        vel,
        omega,
        fixed,
        quats,
        shape,
    };
    push_block(ctx, b, domain, &block, material, density, out)
}

/// A list with one entry per particle of the block; `what` describes an entry.
fn per_particle<'a, 'i>(
    ctx: &Ctx<'_>,
    v: &'a Value<'i>,
    key: &str,
    n: usize,
    what: &str,
    source: &str,
) -> Result<&'a toml::de::DeArray<'i>, SceneError> {
    let a = ctx.array(v, key, &format!("an array of {what}, one per particle"))?;
    if a.len() != n {
        return Err(ctx.err(
            &v.span(),
            key,
            format!(
                "expected {n} entries (one per particle of {source}), found {}",
                a.len()
            ),
        ));
    }
    Ok(a)
}

/// The block's one particle source: `lattice`, `file` or `positions`. `before` particles
/// precede the block in the scene.
fn read_source(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &Domain,
    before: usize,
) -> Result<Source, SceneError> {
    let sources: Vec<&str> = ["lattice", "file", "positions"]
        .into_iter()
        .filter(|k| b.get(k).is_some())
        .collect();
    if sources.is_empty() {
        return Err(ctx.err(
            &b.span,
            &b.key("positions"),
            "missing a particle source: expected exactly one of `lattice = { spacing, count }`, `file = \"pack.txt\"` or `positions = [[x, y, z], ...]`",
        ));
    }
    if sources.len() > 1 {
        let mut spans: Vec<(Range<usize>, &str)> =
            sources.iter().map(|k| (b.key_span(k), *k)).collect();
        spans.sort_by_key(|s| s.0.start);
        let (span, k) = spans.pop().unwrap_or((b.span.clone(), "lattice"));
        return Err(ctx.err(
            &span,
            &b.key(k),
            format!(
                "expected exactly one particle source, found {}",
                sources.join(" and ")
            ),
        ));
    }
    if let Some(lv) = b.get("lattice") {
        lattice_source(ctx, b, lv, domain, before)
    } else if let Some(fv) = b.get("file") {
        file_source(ctx, b, fv, before)
    } else {
        listed_source(ctx, b, before)
    }
}

/// `lattice = { spacing, count, origin, jitter, seed, speed }`.
fn lattice_source(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    lv: &Value<'_>,
    domain: &Domain,
    before: usize,
) -> Result<Source, SceneError> {
    let lkey = b.key("lattice");
    let t = ctx.table(
        lv,
        &lkey,
        "a table { spacing, count = [nx, ny, nz], origin, jitter, seed, speed }",
    )?;
    t.deny_unknown(&["spacing", "count", "origin", "jitter", "seed", "speed"])?;
    let spacing = ctx.positive(
        t.req("spacing", "a positive number (m)")?,
        &t.key("spacing"),
        "m",
    )?;
    let count = lattice_count(ctx, &t, before)?;
    let planar = ctx.planar.get();
    if planar && count[2] != 1 {
        let cv = t.req("count", "[nx, ny, nz]")?;
        return Err(ctx.err(
            &cv.span(),
            &t.key("count"),
            format!(
                "a 2-D scene's lattice has one layer, in the plane z = 0; expected count = [{}, {}, 1]",
                count[0], count[1]
            ),
        ));
    }
    let origin_xyz = match t.get("origin") {
        Some(v) => ctx.vec3(v, &t.key("origin"), "m")?,
        // In 2-D the one layer lies in z = 0.
        None if planar => [
            domain.min[0] + 0.5 * spacing,
            domain.min[1] + 0.5 * spacing,
            0.0,
        ],
        None => domain.min.map(|m| m + 0.5 * spacing),
    };
    let jitter = match t.get("jitter") {
        Some(v) => {
            let j = ctx.non_negative(v, &t.key("jitter"), "fraction of spacing")?;
            if j >= 0.5 {
                return Err(ctx.err(
                    &v.span(),
                    &t.key("jitter"),
                    format!(
                        "expected a fraction of the spacing in [0, 0.5), found {}",
                        ctx.found(v)
                    ),
                ));
            }
            j
        }
        None => 0.0,
    };
    let seed = match t.get("seed") {
        Some(v) => ctx.integer(v, &t.key("seed"), 0)?,
        None => 0,
    };
    let speed = match t.get("speed") {
        Some(v) => Some(ctx.non_negative(v, &t.key("speed"), "m/s")?),
        None => None,
    };
    let lat = Lattice {
        spacing,
        count,
        origin: origin_xyz,
        jitter,
        seed,
        planar,
    };
    let mut pos = Vec::with_capacity(lat.len() as usize);
    let mut vel = Vec::new();
    for p in 0..lat.len() {
        pos.push(lat.position(p));
        if let Some(v) = speed {
            vel.push(Some(lat.random_velocity(p, v)));
        }
    }
    Ok(Source {
        pos,
        radius: Vec::new(),
        vel,
        origin: Origin::Lattice(lv.span(), lkey, lat),
        name: "the lattice",
    })
}

/// A lattice's `count = [nx, ny, nz]`, its total within the scene's particle and memory
/// limits.
fn lattice_count(ctx: &Ctx<'_>, t: &Table<'_, '_>, before: usize) -> Result<[u64; 3], SceneError> {
    let cv = t.req("count", "[nx, ny, nz] (positive integers)")?;
    let what = "[nx, ny, nz] (3 positive integers)";
    let ca = ctx.array(cv, &t.key("count"), what)?;
    if ca.len() != 3 {
        return Err(ctx.err(
            &cv.span(),
            &t.key("count"),
            format!("expected {what}, found {} element(s)", ca.len()),
        ));
    }
    let mut count = [0u64; 3];
    for (k, (x, o)) in ca.iter().zip(count.iter_mut()).enumerate() {
        *o = ctx.integer(x, &format!("{}[{k}]", t.key("count")), 1)?;
    }
    let total = count
        .iter()
        .try_fold(1u64, |acc, &c| acc.checked_mul(c))
        .unwrap_or(u64::MAX);
    if total.saturating_add(before as u64) > MAX_PARTICLES {
        return Err(ctx.err(
            &cv.span(),
            &t.key("count"),
            format!("{total} lattice sites; a scene holds at most {MAX_PARTICLES} particles"),
        ));
    }
    ctx.check_memory(before as u64 + total, &cv.span(), &t.key("count"))?;
    Ok(count)
}

/// `file = "pack.txt"`: one particle per `x y z r [vx vy vz]` line, the path relative to the
/// scene's folder. The file gives the radii, so `radius` and `radii` are refused.
fn file_source(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    fv: &Value<'_>,
    before: usize,
) -> Result<Source, SceneError> {
    let fkey = b.key("file");
    let name = ctx.string(
        fv,
        &fkey,
        "a path to an `x y z r [vx vy vz]` file (a string)",
    )?;
    let base = ctx.file.parent().unwrap_or(Path::new(""));
    let full = base.join(name);
    let text = std::fs::read_to_string(&full).map_err(|e| {
        ctx.err(
            &fv.span(),
            &fkey,
            format!("cannot read particle file {}: {e}", full.display()),
        )
    })?;
    let pack = parse_pack(&text).map_err(|e| {
        ctx.err(
            &fv.span(),
            &fkey,
            format!("{}:{}: {}", full.display(), e.line, e.message),
        )
    })?;
    if pack.is_empty() {
        return Err(ctx.err(
            &fv.span(),
            &fkey,
            format!(
                "particle file {} holds no particle lines (expected `x y z r [vx vy vz]`)",
                full.display()
            ),
        ));
    }
    if (pack.len() as u64).saturating_add(before as u64) > MAX_PARTICLES {
        return Err(ctx.err(
            &fv.span(),
            &fkey,
            format!("a scene holds at most {MAX_PARTICLES} particles"),
        ));
    }
    ctx.check_memory(before as u64 + pack.len() as u64, &fv.span(), &fkey)?;
    let mut pos = Vec::with_capacity(pack.len());
    let mut radius = Vec::with_capacity(pack.len());
    let mut vel = Vec::with_capacity(pack.len());
    let mut lines = Vec::with_capacity(pack.len());
    for p in &pack {
        pos.push(p.pos);
        radius.push(p.radius);
        vel.push(p.vel);
        lines.push(p.line);
    }
    for k in ["radius", "radii"] {
        if b.get(k).is_some() {
            return Err(ctx.err(
                &b.key_span(k),
                &b.key(k),
                "the particle file gives each radius; remove this key",
            ));
        }
    }
    Ok(Source {
        pos,
        radius,
        vel,
        origin: Origin::PackLines(full, lines),
        name: "the file",
    })
}

/// `positions = [[x, y, z], ...]`.
fn listed_source(ctx: &Ctx<'_>, b: &Table<'_, '_>, before: usize) -> Result<Source, SceneError> {
    let pv = b.req("positions", "[[x, y, z], ...]")?;
    let pkey = b.key("positions");
    let list = ctx.array(pv, &pkey, "an array of [x, y, z] positions (m)")?;
    if list.is_empty() {
        return Err(ctx.err(
            &pv.span(),
            &pkey,
            "expected at least one position [x, y, z] (m)",
        ));
    }
    if (list.len() as u64).saturating_add(before as u64) > MAX_PARTICLES {
        return Err(ctx.err(
            &pv.span(),
            &pkey,
            format!("a scene holds at most {MAX_PARTICLES} particles"),
        ));
    }
    ctx.check_memory(before as u64 + list.len() as u64, &pv.span(), &pkey)?;
    let mut pos = Vec::new();
    let mut spans = Vec::with_capacity(list.len());
    for (k, x) in list.iter().enumerate() {
        let key = format!("{pkey}[{k}]");
        pos.push(ctx.vec3(x, &key, "m")?);
        spans.push((x.span(), key));
    }
    Ok(Source {
        pos,
        radius: Vec::new(),
        vel: Vec::new(),
        origin: Origin::Spans(spans),
        name: "positions",
    })
}

/// A clump's member spheres: `members = [{ offset = [x, y, z], radius = r }, ...]`, the
/// offsets from each position (m) in the clump's own frame. `None` for other shapes; the
/// shape word itself is checked later ([`block_shape`]).
fn clump_members(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    density: f64,
) -> Result<Option<Clump>, SceneError> {
    let is_clump = b.get("shape").and_then(|v| v.get_ref().as_str()) == Some("clump");
    let clump = if let Some(mv) = b.get("members") {
        let key = b.key("members");
        if !is_clump {
            return Err(ctx.err(
                &b.key_span("members"),
                &key,
                "`members` is a clump's; add shape = \"clump\" or remove it",
            ));
        }
        let what = "an array of { offset = [x, y, z], radius = r } (m), at least one";
        let list = ctx.array(mv, &key, what)?;
        if list.is_empty() {
            return Err(ctx.err(&mv.span(), &key, format!("expected {what}")));
        }
        let mut spheres = Vec::new();
        for (k, m) in list.iter().enumerate() {
            let mkey = format!("{key}[{k}]");
            let t = ctx.table(m, &mkey, "a table { offset = [x, y, z], radius = r }")?;
            t.deny_unknown(&["offset", "radius"])?;
            let o = ctx.vec3(t.req("offset", "[x, y, z] (m)")?, &t.key("offset"), "m")?;
            let r = ctx.positive(
                t.req("radius", "a positive number (m)")?,
                &t.key("radius"),
                "m",
            )?;
            spheres.push((o, r));
        }
        Some(Clump {
            props: grains_core::shapes::clump_props(&spheres, density, 96),
            member_radii: spheres.iter().map(|s| s.1).collect(),
        })
    } else if is_clump {
        return Err(ctx.err(
            &b.span,
            &b.key("members"),
            "missing required key `members` (expected the clump's spheres: members = [{ offset = [x, y, z], radius = r }, ...])",
        ));
    } else {
        None
    };
    if is_clump {
        for k in ["radius", "radii"] {
            if b.get(k).is_some() {
                return Err(ctx.err(
                    &b.key_span(k),
                    &b.key(k),
                    "a clump's spheres give its size: remove this key (each member has its radius)",
                ));
            }
        }
    }
    Ok(clump)
}

/// Each particle's radius: a clump's bounding radius, the pack file's (taken from `source`),
/// or `radius` / `radii`.
fn radii(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    clump: Option<&Clump>,
    source: &mut Source,
    n: usize,
) -> Result<Vec<f64>, SceneError> {
    if let Some(c) = clump {
        // The bounding radius about each position, for the domain check.
        let bound = c
            .props
            .offsets
            .iter()
            .zip(&c.member_radii)
            .map(|(o, r)| (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]).sqrt() + r)
            .fold(0.0, f64::max);
        return Ok(vec![bound; n]);
    }
    if !source.radius.is_empty() {
        return Ok(std::mem::take(&mut source.radius));
    }
    match (b.get("radius"), b.get("radii")) {
        (Some(_), Some(_)) => Err(ctx.err(
            &b.key_span("radii").max_by_start(b.key_span("radius")),
            &b.key("radii"),
            "give either `radius` (m) or `radii` (one per particle), not both",
        )),
        (None, None) => Err(ctx.err(
            &b.span,
            &b.key("radius"),
            "missing required key `radius` (expected a positive number (m), or `radii` with one per particle)",
        )),
        (Some(r), None) => Ok(vec![ctx.positive(r, &b.key("radius"), "m")?; n]),
        (None, Some(rv)) => {
            let key = b.key("radii");
            let a = per_particle(ctx, rv, &key, n, "radii (m)", source.name)?;
            let mut out = Vec::with_capacity(n);
            for (k, x) in a.iter().enumerate() {
                out.push(ctx.positive(x, &format!("{key}[{k}]"), "m")?);
            }
            Ok(out)
        }
    }
}

/// Each particle's velocity, by priority: its `velocities` entry, its source's velocity (pack
/// file line or lattice speed), the block's `velocity`, zero.
fn velocities(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    source: &Source,
    n: usize,
) -> Result<Vec<[f64; 3]>, SceneError> {
    let block_vel = match b.get("velocity") {
        Some(v) => Some(ctx.vec3(v, &b.key("velocity"), "m/s")?),
        None => None,
    };
    let mut vel: Vec<[f64; 3]> = (0..n)
        .map(|k| {
            source
                .vel
                .get(k)
                .copied()
                .flatten()
                .or(block_vel)
                .unwrap_or([0.0; 3])
        })
        .collect();
    if let Some(vv) = b.get("velocities") {
        let key = b.key("velocities");
        if block_vel.is_some() {
            return Err(ctx.err(
                &b.key_span("velocities").max_by_start(b.key_span("velocity")),
                &key,
                "give either `velocity` (the whole block) or `velocities` (one per particle), not both",
            ));
        }
        let a = per_particle(
            ctx,
            vv,
            &key,
            n,
            "velocities [vx, vy, vz] (m/s)",
            source.name,
        )?;
        for (k, (x, o)) in a.iter().zip(vel.iter_mut()).enumerate() {
            *o = ctx.vec3(x, &format!("{key}[{k}]"), "m/s")?;
        }
    }
    Ok(vel)
}

/// Each particle's angular velocity: its `angular_velocities` entry, else zero.
fn angular_velocities(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    source: &Source,
    n: usize,
) -> Result<Vec<[f64; 3]>, SceneError> {
    let mut omega = vec![[0.0; 3]; n];
    if let Some(wv) = b.get("angular_velocities") {
        let key = b.key("angular_velocities");
        let a = per_particle(
            ctx,
            wv,
            &key,
            n,
            "angular velocities [wx, wy, wz] (rad/s)",
            source.name,
        )?;
        for (k, (x, o)) in a.iter().zip(omega.iter_mut()).enumerate() {
            *o = ctx.vec3(x, &format!("{key}[{k}]"), "rad/s")?;
        }
    }
    Ok(omega)
}

/// Whether each particle is fixed: `fixed` as one boolean for the block or one per particle.
fn fixed_flags(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    source: &Source,
    n: usize,
) -> Result<Vec<bool>, SceneError> {
    let mut fixed = vec![false; n];
    if let Some(fv) = b.get("fixed") {
        let key = b.key("fixed");
        if let Some(all) = fv.get_ref().as_bool() {
            fixed = vec![all; n];
        } else {
            let a = per_particle(
                ctx,
                fv,
                &key,
                n,
                "booleans (or one boolean for the block)",
                source.name,
            )?;
            for (k, (x, o)) in a.iter().zip(fixed.iter_mut()).enumerate() {
                *o = ctx.boolean(x, &format!("{key}[{k}]"))?;
            }
        }
    }
    Ok(fixed)
}

/// The shape: a sphere unless `shape` says otherwise; a capsule's segment length; `clump` the
/// members read by [`clump_members`]. Keys of another shape are refused.
fn block_shape(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    clump: Option<Clump>,
) -> Result<Shape, SceneError> {
    let word = match b.get("shape") {
        Some(v) => {
            let key = b.key("shape");
            let word = ctx.string(v, &key, "\"sphere\", \"capsule\" or \"clump\"")?;
            match word {
                "sphere" | "capsule" | "clump" => word,
                other => {
                    return Err(ctx.err(
                        &v.span(),
                        &key,
                        format!(
                        "unknown shape \"{other}\"; expected \"sphere\", \"capsule\" or \"clump\""
                    ),
                    ))
                }
            }
        }
        None => "sphere",
    };
    let capsule = word == "capsule";
    let rigid = capsule || word == "clump";
    for k in ["length", "orientation", "orientations"] {
        if (k == "length" && !capsule || !rigid) && b.get(k).is_some() {
            return Err(ctx.err(
                &b.key_span(k),
                &b.key(k),
                format!("`{k}` is a capsule's or a clump's; add shape = \"capsule\" (or \"clump\") or remove it"),
            ));
        }
    }
    if capsule {
        return Ok(Shape::Capsule {
            half_length: capsule_half_length(ctx, b)?,
        });
    }
    Ok(match clump {
        Some(c) => Shape::Clump(c),
        None => Shape::Sphere,
    })
}

/// Half a capsule's `length` (its segment, m).
fn capsule_half_length(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<f64, SceneError> {
    let v = b.req("length", "the capsule's segment length, a number >= 0 (m)")?;
    let len = ctx.number(v, &b.key("length"), "a number >= 0 (m)")?;
    if !(len >= 0.0 && len.is_finite()) {
        return Err(ctx.err(
            &v.span(),
            &b.key("length"),
            format!("the segment length must be >= 0 (m), found {len}"),
        ));
    }
    Ok(0.5 * len)
}

/// Each particle's orientation as a quaternion `[x, y, z, w]`: `orientation` for the block
/// (or `"random"`), `orientations` one per particle, else the identity (body z along z).
fn orientations(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    source: &Source,
    n: usize,
) -> Result<Vec<[f32; 4]>, SceneError> {
    let mut quats = vec![[0.0f32, 0.0, 0.0, 1.0]; n];
    match (b.get("orientation"), b.get("orientations")) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(
                &b.key_span("orientations").max_by_start(b.key_span("orientation")),
                &b.key("orientations"),
                "give either `orientation` (the whole block) or `orientations` (one per particle), not both",
            ))
        }
        (Some(v), None) if v.get_ref().as_str() == Some("random") => {
            for (k, q) in quats.iter_mut().enumerate() {
                *q = random_orientation(k);
            }
        }
        (Some(v), None) => quats = vec![unit_quaternion(ctx, v, &b.key("orientation"))?; n],
        (None, Some(v)) => {
            let key = b.key("orientations");
            let a = per_particle(ctx, v, &key, n, "quaternions [w, x, y, z]", source.name)?;
            for (k, (x, o)) in a.iter().zip(quats.iter_mut()).enumerate() {
                *o = unit_quaternion(ctx, x, &format!("{key}[{k}]"))?;
            }
        }
        (None, None) => {}
    }
    Ok(quats)
}

/// A uniform random orientation `[x, y, z, w]` (Shoemake's subgroup algorithm), seeded by the
/// particle's place `k` in the block, so a scene always starts the same.
fn random_orientation(k: usize) -> [f32; 4] {
    let mut rng = grains_core::parity::SplitMix(0x0C4A_5B1E ^ ((k as u64) << 20));
    let (u1, u2, u3) = (rng.uniform(), rng.uniform(), rng.uniform());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let tau = 2.0 * std::f64::consts::PI;
    [
        (a * (tau * u2).sin()) as f32,
        (a * (tau * u2).cos()) as f32,
        (b * (tau * u3).sin()) as f32,
        (b * (tau * u3).cos()) as f32,
    ]
}

/// A quaternion written `[w, x, y, z]`, normalised and stored `[x, y, z, w]`.
fn unit_quaternion(ctx: &Ctx<'_>, v: &Value<'_>, key: &str) -> Result<[f32; 4], SceneError> {
    let what = "a unit quaternion [w, x, y, z]";
    let q = ctx.quaternion(v, key)?;
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(norm > 1e-6 && norm.is_finite()) {
        return Err(ctx.err(
            &v.span(),
            key,
            format!("{what} must not be zero, found {}", vec3(&q)),
        ));
    }
    let [w, x, y, z] = q.map(|c| (c / norm) as f32);
    Ok([x, y, z, w])
}

/// Check each particle of the block against the domain and f32's range, and append it to
/// `out`.
fn push_block(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &Domain,
    block: &Block,
    material: u32,
    density: f64,
    out: &mut Particles,
) -> Result<(), SceneError> {
    let n = block.source.pos.len();
    // Room for the block at once: grown one push at a time, each array would double past it and
    // hold up to twice the block until the world is trimmed.
    out.reserve_exact(n);
    for k in 0..n {
        let (x, r) = (
            block.source.pos[k],
            block.radii.get(k).copied().unwrap_or(0.0),
        );
        if let Some(axis) = (0..3).find(|&c| !(x[c] >= domain.min[c] && x[c] <= domain.max[c])) {
            let (span, key, prefix) = block.source.origin.locate(b, k);
            return Err(ctx.err(
                &span,
                &key,
                format!(
                    "{prefix}particle centre {} lies outside the domain on {} (expected {} <= {} <= {})",
                    point3(&x), ["x", "y", "z"][axis], qty(domain.min[axis], "m"), ["x", "y", "z"][axis], qty(domain.max[axis], "m")
                ),
            ));
        }
        let (mass, inertia) = mass_and_inertia(&block.shape, r, density);
        let ok = |m: f64| {
            m.is_finite()
                && (m as f32).is_finite()
                && (m as f32) > 0.0
                && ((1.0 / m) as f32).is_finite()
        };
        if !ok(mass) || !ok(inertia) {
            let (span, key, prefix) = block.source.origin.locate(b, k);
            return Err(ctx.err(
                &span,
                &key,
                format!("{prefix}radius {} gives mass {} and moment of inertia {}, outside what f32 can hold; expected a radius and density of physical size", qty(r, "m"), qty(mass, "kg"), qty(inertia, "kg m^2")),
            ));
        }
        push_particle(out, block, k, material, density);
    }
    Ok(())
}

/// A particle's mass and its smallest principal moment of inertia, for the f32 range check.
fn mass_and_inertia(shape: &Shape, r: f64, density: f64) -> (f64, f64) {
    match shape {
        Shape::Clump(c) => (
            c.props.mass,
            c.props.mass * c.props.k.iter().cloned().fold(f64::INFINITY, f64::min),
        ),
        Shape::Capsule { half_length } => {
            let (m, perp, axial) = grains_core::shapes::capsule_inertia(*half_length, r, density);
            (m, perp.min(axial))
        }
        Shape::Sphere => {
            let m = density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
            (m, 0.4 * m * r * r)
        }
    }
}

/// Append particle `k` of the block to `out`, as its shape.
fn push_particle(out: &mut Particles, block: &Block, k: usize, material: u32, density: f64) {
    let x = block.source.pos[k];
    let r = block.radii.get(k).copied().unwrap_or(0.0);
    let (vel, omega, fixed) = (block.vel[k], block.omega[k], block.fixed[k]);
    match &block.shape {
        Shape::Clump(c) => out.push_clump(
            x,
            &c.props,
            &c.member_radii,
            block.quats[k],
            vel,
            omega,
            material,
            fixed,
        ),
        Shape::Capsule { half_length } => out.push_capsule(
            x,
            r,
            *half_length,
            block.quats[k],
            vel,
            omega,
            material,
            density,
            fixed,
        ),
        Shape::Sphere => out.push_sphere(x, r, vel, omega, material, density, fixed),
    }
}
