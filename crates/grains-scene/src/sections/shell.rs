//! The `[[shell]]` blocks: triangulated shells whose nodes join the particles (after every
//! `[[particles]]` block, in block order) and whose elements the shell passes run
//! ([`grains_core::shells`]).
//!
//! ```toml
//! [[shell]]
//! material = "membrane"
//! thickness = 1e-4                         # m
//! icosphere = { center = [0, 0, 0.01], radius = 5e-3, subdivisions = 3 }
//! # or: sheet = { corner = [x, y, z], size = [lx, ly], divisions = [nx, ny] }
//! # or: file = "cell.obj" (or .stl), with scale, translate = [..], rotate = [w, x, y, z]
//! contact_radius = 2e-4                    # m, default 0.45 of the shortest edge
//! velocity = [0, 0, -1]                    # m/s, every node
//! stretch = { law = "elastic_shell_spring" }
//! bending = { law = "elastic_shell_bending" }
//! damping = { law = "shell_viscosity", viscosity = 1e-3 }
//! volume = { law = "volume_conservation", stiffness = 1e4 }
//! contact = { law = "node_to_triangle", stiffness = 100.0 }   # node-to-triangle with shells
//! ```

use grains_core::kernels::shell::{ShellLaws, ShellSlot};
use grains_core::material::Material;
use grains_core::shells::{Mesh, ShellSpec, Shells};
use grains_core::{Domain, Particles};

use crate::error::SceneError;
use crate::law_keys::SlotKeys;
use crate::messages::point3;
use crate::walk::{Ctx, Table};

/// Largest icosphere subdivision (10 * 4^7 + 2 = 163842 nodes).
const MAX_SUBDIVISIONS: u64 = 7;

