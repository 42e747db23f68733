//! The `[[bond]]` blocks: pairs of particles joined from the start, listed by id or found
//! touching, each block with the chain of laws its pairs share.

use std::collections::HashSet;
use std::ops::Range;

use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::units::qty;
use grains_core::{Domain, Slot};

use crate::checks::Bondable;
use crate::error::SceneError;
use crate::messages::MaxByStart;
use crate::sections::interaction::{reserved_slot, slot_laws};
use crate::walk::{Ctx, Table, Value};

/// The bonds of a scene as read.
pub(crate) struct Bonds {
    /// Every bonded pair, in block order.
    pub pairs: Vec<[u32; 2]>,
    /// One interaction per pair of materials the bonds join, with its block's chain.
    pub interactions: Vec<Interaction>,
    /// Where the first block is, for errors of the bonds as a whole.
    pub span: Range<usize>,
}

/// Read every `[[bond]]` block; `bondable` says which particles may take a bond.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    bondable: &Bondable<'_>,
    domain: &Domain,
    materials: &[Material],
) -> Result<Bonds, SceneError> {
    let particles = bondable.particles;
    let mut out = Bonds {
        pairs: Vec::new(),
        interactions: Vec::new(),
        span: 0..0,
    };
    // Which block made each bond interaction, for "two blocks join the same materials".
    let mut made_by: Vec<usize> = Vec::new();
    let Some(v) = root.get("bond") else {
        return Ok(out);
    };
    let blocks = ctx.tables(v, "bond")?;
    out.span = blocks.first().map(|b| b.span.clone()).unwrap_or(0..0);
    let mut seen: HashSet<[u32; 2]> = HashSet::new();
    for (bi, b) in blocks.iter().enumerate() {
        let mut accepted = vec!["pairs", "touching", "tolerance"];
        accepted.extend(Slot::ALL.iter().map(|s| s.key()));
        b.deny_unknown(&accepted)?;
        for slot in Slot::ALL {
            reserved_slot(ctx, b, slot)?;
        }
        let mine = block_pairs(ctx, b, bondable, domain)?;
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
        crate::sections::cells::refuse_division_laws(ctx, b, &laws)?;
        for &[i, j] in &mine {
            let (a, c) = (
                particles.material[i as usize] as usize,
                particles.material[j as usize] as usize,
            );
            let (a, c) = (a.min(c), a.max(c));
            match out.interactions.iter().position(|x| x.between == (a, c)) {
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
                    out.interactions.push(Interaction::new(a, c, laws.clone()));
                    made_by.push(bi);
                }
            }
        }
        out.pairs.extend(mine);
    }
    Ok(out)
}

/// A block's pairs: `pairs = [[i, j], ...]` or `touching = true` (with its `tolerance`),
/// exactly one.
fn block_pairs(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    bondable: &Bondable<'_>,
    domain: &Domain,
) -> Result<Vec<[u32; 2]>, SceneError> {
    match (b.get("pairs"), b.get("touching")) {
        (Some(_), Some(_)) => Err(ctx.err(
            &b.key_span("touching").max_by_start(b.key_span("pairs")),
            &b.key("touching"),
            "give either `pairs = [[i, j], ...]` or `touching = true`, not both",
        )),
        (None, None) => Err(ctx.err(
            &b.span,
            &b.key("pairs"),
            "missing the bonded pairs: expected `pairs = [[i, j], ...]` (particle ids in \
             scene order) or `touching = true` (every pair touching at the start)",
        )),
        (Some(pv), None) => {
            if b.get("tolerance").is_some() {
                return Err(ctx.err(
                    &b.key_span("tolerance"),
                    &b.key("tolerance"),
                    "`tolerance` goes with `touching = true`; with `pairs` remove it",
                ));
            }
            listed_pairs(ctx, b, pv, bondable)
        }
        (None, Some(tv)) => touching_pairs(ctx, b, tv, bondable, domain),
    }
}

/// `touching = true`: every pair a bond can join within `tolerance` (m, default 0) of
/// touching at the start.
fn touching_pairs(
    ctx: &Ctx<'_>,
    b: &Table<'_, '_>,
    tv: &Value<'_>,
    bondable: &Bondable<'_>,
    domain: &Domain,
) -> Result<Vec<[u32; 2]>, SceneError> {
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
    let mine: Vec<[u32; 2]> =
        grains_core::overlaps::pairs_within(&bondable.particles.pos, domain, gap)
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
    Ok(mine)
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
