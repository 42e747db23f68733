//! The `[[interaction]]` blocks: for each pair of materials, the contact laws of each slot
//! of its chain (normal, damping, tangential, rolling, twisting, extra). `[[bond]]` blocks
//! read their laws the same way ([`slot_laws`]).

use std::ops::Range;

use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::{LawKind, LawSpec, Slot};

use crate::error::SceneError;
use crate::law_keys::SlotKeys;
use crate::sections::material::material_of;
use crate::walk::{Ctx, Table, Value};

/// Read every `[[interaction]]` block, one per pair of materials.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
) -> Result<Vec<Interaction>, SceneError> {
    let mut interactions: Vec<Interaction> = Vec::new();
    // Each block's line, for "already defines it".
    let mut interaction_lines: Vec<usize> = Vec::new();
    let Some(v) = root.get("interaction") else {
        return Ok(interactions);
    };
    for it in ctx.tables(v, "interaction")? {
        let mut accepted = vec!["between"];
        accepted.extend(Slot::ALL.iter().map(|s| s.key()));
        it.deny_unknown(&accepted)?;
        for slot in Slot::ALL {
            reserved_slot(ctx, &it, slot)?;
        }
        let (a, b, between_span) = between(ctx, &it, materials)?;
        if let Some(k) = interactions
            .iter()
            .position(|i| i.between == (a, b) || i.between == (b, a))
        {
            return Err(ctx.err(
                &between_span,
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
            laws.extend(slot_laws(ctx, &it, slot)?);
        }
        crate::sections::cells::refuse_division_laws(ctx, &it, &laws)?;
        interactions.push(Interaction::new(a, b, laws));
        interaction_lines.push(ctx.line_col(it.span.start).0);
    }
    Ok(interactions)
}

/// The block's `between = ["a", "b"]`, as material indices, and its span.
fn between(
    ctx: &Ctx<'_>,
    it: &Table<'_, '_>,
    materials: &[Material],
) -> Result<(usize, usize, Range<usize>), SceneError> {
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
        *o = material_of(ctx, materials, x, &format!("{}[{k}]", it.key("between")))?;
    }
    Ok((idx[0], idx[1], bv.span()))
}

/// A slot no law fills yet (none today; a slot added to the format before its first law):
/// refused with the reason when given.
pub(crate) fn reserved_slot(
    ctx: &Ctx<'_>,
    it: &Table<'_, '_>,
    slot: Slot,
) -> Result<(), SceneError> {
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
pub(crate) fn slot_laws(
    ctx: &Ctx<'_>,
    it: &Table<'_, '_>,
    slot: Slot,
) -> Result<Vec<LawSpec>, SceneError> {
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
    if matches!(slot, Slot::Extra | Slot::Resistance) && v.get_ref().as_array().is_some() {
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
                        "\"{}\" is already in this {key} list; a law acts at most once per chain",
                        law.kind().keyword()
                    ),
                ));
            }
            // Laws of a slot run in the order written: one that sets what came before it
            // must come last, or a later law would add to what it set.
            if let Some(last) = laws.last().map(|l| l.kind()).filter(|l| l.overwrites()) {
                return Err(ctx.err(
                    &x.span(),
                    &path,
                    format!(
                        "\"{}\" sets the {key} slot's result and must be its last law; move \"{}\" before it",
                        last.keyword(),
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