/// Parse every `[[shell]]` block, appending its nodes to `particles`.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    domain: &Domain,
    particles: &mut Particles,
) -> Result<Shells, SceneError> {
    let mut shells = Shells::default();
    let Some(v) = root.get("shell") else {
        return Ok(shells);
    };
    let spheres = particles.len();
    for b in ctx.tables(v, "shell")? {
        let mut accepted = vec![
            "material",
            "thickness",
            "icosphere",
            "sheet",
            "file",
            "scale",
            "translate",
            "rotate",
            "contact_radius",
            "velocity",
            "contact",
        ];
        accepted.extend(ShellSlot::ALL.iter().map(|s| s.key()));
        b.deny_unknown(&accepted)?;
        let mv = b.req("material", "a material name")?;
        let material =
            crate::sections::material::material_of(ctx, materials, mv, &b.key("material"))?;
        if particles.material[..spheres].contains(&(material as u32)) {
            return Err(ctx.err(
                &mv.span(),
                &b.key("material"),
                format!(
                    "material \"{}\" is also a [[particles]] block's; a shell needs a material of its own (spheres meet its nodes through the `sphere_point` resolver, chosen by material pair)",
                    materials[material].name
                ),
            ));
        }
        let thickness = ctx.positive(
            b.req("thickness", "the shell's thickness, a positive number (m)")?,
            &b.key("thickness"),
            "m",
        )?;
        let (mesh, mesh_key) = mesh_of(ctx, &b, domain)?;
        let contact_radius = b
            .get("contact_radius")
            .map(|v| ctx.positive(v, &b.key("contact_radius"), "m"))
            .transpose()?;
        let velocity = match b.get("velocity") {
            Some(v) => ctx.vec3(v, &b.key("velocity"), "m/s")?,
            None => [0.0; 3],
        };
        let mut laws = ShellLaws::default();
        for slot in ShellSlot::ALL {
            let Some(sv) = b.get(slot.key()) else {
                continue;
            };
            let what = format!(
                "a table {{ law = ... }} with law one of {}",
                slot.accepted()
            );
            let t = ctx.table(sv, &b.key(slot.key()), &what)?;
            let lv = t.req("law", &format!("one of {}", slot.accepted()))?;
            let word = ctx.string(lv, &t.key("law"), &format!("one of {}", slot.accepted()))?;
            let Some(&(_, keys)) = slot.laws().iter().find(|(w, _)| *w == word) else {
                return Err(ctx.err(
                    &lv.span(),
                    &t.key("law"),
                    format!(
                        "unknown {} law \"{word}\"; accepted: {}",
                        slot.key(),
                        slot.accepted()
                    ),
                ));
            };
            let mut ok = vec!["law"];
            ok.extend_from_slice(keys);
            t.deny_unknown(&ok)?;
            laws.parse(slot, word, &SlotKeys { t: &t })?;
        }
        let contact = contact_table(ctx, &b)?;
        if laws == ShellLaws::default() {
            return Err(ctx.err(
                &b.span,
                &b.key("stretch"),
                "a shell needs at least one law; expected `stretch = { law = \"elastic_shell_spring\" }` and optionally `bending`, `damping`, `volume`",
            ));
        }
        if matches!(
            laws.damping,
            Some(grains_core::kernels::shell::DampingLaw::MaxwellShell { .. })
        ) && laws.stretch.is_none()
        {
            return Err(ctx.err(
                &b.key_span("damping"),
                &b.key("damping"),
                "\"maxwell_shell\" relaxes the edge springs; add `stretch = { law = \"elastic_shell_spring\" }`",
            ));
        }
        let spec = ShellSpec {
            mesh,
            material: material as u32,
            thickness,
            contact_radius,
            velocity,
            laws,
            contact,
        };
        let first = particles.len();
        shells.add(&spec, materials, particles).map_err(|e| {
            let (line, column) = ctx.line_col(b.key_span(mesh_key).start);
            SceneError::Core {
                file: ctx.file.to_path_buf(),
                line,
                column,
                key: b.key(mesh_key),
                err: e,
            }
        })?;
        for (k, p) in particles.pos.iter().enumerate().skip(first) {
            let x = [p[0] as f64, p[1] as f64, p[2] as f64];
            if let Some(axis) = (0..3).find(|&c| !(x[c] >= domain.min[c] && x[c] <= domain.max[c]))
            {
                return Err(ctx.err(
                    &b.key_span(mesh_key),
                    &b.key(mesh_key),
                    format!(
                        "shell node {} at {} lies outside the domain on {}",
                        k - first,
                        point3(&x),
                        ["x", "y", "z"][axis]
                    ),
                ));
            }
        }
    }
    Ok(shells)
}

/// The block's `contact = { law = "node_to_triangle", stiffness, self_contact }`, if any.
fn contact_table(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
) -> Result<Option<grains_core::shells::SurfaceContact>, SceneError> {
    use grains_core::kernels::shell::penalty::{KEYS, TRIANGLE_KEYWORD};
    let Some(v) = b.get("contact") else {
        return Ok(None);
    };
    let what = format!("a table {{ law = \"{TRIANGLE_KEYWORD}\", stiffness = k }}");
    let t = ctx.table(v, &b.key("contact"), &what)?;
    let lv = t.req("law", &format!("\"{TRIANGLE_KEYWORD}\""))?;
    let word = ctx.string(lv, &t.key("law"), &format!("\"{TRIANGLE_KEYWORD}\""))?;
    if word != TRIANGLE_KEYWORD {
        return Err(ctx.err(
            &lv.span(),
            &t.key("law"),
            format!("unknown shell contact law \"{word}\"; accepted: \"{TRIANGLE_KEYWORD}\""),
        ));
    }
    let mut ok = vec!["law"];
    ok.extend_from_slice(KEYS);
    t.deny_unknown(&ok)?;
    crate::sections::ring::contact_of(ctx, &t).map(Some)
}

