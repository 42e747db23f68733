//! The `[[cells]]` block: the particles of one material are cells that divide
//! ([`grains_core::cells`]). Its division pool joins the world dormant, after the `[[insert]]`
//! blocks' particles, and its division pairs after the bonds.

use std::ops::Range;

use grains_core::cells::{CellCycle, Target};
use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::registry::{LawKind, LawSpec};
use grains_core::world::Particles;
use grains_core::{Domain, Slot};

use crate::error::SceneError;
use crate::sections::interaction::slot_laws;
use crate::walk::{Ctx, Table};

/// The block as read: its cycle (the pool placed), the division pairs' chain, where it is.
pub(crate) struct CellsBlock {
    pub cycle: CellCycle,
    /// The chain of the division pairs, between the cells' material and itself.
    pub interaction: Interaction,
    pub span: Range<usize>,
}

/// The most cells a block may ask for: particle ids are 32-bit, and the pool takes two per
/// division.
const MAX_CELLS: u64 = 1 << 30;

/// Read the `[[cells]]` block (at most one), appending its pool's dormant particles to
/// `particles`.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    domain: &Domain,
    particles: &mut Particles,
) -> Result<Option<CellsBlock>, SceneError> {
    let Some(v) = root.get("cells") else {
        return Ok(None);
    };
    let blocks = ctx.tables(v, "cells")?;
    if let Some(b) = blocks.get(1) {
        return Err(ctx.err(
            &b.span,
            &b.path,
            "one [[cells]] block per scene: its material's particles are the cells",
        ));
    }
    let b = &blocks[0];
    b.deny_unknown(&[
        "material",
        "cycle_time",
        "cycle_spread",
        "seed",
        "target",
        "bud_fraction",
        "max_cells",
        "extra",
        "resistance",
    ])?;
    let mv = b.req("material", "a material name")?;
    let mi = crate::sections::material::material_of(ctx, materials, mv, &b.key("material"))?;
    let cells: Vec<u32> = (0..particles.len() as u32)
        .filter(|&i| particles.material[i as usize] == mi as u32)
        .collect();
    if cells.is_empty() {
        return Err(ctx.err(
            &mv.span(),
            &b.key("material"),
            format!(
                "no particle of \"{}\" is in the scene: a colony starts from at least one cell of \
                 a [[particles]] block",
                materials[mi].name
            ),
        ));
    }
    let ct = b.req("cycle_time", "the mean cell cycle, a positive number (s)")?;
    let cycle_time = ctx.positive(ct, &b.key("cycle_time"), "s")?;
    let spread = match b.get("cycle_spread") {
        Some(v) => {
            let s = ctx.non_negative(v, &b.key("cycle_spread"), "(a fraction of cycle_time)")?;
            if s >= 1.0 {
                return Err(ctx.err(
                    &v.span(),
                    &b.key("cycle_spread"),
                    format!("expected a fraction in [0, 1) of cycle_time, found {s}"),
                ));
            }
            s
        }
        None => 0.0,
    };
    let seed = b
        .get("seed")
        .map(|v| ctx.integer(v, &b.key("seed"), 0))
        .transpose()?
        .unwrap_or(0);
    let target = target_of(ctx, b)?;
    let mc = b.req(
        "max_cells",
        "the most cells the colony may hold, an integer",
    )?;
    let max_cells = ctx.integer(mc, &b.key("max_cells"), cells.len() as u64 + 1)?;
    if max_cells > MAX_CELLS {
        return Err(ctx.err(
            &mc.span(),
            &b.key("max_cells"),
            format!("expected at most {MAX_CELLS} cells, found {max_cells}"),
        ));
    }
    let pairs = max_cells - cells.len() as u64;
    ctx.check_memory(
        particles.len() as u64 + 2 * pairs,
        &mc.span(),
        &b.key("max_cells"),
    )?;
    let (law, interaction) = division_chain(ctx, b, mi, target)?;
    let (duration, start_ratio) = match &law {
        LawSpec::Dividing(s) | LawSpec::Budding(s) => (s.duration, s.start_ratio),
        _ => unreachable!("division_chain returns a division law"),
    };
    let shortest = cycle_time * (1.0 - spread);
    if shortest <= duration {
        return Err(ctx.err(
            &ct.span(),
            &b.key("cycle_time"),
            format!(
                "the shortest cycle, {shortest} s, is not longer than the cytokinesis, {duration} \
                 s (the division law's `duration`): a cell would divide again before it is \
                 apart from its sister"
            ),
        ));
    }
    let first = particles.len() as u32;
    let mat = &materials[mi];
    let mut far = grains_core::insert::dormant_position(domain.min, domain.max);
    if ctx.planar.get() {
        // A 2-D scene's particles all lie in the plane z = 0, dormant ones too.
        far[2] = 0.0;
    }
    let r0 = cells
        .iter()
        .map(|&c| particles.pos[c as usize][3] as f64)
        .fold(0.0, f64::max);
    for _ in 0..2 * pairs {
        particles.push_dormant(far, r0, mi as u32, mat.density);
    }
    Ok(Some(CellsBlock {
        cycle: CellCycle {
            material: mi as u32,
            cycle_time,
            spread,
            seed,
            target,
            max_cells: max_cells as u32,
            duration,
            start_ratio,
            cells,
            first,
            pairs: pairs as u32,
            first_pair: 0,
        },
        interaction,
        span: b.span.clone(),
    }))
}

