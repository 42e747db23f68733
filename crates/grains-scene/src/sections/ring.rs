//! The `[[ring]]` blocks: closed polylines of nodes in a 2-D scene, the deformable cells of the
//! plane, whose nodes join the particles after every `[[shell]]` node and whose elements the
//! shell passes run ([`grains_core::rings`]).
//!
//! ```toml
//! [[ring]]
//! material = "cortex"
//! thickness = 1e-7                         # m
//! circle = { center = [0, 0], radius = 5e-6, nodes = 64 }
//! # or: points = [[x, y], ...] (anticlockwise), or file = "cell.csv" (one "x y" a line)
//! contact_radius = 1e-7                    # m, default 0.45 of the shortest segment
//! velocity = [0, 0]                        # m/s, every node
//! stretch = { law = "spring", stiffness = 1e-3 }
//! bending = { law = "linear_bending", stiffness = 1e-18 }
//! damping = { law = "shell_viscosity", viscosity = 1e-3 }
//! area = { law = "area_conservation", stiffness = 1e-2 }
//! contact = { law = "node_to_segment", stiffness = 1.0, self_contact = false }
//! array = { count = [20, 15], spacing = [1.1e-5, 1.1e-5] }   # copies on a grid
//! ```

use std::path::Path;

use grains_core::kernels::shell::{
    area_conservation, elastic_bending, penalty, DampingLaw, ShellLaws, ShellSlot,
};
use grains_core::material::Material;
use grains_core::rings::{circle, AreaLaw, RingLaws, RingSpec};
use grains_core::shells::Shells;
use grains_core::shells::SurfaceContact;
use grains_core::{Domain, Particles};

use crate::error::SceneError;
use crate::law_keys::SlotKeys;
use crate::walk::{Ctx, Table, Value};

/// Largest node count of one ring.
const MAX_NODES: u64 = 1 << 20;

/// Parse every `[[ring]]` block, appending its nodes to `particles` and its elements to
/// `shells`. Rings live in the plane: a scene without `[domain] dimensions = 2` is refused.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    domain: &Domain,
    shells: &mut Shells,
    particles: &mut Particles,
) -> Result<(), SceneError> {
    let Some(v) = root.get("ring") else {
        return Ok(());
    };
    let blocks = ctx.tables(v, "ring")?;
    if let (false, Some(b)) = (ctx.planar.get(), blocks.first()) {
        return Err(ctx.err(
            &b.span,
            &b.path,
            "a ring is a closed polyline in the plane z = 0, for 2-D scenes; add \
             `dimensions = 2` to [domain] (in 3-D, a [[shell]] is the deformable cell)",
        ));
    }
    let before = particles.len();
    for b in blocks {
        let spec = ring_spec(ctx, &b, materials, &particles.material[..before])?;
        let first = particles.len();
        let key = ["circle", "points", "file"]
            .into_iter()
            .find(|k| b.get(k).is_some())
            .unwrap_or("circle");
        for offset in copies(ctx, &b, spec.points.len())? {
            let mut copy = spec.clone();
            copy.points
                .iter_mut()
                .for_each(|p| *p = [p[0] + offset[0], p[1] + offset[1]]);
            shells.add_ring(&copy, materials, particles).map_err(|e| {
                let (line, column) = ctx.line_col(b.key_span(key).start);
                SceneError::Core {
                    file: ctx.file.to_path_buf(),
                    line,
                    column,
                    key: b.key(key),
                    err: e,
                }
            })?;
        }
        inside_domain(ctx, &b, key, domain, &particles.pos[first..])?;
    }
    Ok(())
}

/// The offsets of the block's copies of its ring: `array = { count = [nx, ny], spacing =
/// [dx, dy] }` repeats it on a grid (row by row, x fastest), else one copy in place.
fn copies(ctx: &Ctx<'_>, b: &Table<'_, '_>, nodes: usize) -> Result<Vec<[f64; 2]>, SceneError> {
    let Some(v) = b.get("array") else {
        return Ok(vec![[0.0; 2]]);
    };
    let t = ctx.table(
        v,
        &b.key("array"),
        "a table { count = [nx, ny], spacing = [dx, dy] }",
    )?;
    t.deny_unknown(&["count", "spacing"])?;
    let cv = t.req("count", "[nx, ny] (positive integers)")?;
    let [nx, ny] = ctx.count_pair(cv, &t.key("count"), u64::MAX, "copies")?;
    let total = nx.saturating_mul(ny).saturating_mul(nodes as u64);
    ctx.check_memory(total, &cv.span(), &t.key("count"))?;
    let spacing = point2(
        ctx,
        t.req("spacing", "[dx, dy] (m)")?,
        &t.key("spacing"),
        "m",
    )?;
    Ok((0..ny)
        .flat_map(|j| (0..nx).map(move |i| [i as f64 * spacing[0], j as f64 * spacing[1]]))
        .collect())
}

