//! `grains run`: a scene in, frames and the energy log out, with a progress bar.

use crate::{make_backend_from, BackendArg};
use anyhow::{bail, Context, Result};
use grains_core::{Backend, Snapshot};
use grains_io::{read_checkpoint, write_checkpoint, OutputOptions, OutputWriter, CHECKPOINT_FILE};
use grains_scene::BackendChoice;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `grains run`.
#[derive(Clone, Debug)]
pub struct RunArgs {
    pub scene: PathBuf,
    pub backend: Option<BackendArg>,
    pub out: Option<PathBuf>,
    pub steps: Option<u64>,
    pub quiet: bool,
    /// Resume from `OUT/checkpoint.bin`.
    pub resume: bool,
}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub backend: String,
    pub steps: u64,
    pub particles: usize,
    /// Wall-clock seconds of stepping (output excluded).
    pub seconds: f64,
    pub rebuilds: u64,
    pub frames: usize,
    pub out: PathBuf,
    /// Largest relative departure of the energy ledger's total from its first value in this
    /// process (None without `output.energy`).
    pub energy_drift: Option<f64>,
}

/// Relative drift of the energy ledger's total beyond which a run warns (1%): ten times what
/// the damped settle of the test suite shows at the automatic time step.
const AUDIT_WARNING: f64 = 1e-2;

/// Steps between progress-bar updates at most; bounds the batch a backend runs at once.
const PROGRESS_CHUNK: u64 = 200;

/// Refuse to write a state that has gone non-finite, naming the first bad particle.
fn check_finite(snap: &Snapshot, dt: f64, auto_dt: f64) -> Result<()> {
    for (id, (p, v)) in snap.pos.iter().zip(&snap.vel).enumerate() {
        if p.iter().chain(v.iter()).any(|x| !x.is_finite()) {
            bail!(
                "particle {id} has a non-finite position or velocity at step {} (t = {:.6e} s): \
                 the run is unstable; dt = {dt:.3e} s, `dt = \"auto\"` would choose {auto_dt:.3e} s",
                snap.step,
                snap.time
            );
        }
    }
    Ok(())
}

