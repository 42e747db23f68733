//! `[initial] from = "out/fill"`: the scene starts from where an earlier run (of another scene)
//! left its spheres: their positions, velocities and spins from its `stage.csv`, written
//! beside its checkpoint ([`grains_core::stage`]). They are this scene's first particles, in
//! the earlier run's order, before its own `[[particles]]`; each takes the material of its
//! name in this scene (a name this scene lacks is an error naming the file's line). The
//! folder is read as `[output] dir` is, from where grains runs. The run then carries the
//! contact history where the chains are the same (`grains run`, from the checkpoint).

use std::path::PathBuf;

use grains_core::material::Material;
use grains_core::stage::{parse_pairs, STAGE_CSV, STAGE_HEADER};
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
    let mut pairs = None;
    let mut header = false;
    let mut ids = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        if let Some(p) = parse_pairs(line) {
            pairs = Some(p);
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header {
            if line.trim() != STAGE_HEADER {
                return Err(err(n, format!("expected the header `{STAGE_HEADER}`")));
            }
            header = true;
            continue;
        }
        let (id, mi, x) = row(line, materials).map_err(|what| err(n, what))?;
        uses.note(mi, fv.span(), key.clone());
        let m = &materials[mi];
        let f = |k: usize| x[k] as f64;
        particles.push_sphere(
            [f(1), f(2), f(3)],
            f(0),
            [f(4), f(5), f(6)],
            [f(7), f(8), f(9)],
            mi as u32,
            m.density,
            false,
        );
        ids.push(id);
    }
    let pairs = pairs.ok_or_else(|| err(0, "no `# pairs:` line".into()))?;
    if ids.is_empty() {
        return Err(err(0, "the earlier run left no spheres".into()));
    }
    Ok(Some(Initial {
        from: dir,
        ids,
        pairs,
    }))
}

/// A row's particle id, material index and `(radius, x, y, z, vx, vy, vz, wx, wy, wz)`.
fn row(line: &str, materials: &[Material]) -> Result<(u32, usize, [f32; 10]), String> {
    let cells: Vec<&str> = line.split(',').map(str::trim).collect();
    if cells.len() != 12 {
        return Err(format!("{} values where the header names 12", cells.len()));
    }
    let id: u32 = cells[0]
        .parse()
        .map_err(|_| format!("`{}` is not a particle index", cells[0]))?;
    let name = cells[1];
    let mi = materials
        .iter()
        .position(|m| m.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = materials.iter().map(|m| m.name.as_str()).collect();
            format!(
                "particle {id} is of material `{name}`, which this scene does not define (it \
             defines {}): add a [[material]] of that name",
                names.join(", ")
            )
        })?;
    let mut x = [0.0f32; 10];
    for (k, c) in cells[2..].iter().enumerate() {
        let v: f32 = c.parse().map_err(|_| format!("`{c}` is not a number"))?;
        if !v.is_finite() {
            return Err(format!("particle {id} has a value of {c}"));
        }
        x[k] = v;
    }
    if x[0] <= 0.0 {
        return Err(format!("particle {id} has radius {}", x[0]));
    }
    Ok((id, mi, x))
}