/// One block's ring.
fn ring_spec(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    materials: &[Material],
    others: &[u32],
) -> Result<RingSpec, SceneError> {
    b.deny_unknown(&[
        "material",
        "thickness",
        "circle",
        "points",
        "file",
        "contact_radius",
        "velocity",
        "stretch",
        "bending",
        "damping",
        "area",
        "contact",
        "array",
    ])?;
    let mv = b.req("material", "a material name")?;
    let material = crate::sections::material::material_of(ctx, materials, mv, &b.key("material"))?;
    if others.contains(&(material as u32)) {
        return Err(ctx.err(
            &mv.span(),
            &b.key("material"),
            format!(
                "material \"{}\" is also given to other particles; a ring needs a material of \
                 its own",
                materials[material].name
            ),
        ));
    }
    let thickness = ctx.positive(
        b.req(
            "thickness",
            "the membrane's thickness, a positive number (m)",
        )?,
        &b.key("thickness"),
        "m",
    )?;
    let contact_radius = b
        .get("contact_radius")
        .map(|v| ctx.positive(v, &b.key("contact_radius"), "m"))
        .transpose()?;
    let velocity = match b.get("velocity") {
        Some(v) => point2(ctx, v, &b.key("velocity"), "m/s")?,
        None => [0.0; 2],
    };
    Ok(RingSpec {
        points: points_of(ctx, b)?,
        material: material as u32,
        thickness,
        contact_radius,
        velocity,
        laws: laws_of(ctx, b)?,
    })
}

/// `[x, y]` (or `[x, y, 0]`) in the plane.
fn point2(ctx: &Ctx<'_>, v: &Value<'_>, key: &str, unit: &str) -> Result<[f64; 2], SceneError> {
    let what = format!("[x, y] ({unit})");
    let a = ctx.array(v, key, &what)?;
    if !(a.len() == 2 || a.len() == 3) {
        return Err(ctx.err(
            &v.span(),
            key,
            format!("expected {what}, found {} element(s)", a.len()),
        ));
    }
    let mut p = [0.0; 3];
    for (k, x) in a.iter().enumerate() {
        p[k] = ctx.number(x, &format!("{key}[{k}]"), unit)?;
    }
    if p[2] != 0.0 {
        return Err(ctx.err(
            &v.span(),
            key,
            format!("a ring lies in the plane z = 0; found z = {}", p[2]),
        ));
    }
    Ok([p[0], p[1]])
}

/// The block's nodes: exactly one of `circle`, `points`, `file`.
fn points_of(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<Vec<[f64; 2]>, SceneError> {
    let given: Vec<&str> = ["circle", "points", "file"]
        .into_iter()
        .filter(|k| b.get(k).is_some())
        .collect();
    if given.len() != 1 {
        let k = given.get(1).copied().unwrap_or("circle");
        let span = given
            .get(1)
            .map(|k| b.key_span(k))
            .unwrap_or(b.span.clone());
        return Err(ctx.err(
            &span,
            &b.key(k),
            format!(
                "expected exactly one source of nodes: `circle = {{ center, radius, nodes }}`, \
                 `points = [[x, y], ...]` or `file = \"ring.csv\"`; found {}",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(" and ")
                }
            ),
        ));
    }
    let v = b.get(given[0]).unwrap_or_else(|| unreachable!());
    match given[0] {
        "circle" => {
            let t = ctx.table(v, &b.key("circle"), "a table { center, radius, nodes }")?;
            t.deny_unknown(&["center", "radius", "nodes"])?;
            let center = point2(ctx, t.req("center", "[x, y] (m)")?, &t.key("center"), "m")?;
            let radius = ctx.positive(
                t.req("radius", "a positive number (m)")?,
                &t.key("radius"),
                "m",
            )?;
            let nv = t.req("nodes", "an integer of at least 3")?;
            let n = ctx.integer(nv, &t.key("nodes"), 3)?;
            if n > MAX_NODES {
                return Err(ctx.err(
                    &nv.span(),
                    &t.key("nodes"),
                    format!("expected at most {MAX_NODES} nodes, found {n}"),
                ));
            }
            ctx.check_memory(n, &nv.span(), &t.key("nodes"))?;
            Ok(circle(center, radius, n as u32))
        }
        "points" => {
            let a = ctx.array(v, &b.key("points"), "[[x, y], ...] (m)")?;
            a.iter()
                .enumerate()
                .map(|(k, p)| point2(ctx, p, &format!("{}[{k}]", b.key("points")), "m"))
                .collect()
        }
        _ => {
            let name = ctx.string(v, &b.key("file"), "a path to a file of points")?;
            let full = ctx.file.parent().unwrap_or(Path::new("")).join(name);
            read_points(&full)
                .map_err(|m| ctx.err(&v.span(), &b.key("file"), format!("{}{m}", full.display())))
        }
    }
}

/// A file of points, one `x y` (or `x,y`) a line, `#` comments and blank lines skipped; the
/// error names the line (`":LINE: what"`).
fn read_points(path: &Path) -> Result<Vec<[f64; 2]>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!(": {e}"))?;
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        let xy: Vec<f64> = f.iter().filter_map(|s| s.parse::<f64>().ok()).collect();
        if f.len() != 2 || xy.len() != 2 || !xy.iter().all(|x| x.is_finite()) {
            return Err(format!(
                ":{}: expected two numbers \"x y\" (m), found \"{line}\"",
                k + 1
            ));
        }
        out.push([xy[0], xy[1]]);
    }
    Ok(out)
}

