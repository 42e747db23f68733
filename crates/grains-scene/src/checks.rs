//! The checks that need several blocks at once: materials that meet need an interaction,
//! particle centres lie on the open side of every wall, and bonds join only particles that
//! can hold one.

use std::ops::Range;

use grains_core::materials::{Interaction, Material};

use crate::error::SceneError;
use crate::sections::material::material_of;
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
/// itself.
pub(crate) fn touching_materials_have_interactions(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    interactions: &[Interaction],
    uses: &MaterialUses,
    wall_uses: &[(usize, Range<usize>, String)],
    particle_materials: &[u32],
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