/// Run a scene to completion.
pub fn run(args: &RunArgs) -> Result<RunReport> {
    let mut scene = grains_scene::load_scene(&args.scene)?;
    if let Some(n) = args.steps {
        scene = scene.with_steps(n);
    }
    let out = args.out.clone().unwrap_or_else(|| scene.output.dir.clone());
    let choice = args.backend.unwrap_or(match scene.run.backend {
        BackendChoice::Auto => BackendArg::Auto,
        BackendChoice::Gpu => BackendArg::Gpu,
        BackendChoice::Cpu => BackendArg::Cpu,
    });
    let say = |s: &str| {
        if !args.quiet {
            eprintln!("{s}");
        }
    };
    if let Some(w) = scene.timestep.warning(scene.world.dt) {
        eprintln!("warning: {w}");
    }
    let dt = scene.world.dt;
    let auto_dt = scene.timestep.auto_dt;
    let particles = scene.world.particles.len();
    let steps = scene.run.steps;
    let every = scene.output.every_steps.max(1);
    let fingerprint = scene.world.fingerprint();
    let checkpoint_path = out.join(CHECKPOINT_FILE);
    let state = if args.resume {
        let (fp, state) = read_checkpoint(&checkpoint_path)?;
        if fp != fingerprint {
            bail!(
                "{} was written for a different scene (particles, materials, walls, laws, domain, \
                 dt or skin differ): resume it with the scene that wrote it, or run without --resume",
                checkpoint_path.display()
            );
        }
        Some(state)
    } else {
        None
    };
    let start = state.as_ref().map(|s| s.step).unwrap_or(0);
    let (mut backend, message) = make_backend_from(scene.world, choice, state.as_ref())?;
    if args.resume {
        say(&format!(
            "resuming at step {start} from {}",
            checkpoint_path.display()
        ));
    }
    say(&format!(
        "{message}; {particles} particles, {steps} steps of {dt:.3e} s, output every {every} steps to {}",
        out.display()
    ));
    let opts = OutputOptions {
        dir: out.clone(),
        vtk: scene.output.vtk,
        csv: scene.output.csv,
        energy: scene.output.energy,
        contacts: scene.output.contacts,
    };
    let mut writer = if args.resume {
        OutputWriter::resume(&opts, start)
    } else {
        OutputWriter::create(&opts)
    }
    .with_context(|| format!("cannot write output to {}", out.display()))?;
    let frames_on = scene.output.vtk || scene.output.csv;
    // The ledger's total at the first energy line of this process, and the largest relative
    // departure from it since: reported at the end as the run's energy audit.
    let mut audit: Option<(f64, f64)> = None;
    let mut output = |b: &mut Box<dyn Backend>, w: &mut OutputWriter| -> Result<()> {
        let snap = b.snapshot();
        check_finite(&snap, dt, auto_dt)?;
        if frames_on {
            w.write_frame(&snap, None)?;
        }
        if scene.output.contacts {
            let records = b.contact_records();
            w.write_contacts(snap.step, snap.time, &records, &snap.pos)?;
        }
        if scene.output.energy {
            let e = b.energy();
            w.write_energy(snap.step, snap.time, &e)?;
            let (e0, worst) = audit.get_or_insert((e.total, 0.0));
            if *e0 != 0.0 {
                *worst = worst.max((e.total - *e0).abs() / e0.abs());
            }
        }
        Ok(())
    };
    if !args.resume {
        output(&mut backend, &mut writer)?;
    }
    let checkpoint_every = scene.output.checkpoint_every_steps;
    let checkpoint = |b: &mut Box<dyn Backend>| -> Result<()> {
        write_checkpoint(&checkpoint_path, fingerprint, &b.state())?;
        Ok(())
    };

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{bar:40} {pos}/{len} steps  {per_sec}  elapsed {elapsed_precise}  ETA {eta_precise}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    };
    let mut stepping = 0.0f64;
    let mut done = start;
    bar.set_position(done);
    while done < steps {
        let next_output = ((done / every) + 1) * every;
        let next_checkpoint = checkpoint_every
            .map(|c| (done / c.max(1) + 1) * c.max(1))
            .unwrap_or(u64::MAX);
        let target = next_output
            .min(next_checkpoint)
            .min(steps)
            .min(done + PROGRESS_CHUNK);
        let t0 = Instant::now();
        backend.try_run(target - done)?;
        stepping += t0.elapsed().as_secs_f64();
        done = target;
        bar.set_position(done);
        if done.is_multiple_of(every) || done == steps {
            output(&mut backend, &mut writer)?;
        }
        if let Some(c) = checkpoint_every {
            if done.is_multiple_of(c.max(1)) || done == steps {
                checkpoint(&mut backend)?;
            }
        }
    }
    bar.finish_and_clear();
    writer.finish()?;
    let counters = backend.counters();
    let contacts = backend.contacts();
    let report = RunReport {
        backend: backend.name(),
        steps: done - start,
        particles,
        seconds: stepping,
        rebuilds: counters.rebuilds,
        frames: writer.frames_written(),
        out,
        energy_drift: audit.map(|(_, worst)| worst),
    };
    say(&format!(
        "done: {} steps in {:.2} s ({:.3e} particle-steps/s), {} broad-phase rebuilds, \
         {:.3} contacts per particle and {} wall contacts at the end, {} frames in {}",
        report.steps,
        report.seconds,
        report.particles as f64 * report.steps as f64 / report.seconds.max(1e-9),
        report.rebuilds,
        contacts.per_particle(report.particles),
        contacts.walls,
        report.frames,
        report.out.display()
    ));
    if let Some((_, worst)) = audit {
        if worst > AUDIT_WARNING {
            eprintln!(
                "warning: the energy ledger's total moved by {:.2}% during the run: the time step \
                 ({dt:.3e} s) is probably too large for these contacts (`dt = \"auto\"` would \
                 choose {auto_dt:.3e} s)",
                100.0 * worst
            );
        } else {
            say(&format!(
                "energy audit: the ledger's total stayed within {worst:.2e} of its start"
            ));
        }
    }
    Ok(report)
}