/// A law's keyword and its keys besides `law`.
type LawWords = (&'static str, &'static [&'static str]);

/// The block's laws, slot by slot.
fn laws_of(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<RingLaws, SceneError> {
    let mut laws = RingLaws::default();
    let slots: [(&str, &[LawWords]); 5] = [
        ("stretch", &[("spring", &["stiffness"])]),
        ("bending", ShellSlot::Bending.laws()),
        ("damping", ShellSlot::Damping.laws()),
        (
            "area",
            &[(area_conservation::KEYWORD, area_conservation::KEYS)],
        ),
        ("contact", &[(penalty::KEYWORD, penalty::KEYS)]),
    ];
    for (slot, accepted) in slots {
        let Some(sv) = b.get(slot) else { continue };
        let names: Vec<String> = accepted
            .iter()
            .map(|(w, _)| *w)
            .filter(|w| *w != elastic_bending::SHELL_KEYWORD)
            .map(|w| format!("\"{w}\""))
            .collect();
        let names = names.join(", ");
        let t = ctx.table(
            sv,
            &b.key(slot),
            &format!("a table {{ law = ... }} with law one of {names}"),
        )?;
        let lv = t.req("law", &format!("one of {names}"))?;
        let word = ctx.string(lv, &t.key("law"), &format!("one of {names}"))?;
        let found = accepted
            .iter()
            .find(|(w, _)| *w == word && word != elastic_bending::SHELL_KEYWORD);
        let Some(&(_, keys)) = found else {
            return Err(ctx.err(
                &lv.span(),
                &t.key("law"),
                format!("unknown ring {slot} law \"{word}\"; accepted: {names}"),
            ));
        };
        let mut ok = vec!["law"];
        ok.extend_from_slice(keys);
        t.deny_unknown(&ok)?;
        let stiffness = |unit: &str| -> Result<f64, SceneError> {
            let v = t.req("stiffness", &format!("a positive number ({unit})"))?;
            ctx.positive(v, &t.key("stiffness"), unit)
        };
        match slot {
            "stretch" => laws.stretch = Some(stiffness("N/m")?),
            "contact" => laws.contact = Some(contact_of(ctx, &t)?),
            "area" => {
                let rest_area = t
                    .get("rest_area")
                    .map(|v| ctx.positive(v, &t.key("rest_area"), "m^2"))
                    .transpose()?;
                laws.area = Some(AreaLaw {
                    stiffness: stiffness("N/m")?,
                    rest_area,
                });
            }
            _ => {
                let slot = if slot == "bending" {
                    ShellSlot::Bending
                } else {
                    ShellSlot::Damping
                };
                let mut shell = ShellLaws::default();
                shell.parse(slot, word, &SlotKeys { t: &t })?;
                laws.bending = shell.bending.or(laws.bending);
                laws.damping = shell.damping.or(laws.damping);
            }
        }
    }
    if matches!(laws.damping, Some(DampingLaw::MaxwellShell { .. })) && laws.stretch.is_none() {
        return Err(ctx.err(
            &b.key_span("damping"),
            &b.key("damping"),
            "\"maxwell_shell\" relaxes the segment springs; add `stretch = { law = \"spring\", stiffness = k }`",
        ));
    }
    if laws == RingLaws::default() {
        return Err(ctx.err(
            &b.span,
            &b.key("stretch"),
            "a ring needs at least one law; expected `stretch = { law = \"spring\", stiffness = k }` and optionally `bending`, `damping`, `area`",
        ));
    }
    Ok(laws)
}

/// Every node of a ring inside the domain.
fn inside_domain(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    key: &str,
    domain: &Domain,
    pos: &[[f32; 4]],
) -> Result<(), SceneError> {
    for (k, p) in pos.iter().enumerate() {
        if let Some(axis) = (0..2).find(|&c| {
            let x = p[c] as f64;
            !(x >= domain.min[c] && x <= domain.max[c])
        }) {
            return Err(ctx.err(
                &b.key_span(key),
                &b.key(key),
                format!(
                    "ring node {k} at ({}, {}) lies outside the domain on {}",
                    p[0],
                    p[1],
                    ["x", "y"][axis]
                ),
            ));
        }
    }
    Ok(())
}

/// A `contact = { law, stiffness, self_contact }` table's settings (its keys checked).
pub(crate) fn contact_of(ctx: &Ctx<'_>, t: &Table<'_, '_>) -> Result<SurfaceContact, SceneError> {
    let v = t.req("stiffness", "a positive number (N/m)")?;
    let stiffness = ctx.positive(v, &t.key("stiffness"), "N/m")?;
    let self_contact = t
        .get("self_contact")
        .map(|v| ctx.boolean(v, &t.key("self_contact")))
        .transpose()?
        .unwrap_or(false);
    Ok(SurfaceContact {
        stiffness,
        self_contact,
    })
}
