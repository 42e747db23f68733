//! The `[output]` table: where to write, how often, in which formats, and checkpoints.

use std::path::PathBuf;

use crate::error::SceneError;
use crate::messages::MaxByStart;
use crate::sections::domain::box_table;
use crate::walk::{Ctx, Table};

/// An interval as written: seconds, or steps.
pub(crate) enum Every {
    Seconds(f64),
    Steps(u64),
}

impl Every {
    /// The interval in steps of `dt`: at least 1, and `u64::MAX` for an interval too long to
    /// count.
    pub(crate) fn steps(&self, dt: f64) -> u64 {
        match *self {
            Every::Steps(n) => n,
            Every::Seconds(s) => {
                let n = (s / dt).round();
                if (1.0..1e18).contains(&n) {
                    n as u64
                } else if n >= 1e18 {
                    u64::MAX
                } else {
                    1
                }
            }
        }
    }
}

/// What `[output]` says, with its defaults: `dir = "out"`, VTK frames and the energy log.
pub(crate) struct Output {
    pub dir: PathBuf,
    pub every: Option<Every>,
    pub checkpoint_every: Option<Every>,
    pub vtk: bool,
    pub csv: bool,
    pub contacts: bool,
    pub energy: bool,
    /// The `stress` format.
    pub stress: bool,
    /// `stress_region = { min, max }`: the box `stress.csv` averages over (default: the
    /// domain).
    pub stress_region: Option<[[f64; 3]; 2]>,
}

/// Read the optional `[output]` table.
pub(crate) fn read(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<Output, SceneError> {
    let mut out = Output {
        dir: PathBuf::from("out"),
        every: None,
        checkpoint_every: None,
        vtk: true,
        csv: false,
        contacts: false,
        energy: true,
        stress: false,
        stress_region: None,
    };
    let Some(v) = root.get("output") else {
        return Ok(out);
    };
    let o = ctx.table(v, "output", "an [output] table")?;
    o.deny_unknown(&[
        "dir",
        "every",
        "every_steps",
        "formats",
        "energy",
        "checkpoint_every",
        "checkpoint_every_steps",
        "stress_region",
    ])?;
    if let Some(d) = o.get("dir") {
        let s = ctx.string(d, "output.dir", "a folder path (a string)")?;
        if s.is_empty() {
            return Err(ctx.err(&d.span(), "output.dir", "expected a non-empty folder path"));
        }
        out.dir = PathBuf::from(s);
    }
    out.every = interval(ctx, &o, "every", "every_steps")?;
    out.checkpoint_every = interval(ctx, &o, "checkpoint_every", "checkpoint_every_steps")?;
    if let Some(f) = o.get("formats") {
        let what = "an array of formats among \"vtk\", \"csv\", \"contacts\", \"stress\"";
        let list = ctx.array(f, "output.formats", what)?;
        out.vtk = false;
        out.csv = false;
        for (k, x) in list.iter().enumerate() {
            let key = format!("output.formats[{k}]");
            match ctx.string(x, &key, "\"vtk\", \"csv\", \"contacts\" or \"stress\"")? {
                "vtk" => out.vtk = true,
                "csv" => out.csv = true,
                "contacts" => out.contacts = true,
                "stress" => out.stress = true,
                _ => {
                    return Err(ctx.err(
                        &x.span(),
                        &key,
                        format!(
                            "expected \"vtk\", \"csv\", \"contacts\" or \"stress\", found {}",
                            ctx.found(x)
                        ),
                    ))
                }
            }
        }
    }
    if let Some(e) = o.get("energy") {
        out.energy = ctx.boolean(e, "output.energy")?;
    }
    if let Some(r) = o.get("stress_region") {
        let (min, max) = box_table(ctx, r, "output.stress_region")?;
        out.stress_region = Some([min, max]);
    }
    Ok(out)
}

/// An interval given in seconds (key `seconds`) or in steps (key `steps`), not both.
fn interval(
    ctx: &Ctx<'_>,
    o: &Table<'_, '_>,
    seconds: &str,
    steps: &str,
) -> Result<Option<Every>, SceneError> {
    let (seconds_key, steps_key) = (o.key(seconds), o.key(steps));
    match (o.get(seconds), o.get(steps)) {
        (Some(_), Some(_)) => Err(ctx.err(
            &o.key_span(steps).max_by_start(o.key_span(seconds)),
            &steps_key,
            format!("give either `{seconds}` (s) or `{steps}`, not both"),
        )),
        (Some(e), None) => Ok(Some(Every::Seconds(ctx.positive(e, &seconds_key, "s")?))),
        (None, Some(e)) => Ok(Some(Every::Steps(ctx.integer(e, &steps_key, 1)?))),
        (None, None) => Ok(None),
    }
}
