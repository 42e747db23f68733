//! `[initial] from = "out/fill"`: the scene starts from where an earlier run (of another scene)
//! left its spheres: their positions, velocities and spins from its `stage.csv`, written
//! beside its checkpoint ([`grains_core::stage`]). They are this scene's first particles, in
//! the earlier run's order, before its own `[[particles]]`; each takes the material of its
//! name in this scene (a name this scene lacks is an error naming the file's line). The
//! folder is read as `[output] dir` is, from where grains runs. The run then carries the
//! contact history where the chains are the same (`grains run`, from the checkpoint).

use std::path::PathBuf;

use grains_core::material::Material;
use grains_core::stage::{parse_stage, STAGE_CSV};
use grains_core::Particles;

use crate::checks::MaterialUses;
use crate::error::SceneError;
use crate::walk::{Ctx, Table};

/// Where a scene starts from: an earlier run's stage.
#[derive(Clone, Debug, PartialEq)]
pub struct Initial {
    /// The earlier run's output directory.
    pub from: PathBuf,
    /// Each of this scene's first `ids.len()` particles' index in the earlier run.
    pub ids: Vec<u32>,
    /// The signatures of the earlier run's chains, by pair of material names.
    pub pairs: Vec<(String, String, u64)>,
}

/// Read `[initial]`, adding the earlier run's spheres to `particles` (first).
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    particles: &mut Particles,
    uses: &mut MaterialUses,
) -> Result<Option<Initial>, SceneError> {
    let Some(v) = root.get("initial") else {
        return Ok(None);
    };
    let t = ctx.table(v, "initial", "a table { from = \"out/fill\" }")?;
    t.deny_unknown(&["from"])?;
    let fv = t.req("from", "the output folder of the run to start from")?;
    let key = t.key("from");
    let dir = PathBuf::from(ctx.string(fv, &key, "a folder path (a string)")?);
    let path = dir.join(STAGE_CSV);
    let err = |line: usize, what: String| {
        let at = if line > 0 {
            format!(":{line}")
        } else {
            String::new()
        };
        ctx.err(&fv.span(), &key, format!("{}{at}: {what}", path.display()))
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(
            0,
            format!(
                "cannot read it ({e}): `from` names the output folder of an earlier run of \
                 spheres that wrote a checkpoint (`[output] checkpoint_every`, which also \
                 writes one at the run's end)"
            ),
        )
    })?;
    let (rows, pairs) = parse_stage(&text).map_err(|(line, what)| err(line, what))?;
    let mut ids = Vec::with_capacity(rows.len());
    for (line, r) in rows {
        let mi = materials
            .iter()
            .position(|m| m.name == r.material)
            .ok_or_else(|| {
                let names: Vec<&str> = materials.iter().map(|m| m.name.as_str()).collect();
                err(
                    line,
                    format!(
                        "particle {} is of material `{}`, which this scene does not define (it \
                         defines {}): add a [[material]] of that name",
                        r.id,
                        r.material,
                        names.join(", ")
                    ),
                )
            })?;
        uses.note(mi, fv.span(), key.clone());
        let f = |k: usize| r.values[k] as f64;
        particles.push_sphere(
            [f(1), f(2), f(3)],
            f(0),
            [f(4), f(5), f(6)],
            [f(7), f(8), f(9)],
            mi as u32,
            materials[mi].density,
            false,
        );
        ids.push(r.id);
    }
    Ok(Some(Initial {
        from: dir,
        ids,
        pairs,
    }))
}
