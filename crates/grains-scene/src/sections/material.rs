//! The `[[material]]` blocks: named bulk properties, which every other block refers to by
//! name.

use std::ops::Range;

use grains_core::material::{Drag, Material};

use crate::error::SceneError;
use crate::walk::{Ctx, Table, Value};

/// Read the `[[material]]` blocks (at least one), each name unique.
pub(crate) fn read(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<Vec<Material>, SceneError> {
    let mats = ctx.tables(
        root.req("material", "at least one [[material]] block")?,
        "material",
    )?;
    let mut materials: Vec<Material> = Vec::new();
    let mut material_spans: Vec<Range<usize>> = Vec::new();
    for m in &mats {
        m.deny_unknown(&[
            "name",
            "density",
            "young",
            "poisson",
            "substrate_friction",
            "substrate_rotational_friction",
        ])?;
        let name_v = m.req("name", "a string")?;
        let name = ctx.string(name_v, &m.key("name"), "a material name (a string)")?;
        if name.is_empty() {
            return Err(ctx.err(&name_v.span(), &m.key("name"), "expected a non-empty name"));
        }
        if let Some(k) = materials.iter().position(|x| x.name == name) {
            let (line, _) = ctx.line_col(material_spans.get(k).map(|s| s.start).unwrap_or(0));
            return Err(ctx.err(
                &name_v.span(),
                &m.key("name"),
                format!("duplicate material name \"{name}\": material[{k}] (line {line}) already has it; names must be unique"),
            ));
        }
        let density = ctx.positive(
            m.req("density", "a positive number (kg/m^3)")?,
            &m.key("density"),
            "kg/m^3",
        )?;
        let young = ctx.positive(
            m.req("young", "a positive number (Pa)")?,
            &m.key("young"),
            "Pa",
        )?;
        let pv = m.req("poisson", "a number in (-1, 0.5)")?;
        let poisson = ctx.number(pv, &m.key("poisson"), "a number in (-1, 0.5)")?;
        if !(poisson > -1.0 && poisson < 0.5) {
            return Err(ctx.err(
                &pv.span(),
                &m.key("poisson"),
                format!(
                    "expected a Poisson's ratio in (-1, 0.5), found {}",
                    ctx.found(pv)
                ),
            ));
        }
        let drag_of = |k: &str, unit: &str| match m.get(k) {
            Some(v) => ctx.non_negative(v, &m.key(k), unit),
            None => Ok(0.0),
        };
        let drag = Drag {
            translational: drag_of("substrate_friction", "N s/m")?,
            rotational: drag_of("substrate_rotational_friction", "N m s")?,
        };
        materials.push(Material {
            name: name.to_string(),
            density,
            young,
            poisson,
            drag,
        });
        material_spans.push(name_v.span());
    }
    Ok(materials)
}

/// The index of the material named by `v` (at key path `key`), or the error listing the
/// defined materials.
pub(crate) fn material_of(
    ctx: &Ctx<'_>,
    materials: &[Material],
    v: &Value<'_>,
    key: &str,
) -> Result<usize, SceneError> {
    let name = ctx.string(v, key, "a material name (a string)")?;
    materials
        .iter()
        .position(|m| m.name == name)
        .ok_or_else(|| {
            let names: Vec<String> = materials
                .iter()
                .map(|m| format!("\"{}\"", m.name))
                .collect();
            ctx.err(
                &v.span(),
                key,
                format!(
                    "unknown material \"{name}\"; defined materials: {}",
                    names.join(", ")
                ),
            )
        })
}