/// The block's mesh and the key it came from.
fn mesh_of(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    domain: &Domain,
) -> Result<(Mesh, &'static str), SceneError> {
    let given: Vec<&str> = ["icosphere", "sheet", "file"]
        .into_iter()
        .filter(|k| b.get(k).is_some())
        .collect();
    if given.len() != 1 {
        let span = given
            .get(1)
            .map(|k| b.key_span(k))
            .unwrap_or(b.span.clone());
        return Err(ctx.err(
            &span,
            &b.key(given.get(1).copied().unwrap_or("icosphere")),
            format!(
                "expected exactly one mesh: `icosphere = {{ center, radius, subdivisions }}`, `sheet = {{ corner, size, divisions }}` or `file = \"cell.obj\"`; found {}",
                if given.is_empty() { "none".to_string() } else { given.join(" and ") }
            ),
        ));
    }
    let transform_keys = ["scale", "translate", "rotate"];
    if given[0] != "file" {
        if let Some(k) = transform_keys.iter().find(|k| b.get(k).is_some()) {
            return Err(ctx.err(
                &b.key_span(k),
                &b.key(k),
                format!("`{k}` places a mesh read from `file`; for a generated mesh give its position in `{}`", given[0]),
            ));
        }
    }
    let two = |t: &Table<'_, '_>, k: &str, what: &str| -> Result<[f64; 2], SceneError> {
        let v = t.req(k, what)?;
        let a = ctx.array(v, &t.key(k), what)?;
        if a.len() != 2 {
            return Err(ctx.err(
                &v.span(),
                &t.key(k),
                format!("expected {what}, found {} element(s)", a.len()),
            ));
        }
        Ok([
            ctx.positive(&a[0], &format!("{}[0]", t.key(k)), "m")?,
            ctx.positive(&a[1], &format!("{}[1]", t.key(k)), "m")?,
        ])
    };
    match given[0] {
        "icosphere" => {
            let t = ctx.table(
                b.get("icosphere").unwrap_or_else(|| unreachable!()),
                &b.key("icosphere"),
                "a table { center, radius, subdivisions }",
            )?;
            t.deny_unknown(&["center", "radius", "subdivisions"])?;
            let center = ctx.vec3(t.req("center", "[x, y, z] (m)")?, &t.key("center"), "m")?;
            let radius = ctx.positive(
                t.req("radius", "a positive number (m)")?,
                &t.key("radius"),
                "m",
            )?;
            let s = match t.get("subdivisions") {
                Some(v) => {
                    let s = ctx.integer(v, &t.key("subdivisions"), 0)?;
                    if s > MAX_SUBDIVISIONS {
                        return Err(ctx.err(&v.span(), &t.key("subdivisions"), format!("expected at most {MAX_SUBDIVISIONS} subdivisions ({} nodes), found {s}", 10 * 4u64.pow(MAX_SUBDIVISIONS as u32) + 2)));
                    }
                    s
                }
                None => 2,
            };
            let nodes = 10 * 4u64.pow(s as u32) + 2;
            ctx.check_memory(nodes, &t.span, &b.key("icosphere"))?;
            Ok((Mesh::icosphere(center, radius, s as u32), "icosphere"))
        }
        "sheet" => {
            let t = ctx.table(
                b.get("sheet").unwrap_or_else(|| unreachable!()),
                &b.key("sheet"),
                "a table { corner, size, divisions }",
            )?;
            t.deny_unknown(&["corner", "size", "divisions"])?;
            let corner = ctx.vec3(t.req("corner", "[x, y, z] (m)")?, &t.key("corner"), "m")?;
            let size = two(&t, "size", "[lx, ly] (m)")?;
            let dv = t.req("divisions", "[nx, ny] (positive integers)")?;
            let d = ctx
                .count_pair(dv, &t.key("divisions"), 4096, "divisions")?
                .map(|n| n as u32);
            let nodes = (d[0] as u64 + 1) * (d[1] as u64 + 1);
            ctx.check_memory(nodes, &dv.span(), &t.key("divisions"))?;
            Ok((Mesh::sheet(corner, size, d), "sheet"))
        }
        _ => Ok((crate::mesh_file::placed_mesh(ctx, b, domain)?, "file")),
    }
}
