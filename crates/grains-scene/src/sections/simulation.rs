//! The `[simulation]` table: run length, time step, gravity, backend, skin and the start-up
//! guards. The run length in steps and an automatic time step are settled once the world is
//! built ([`Simulation::time_step`], [`Simulation::steps`]).

use std::ops::Range;

use crate::error::SceneError;
use crate::walk::{Ctx, Table};
use crate::{BackendChoice, LostParticles, MAX_STEPS};
use grains_core::dynamics::{Dynamics, Mode};
use grains_core::units::{qty, sig4};

/// The run length as written: a duration (s, with its span) or a step count.
enum Length {
    Duration(f64, Range<usize>),
    Steps(u64),
}

/// What `[simulation]` says.
pub(crate) struct Simulation {
    length: Length,
    /// `dt` in seconds, or `None` for `"auto"` (chosen from the built world).
    pub dt_given: Option<f64>,
    /// Where `dt` is written, else the table: the automatic step's error points here.
    dt_span: Range<usize>,
    pub gravity: [f64; 3],
    pub backend: BackendChoice,
    pub sphere_orientation: bool,
    pub skin: Option<f64>,
    pub max_initial_overlap: f64,
    pub lost: LostParticles,
    /// `dynamics`, `implicitness` and `solver`.
    pub dynamics: Dynamics,
    /// Where `dynamics` is written, else the table: the checks of an implicit scene point here.
    pub dynamics_span: Range<usize>,
}