/// `target = "divide"` (the default) or `"bud"`, with `bud_fraction` for a bud.
fn target_of(ctx: &Ctx<'_>, b: &Table<'_, '_>) -> Result<Target, SceneError> {
    let what = "\"divide\" or \"bud\"";
    let word = match b.get("target") {
        Some(v) => ctx.string(v, &b.key("target"), what)?,
        None => "divide",
    };
    let fraction = b.get("bud_fraction");
    match (word, fraction) {
        ("divide", None) => Ok(Target::Divide),
        ("divide", Some(_)) => Err(ctx.err(
            &b.key_span("bud_fraction"),
            &b.key("bud_fraction"),
            "`bud_fraction` goes with `target = \"bud\"`; two equal daughters need none",
        )),
        ("bud", f) => {
            let fraction = match f {
                Some(v) => {
                    let x = ctx.positive(v, &b.key("bud_fraction"), "(a fraction of the mass)")?;
                    if x >= 1.0 {
                        return Err(ctx.err(
                            &v.span(),
                            &b.key("bud_fraction"),
                            format!("expected the bud's share of the mass in (0, 1), found {x}"),
                        ));
                    }
                    x
                }
                None => 0.2,
            };
            Ok(Target::Bud { fraction })
        }
        (other, _) => Err(ctx.err(
            &b.key_span("target"),
            &b.key("target"),
            format!("expected {what}, found \"{other}\""),
        )),
    }
}

/// The division pairs' chain: the `extra` slot holds the division law alone (`dividing` to
/// divide, `budding` to bud), the `resistance` slot what the implicit solve takes.
fn division_chain(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    material: usize,
    target: Target,
) -> Result<(LawSpec, Interaction), SceneError> {
    let want = match target {
        Target::Divide => LawKind::Dividing,
        Target::Bud { .. } => LawKind::Budding,
    };
    let extra = slot_laws(ctx, b, Slot::Extra)?;
    let law = match extra.as_slice() {
        [one] if one.kind() == want => one.clone(),
        _ => {
            return Err(ctx.err(
                &b.key_span("extra"),
                &b.key("extra"),
                format!(
                    "expected the division law alone, `extra = {{ law = \"{}\", \
                     repulsive_stiffness = ..., duration = ... }}` for this target",
                    want.keyword()
                ),
            ))
        }
    };
    let mut laws = vec![law.clone()];
    laws.extend(slot_laws(ctx, b, Slot::Resistance)?);
    Ok((law, Interaction::new(material, material, laws)))
}

/// Refuse a division law in `laws`, read from `slot_key` of block `t` (an `[[interaction]]` or
/// a `[[bond]]`): it drives a division pair, which only a `[[cells]]` block makes.
pub(crate) fn refuse_division_laws(
    ctx: &Ctx<'_>,
    t: &Table<'_, '_>,
    laws: &[LawSpec],
) -> Result<(), SceneError> {
    let Some(law) = laws
        .iter()
        .find(|l| matches!(l.kind(), LawKind::Dividing | LawKind::Budding))
    else {
        return Ok(());
    };
    Err(ctx.err(
        &t.key_span("extra"),
        &t.key("extra"),
        format!(
            "\"{}\" drives the two halves of a dividing cell, a division pair that only a \
             [[cells]] block makes: put it in that block's `extra`",
            law.kind().keyword()
        ),
    ))
}

/// A `[[bond]]` between two cells would share the division pairs' chain (the fixed pairs'
/// chains go by material pair): refused at the cells block.
pub(crate) fn apart_from_bonds(
    ctx: &Ctx<'_>,
    c: &CellsBlock,
    bonds: &[Interaction],
) -> Result<(), SceneError> {
    if bonds.iter().all(|i| i.between != c.interaction.between) {
        return Ok(());
    }
    Err(ctx.err(
        &c.span,
        "cells",
        "a [[bond]] joins two particles of the cells' material: the fixed pairs of one pair of \
         materials share one chain, the division pairs' here; bond the cells through another \
         material, or drop the bond",
    ))
}