/// Read the required `[simulation]` table.
pub(crate) fn read(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<Simulation, SceneError> {
    let sim = ctx.table(
        root.req("simulation", "a [simulation] table")?,
        "simulation",
        "a [simulation] table",
    )?;
    sim.deny_unknown(&[
        "duration",
        "steps",
        "dt",
        "gravity",
        "backend",
        "skin",
        "max_initial_overlap",
        "lost_particles",
        "sphere_orientation",
        "dynamics",
        "implicitness",
        "solver",
    ])?;
    let length = run_length(ctx, &sim)?;
    let max_initial_overlap = match sim.get("max_initial_overlap") {
        Some(v) => ctx.positive(
            v,
            &sim.key("max_initial_overlap"),
            "fraction of the smaller radius",
        )?,
        None => crate::DEFAULT_MAX_INITIAL_OVERLAP,
    };
    let lost = lost_particles(ctx, &sim)?;
    let dt_given = given_dt(ctx, &sim)?;
    let gravity = match sim.get("gravity") {
        Some(v) => ctx.vec3(v, &sim.key("gravity"), "m/s^2")?,
        None => [0.0; 3],
    };
    let backend = backend(ctx, &sim)?;
    let sphere_orientation = match sim.get("sphere_orientation") {
        Some(v) => ctx.boolean(v, &sim.key("sphere_orientation"))?,
        None => false,
    };
    let skin = match sim.get("skin") {
        Some(v) => Some(ctx.positive(v, &sim.key("skin"), "m")?),
        None => None,
    };
    let dynamics = dynamics(ctx, &sim)?;
    Ok(Simulation {
        dynamics,
        dynamics_span: sim
            .get("dynamics")
            .map(|v| v.span())
            .unwrap_or(sim.span.clone()),
        length,
        dt_given,
        dt_span: sim.get("dt").map(|v| v.span()).unwrap_or(sim.span.clone()),
        gravity,
        backend,
        sphere_orientation,
        skin,
        max_initial_overlap,
        lost,
    })
}

/// `dynamics` (a mode of [`Mode::ALL`]), `implicitness` in [0, 1] and `solver = { tolerance,
/// max_iterations }`; the last two only in an implicit mode.
fn dynamics(ctx: &Ctx<'_>, sim: &Table<'_, '_>) -> Result<Dynamics, SceneError> {
    let mut d = Dynamics::default();
    if let Some(v) = sim.get("dynamics") {
        let names: Vec<String> = Mode::ALL
            .iter()
            .map(|m| format!("\"{}\"", m.keyword()))
            .collect();
        let what = format!("one of {}", names.join(", "));
        let s = ctx.string(v, &sim.key("dynamics"), &what)?;
        d.mode = Mode::ALL
            .into_iter()
            .find(|m| m.keyword() == s)
            .ok_or_else(|| {
                ctx.err(
                    &v.span(),
                    &sim.key("dynamics"),
                    format!("expected {what}, found {}", ctx.found(v)),
                )
            })?;
    }
    let inertial_only = |k: &str| {
        ctx.err(
            &sim.key_span(k),
            &sim.key(k),
            format!(
                "`{k}` sets the implicit solve, and this scene's dynamics is \"inertial\"; \
                 set `dynamics = \"overdamped\"`, \"underdamped\" or \"static\", or remove `{k}`"
            ),
        )
    };
    if let Some(v) = sim.get("implicitness") {
        if !d.implicit() {
            return Err(inertial_only("implicitness"));
        }
        let what = "a number in [0, 1] (0 explicit Euler, 0.5 Crank-Nicolson, 1 implicit Euler)";
        let l = ctx.number(v, &sim.key("implicitness"), what)?;
        if !(0.0..=1.0).contains(&l) {
            return Err(ctx.err(
                &v.span(),
                &sim.key("implicitness"),
                format!("expected {what}, found {}", ctx.found(v)),
            ));
        }
        d.implicitness = l;
    }
    if let Some(v) = sim.get("solver") {
        if !d.implicit() {
            return Err(inertial_only("solver"));
        }
        let t = ctx.table(
            v,
            &sim.key("solver"),
            "a table { tolerance, max_iterations }",
        )?;
        t.deny_unknown(&["tolerance", "max_iterations"])?;
        if let Some(x) = t.get("tolerance") {
            d.tolerance = ctx.positive(x, &t.key("tolerance"), "(relative residual)")?;
        }
        if let Some(x) = t.get("max_iterations") {
            d.max_iterations = ctx
                .integer(x, &t.key("max_iterations"), 1)?
                .min(u32::MAX as u64) as u32;
        }
    }
    Ok(d)
}

/// `duration` or `steps`, exactly one.
fn run_length(ctx: &Ctx<'_>, sim: &Table<'_, '_>) -> Result<Length, SceneError> {
    match (sim.get("duration"), sim.get("steps")) {
        (Some(_), Some(_)) => {
            let second = if sim.key_span("steps").start > sim.key_span("duration").start {
                "steps"
            } else {
                "duration"
            };
            Err(ctx.err(
                &sim.key_span(second),
                &sim.key(second),
                "give either `duration` (s) or `steps`, not both",
            ))
        }
        (None, None) => Err(ctx.err(
            &sim.span,
            &sim.key("duration"),
            "missing the run length: expected `duration` (s) or `steps` (a positive integer)",
        )),
        (Some(d), None) => Ok(Length::Duration(
            ctx.positive(d, &sim.key("duration"), "s")?,
            d.span(),
        )),
        (None, Some(n)) => {
            let steps = ctx.integer(n, &sim.key("steps"), 1)?;
            if steps > MAX_STEPS {
                return Err(ctx.err(
                    &n.span(),
                    &sim.key("steps"),
                    format!("expected at most {} steps (1e15), found {steps}", MAX_STEPS),
                ));
            }
            Ok(Length::Steps(steps))
        }
    }
}

/// `lost_particles`: stop the run (the default) or delete them.
fn lost_particles(ctx: &Ctx<'_>, sim: &Table<'_, '_>) -> Result<LostParticles, SceneError> {
    let Some(v) = sim.get("lost_particles") else {
        return Ok(LostParticles::Error);
    };
    let what = "\"error\" (stop the run) or \"delete\" (remove them and count them)";
    match ctx.string(v, &sim.key("lost_particles"), what)? {
        "error" => Ok(LostParticles::Error),
        "delete" => Ok(LostParticles::Delete),
        _ => Err(ctx.err(
            &v.span(),
            &sim.key("lost_particles"),
            format!("expected {what}, found {}", ctx.found(v)),
        )),
    }
}

/// `dt`: seconds, or `None` for `"auto"` (also the default).
fn given_dt(ctx: &Ctx<'_>, sim: &Table<'_, '_>) -> Result<Option<f64>, SceneError> {
    let Some(v) = sim.get("dt") else {
        return Ok(None);
    };
    let what = "\"auto\" or a positive number of seconds";
    let refused = || {
        ctx.err(
            &v.span(),
            &sim.key("dt"),
            format!("expected {what}, found {}", ctx.found(v)),
        )
    };
    match v.get_ref().as_str() {
        Some("auto") => Ok(None),
        Some(_) => Err(refused()),
        None => {
            let dt = ctx.number(v, &sim.key("dt"), what)?;
            // Positive as an f32 too: the backends step in f32.
            if dt <= 0.0 || (dt as f32) <= 0.0 {
                return Err(refused());
            }
            Ok(Some(dt))
        }
    }
}

/// `backend`: auto (the default), gpu or cpu.
fn backend(ctx: &Ctx<'_>, sim: &Table<'_, '_>) -> Result<BackendChoice, SceneError> {
    let Some(v) = sim.get("backend") else {
        return Ok(BackendChoice::Auto);
    };
    let what = "one of \"auto\", \"gpu\", \"cpu\"";
    match ctx.string(v, &sim.key("backend"), what)? {
        "auto" => Ok(BackendChoice::Auto),
        "gpu" => Ok(BackendChoice::Gpu),
        "cpu" => Ok(BackendChoice::Cpu),
        _ => Err(ctx.err(
            &v.span(),
            &sim.key("backend"),
            format!("expected {what}, found {}", ctx.found(v)),
        )),
    }
}

impl Simulation {
    /// The time step: the one given, or the world's automatic one (`auto_dt`) when it is
    /// usable.
    pub(crate) fn time_step(&self, ctx: &Ctx<'_>, auto_dt: f64) -> Result<f64, SceneError> {
        if let Some(dt) = self.dt_given {
            return Ok(dt);
        }
        let dt = auto_dt;
        if !(dt.is_finite() && dt > 0.0 && (dt as f32) > 0.0) {
            return Err(ctx.err(
                &self.dt_span,
                "simulation.dt",
                format!(
                    "dt = \"auto\" found no usable time step (got {}); give dt in seconds",
                    qty(dt, "s")
                ),
            ));
        }
        Ok(dt)
    }

    /// Steps in the run: `steps`, or `duration / dt` rounded up.
    pub(crate) fn steps(&self, ctx: &Ctx<'_>, dt: f64) -> Result<u64, SceneError> {
        let (d, span) = match &self.length {
            Length::Steps(n) => return Ok(*n),
            Length::Duration(d, span) => (*d, span),
        };
        let n = d / dt;
        // duration = 0.05 with dt = 1e-5 is 5000 steps, not 5001 by a rounding ulp.
        let r = n.round();
        let n = if (n - r).abs() <= 1e-9 * r.max(1.0) {
            r
        } else {
            n.ceil()
        };
        if !(1.0..=MAX_STEPS as f64).contains(&n) {
            return Err(ctx.err(
                span,
                "simulation.duration",
                format!(
                    "duration / dt = {} steps; expected between 1 and 1e15 steps",
                    sig4(n)
                ),
            ));
        }
        Ok(n as u64)
    }
}
