//! `grains run`: a scene in, frames and the energy log out, with a progress bar.

use crate::preflight::{
    check_disk, check_overlaps, fault_message, healthy, lost_particles, memory_budget,
    output_estimate,
};
use crate::{make_backend_within, preflight, BackendArg, Resume};
use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use grains_core::units::{qty, sig4};
use grains_core::Backend;
use grains_io::{
    open_checkpoint, write_backend_checkpoint, OutputLock, OutputWriter, ResumePoint,
    CHECKPOINT_FILE,
};
use grains_scene::{BackendChoice, LostParticles};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `grains run`.
#[derive(Clone, Debug, Default)]
pub struct RunArgs {
    pub scene: PathBuf,
    pub backend: Option<BackendArg>,
    pub out: Option<PathBuf>,
    pub steps: Option<u64>,
    pub quiet: bool,
    /// Resume from `OUT/checkpoint.bin`.
    pub resume: bool,
    /// Run even when dt exceeds the critical time steps (otherwise refused).
    pub allow_unstable: bool,
    /// Memory the run may take (bytes); default: the machine's available memory.
    pub memory_limit: Option<u64>,
    /// Set (by Ctrl-C, or a caller) to stop the run after the current step: it then flushes
    /// its output, writes a checkpoint and says how to resume. None: never interrupted.
    pub interrupt: Option<Arc<AtomicBool>>,
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
    /// Particles removed as lost (`simulation.lost_particles = "delete"`), in all.
    pub removed: u64,
}

/// A run stopped by Ctrl-C (or its `interrupt` flag): its output is flushed and a checkpoint
/// written. The binary exits with 130 for it, as shells expect of an interrupted command.
#[derive(Debug)]
pub struct Interrupted {
    /// The step it stopped after.
    pub step: u64,
    /// How to carry on.
    pub resume: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted after step {}; output flushed and a checkpoint written; resume with: {}",
            self.step, self.resume
        )
    }
}

impl std::error::Error for Interrupted {}

/// Relative drift of the energy ledger's total beyond which a run warns (1%): ten times what
/// the damped settle of the test suite shows at the automatic time step.
const AUDIT_WARNING: f64 = 1e-2;

/// Steps between progress-bar updates at most; bounds the batch a backend runs at once.
const PROGRESS_CHUNK: u64 = 200;

/// Run a scene to completion.
pub fn run(args: &RunArgs) -> Result<RunReport> {
    // The program itself, before any scene: code, runtime and allocator, resident whatever the
    // scene (a few MiB, which the scene's estimate does not count).
    let program = preflight::resident();
    let budget = memory_budget(args.memory_limit);
    let mut scene = grains_scene::load_scene_within(&args.scene, budget.as_ref())?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(n) = args.steps {
        if !(1..=grains_scene::MAX_STEPS).contains(&n) {
            bail!("--steps {n}: expected between 1 and 1e15 steps");
        }
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
    let dt = scene.world.dt;
    if !args.allow_unstable {
        preflight::check_stability(&scene)?;
    } else if let Some(w) = scene.timestep.warning(dt) {
        eprintln!("warning: {w} (running anyway: --allow-unstable)");
    }
    let particles = scene.world.particles.len();
    let steps = scene.run.steps;
    let every = scene.output.every_steps.max(1);
    let fingerprint = scene.world.fingerprint();
    let checkpoint_path = out.join(CHECKPOINT_FILE);
    // The memory estimates, from the scene's positions (their radii size the broad phase's
    // cells), before a resumed run lets those go.
    let estimates = (scene.cpu_memory_estimate(), scene.gpu_memory_estimate());
    let cpu_model = scene.cpu_memory_model();
    let gpu_model = scene.gpu_memory_model();
    // One run a directory: held until this function returns, however it returns.
    let _lock = OutputLock::take(&out, &args.scene)?;
    let (state, start) = if args.resume {
        // The state replaces the scene's initial positions, velocities, spins and orientations
        // (64 bytes a particle): they go before it is read, so that resuming never holds both.
        // The backends take the positions from the state.
        let p = &mut scene.world.particles;
        (p.pos, p.vel, p.omega, p.quat) = Default::default();
        let ck = open_checkpoint(&checkpoint_path).with_context(|| {
            format!(
                "cannot resume from {}; run without --resume to start over",
                checkpoint_path.display()
            )
        })?;
        if ck.fingerprint != fingerprint {
            bail!(
                "{} was written for a different scene (particles, materials, walls, laws, domain, \
                 dt or skin differ): resume it with the scene that wrote it, or run without --resume",
                checkpoint_path.display()
            );
        }
        let step = ck.header.step;
        (Some(Resume::File(ck)), step)
    } else {
        // A resumed run's particles have moved on from the scene's initial state.
        check_overlaps(&scene)?;
        (None, 0)
    };
    let opts = preflight::output_options(&scene, &out);
    let volume = output_estimate(&scene, &opts, start, estimates.0);
    check_disk(&scene, &out, &volume)?;
    // Bonds are logged when they break: which are broken already (a resumed run's), and the
    // particles' materials, which name each bond's chain.
    // Kept only where there are bonds to log (4 bytes a particle, held for the whole run).
    let material = if scene.world.fixed_pairs.is_empty() {
        Vec::new()
    } else {
        scene.world.particles.material.clone()
    };
    let (mut backend, message) =
        make_backend_within(&mut scene, choice, state, budget.as_ref(), estimates)?;
    let writer = if args.resume {
        // The rows of particles.csv the frame of the checkpoint's step holds (or would).
        let frame_rows = (backend.snapshot().pos.len() - scene.world.triangle_tail()) as u64;
        let at = ResumePoint {
            step: start,
            every,
            last: steps,
            frame_rows,
            rows_every_frame: scene.world.insertions.is_empty(),
        };
        OutputWriter::resume(&opts, &at)
    } else {
        OutputWriter::create(&opts).map(|writer| grains_io::Resumed {
            writer,
            rewrite_frame: true,
            bonds_through: None,
        })
    }
    .with_context(|| format!("cannot write output to {}", out.display()))?;
    // The bonds the resumed state holds broken, from the backend that took it up, less those
    // the output is to log again (with a frame written again).
    let mut broken: std::collections::HashSet<usize> = if args.resume {
        grains_core::kernels::sources::fixed::broken_fixed_pairs(
            &scene.world.table,
            &scene.world.fixed_pairs,
            &material,
            &backend.fixed_history(),
        )
        .into_iter()
        .filter(|&(_, step)| writer.bonds_through.is_some_and(|t| step <= t))
        .map(|(k, _)| k)
        .collect()
    } else {
        Default::default()
    };
    if args.resume {
        say(&format!(
            "resuming at step {start} from {}",
            checkpoint_path.display()
        ));
    }
    say(&format!(
        "{message}; {particles} particles, {steps} steps of {}, output every {every} steps to {} \
         (about {} in {} frames)",
        qty(dt, "s"),
        out.display(),
        grains_scene::bytes(volume.bytes),
        volume.frames
    ));
    let (rewrite_frame, mut writer) = (writer.rewrite_frame, writer.writer);
    let frames_on = scene.output.vtk || scene.output.csv;
    // The ledger's total at the first energy line of this process, and the largest relative
    // departure from it since: reported at the end as the run's energy audit.
    let mut audit: Option<(f64, f64)> = None;
    let quiet = args.quiet;
    let world = &scene.world;
    let mut output = |b: &mut Box<dyn Backend>, w: &mut OutputWriter| -> Result<()> {
        if !world.fixed_pairs.is_empty() {
            let now = grains_core::kernels::sources::fixed::broken_fixed_pairs(
                &world.table,
                &world.fixed_pairs,
                &material,
                &b.fixed_history(),
            );
            let mut rows = Vec::new();
            for (k, step) in now {
                if broken.insert(k) {
                    let [i, j] = world.fixed_pairs[k];
                    if !quiet {
                        eprintln!("bond {k} (particles {i} and {j}) broke at step {step}");
                    }
                    rows.push((step, step as f64 * world.dt, k, i, j));
                }
            }
            rows.sort_by_key(|r| (r.0, r.2));
            w.write_broken_bonds(&rows)?;
        }
        // What the writers need besides the particles, read before the snapshot, which borrows
        // the backend's own arrays where it can (the CPU's) rather than copying them.
        let wall_loads = world
            .walls
            .iter()
            .any(|w| w.moves())
            .then(|| b.wall_loads());
        let shell_forces = (scene.output.vtk && !world.shells.is_empty()).then(|| b.shell_forces());
        let records = scene.output.contacts.then(|| b.contact_records());
        let snap = b.snapshot();
        let (step, time) = (snap.step, snap.time);
        if frames_on {
            // Mesh walls' triangles are fixed particles of the solver, not particles of the
            // scene: frames hold the scene's particles.
            let tail = world.triangle_tail();
            if tail > 0 {
                w.write_frame(&snap.first(snap.pos.len() - tail), None)?;
            } else {
                w.write_frame(&snap, None)?;
            }
        }
        if let Some(loads) = wall_loads {
            w.write_walls(step, time, &loads)?;
        }
        if let Some(forces) = shell_forces {
            w.write_shells(&snap, &world.shells, &forces)?;
        }
        if let Some(records) = records {
            w.write_contacts(step, time, &records, &snap.pos)?;
        }
        drop(snap);
        if scene.output.energy {
            let e = b.energy();
            w.write_energy(step, time, &e)?;
            let (e0, worst) = audit.get_or_insert((e.total, 0.0));
            // Measured against what the run holds: its starting total, or the work moving
            // walls and kinematic particles have put in, if larger.
            let scale = e0
                .abs()
                .max(e.wall_work.abs())
                .max(e.kinematic_work.abs())
                .max(e.inserted.abs());
            if scale != 0.0 {
                *worst = worst.max((e.total - *e0).abs() / scale);
            }
        }
        Ok(())
    };
    let insert_every = scene.world.insert_every;
    let mut given_up = 0u64;
    if !args.resume && insert_every > 0 {
        given_up += insert_batch(&scene.world, &mut backend, 0)?;
    }
    let checkpoint_every = scene.output.checkpoint_every_steps;
    let checkpoint = |b: &mut Box<dyn Backend>| -> Result<()> {
        write_backend_checkpoint(&checkpoint_path, fingerprint, b.as_mut())?;
        Ok(())
    };
    let resume = resume_command(args);
    // Output that cannot be written (a full disk, a file-size limit) stops the run with the
    // state of its step saved: its resume writes that step's frame again.
    let stopped = |e: anyhow::Error, b: &mut Box<dyn Backend>| -> anyhow::Error {
        let step = b.counters().steps;
        match checkpoint(b) {
            Ok(()) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, its state saved in {}: once the cause is \
                 fixed, resume with: {resume}",
                checkpoint_path.display()
            ),
            Err(c) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, and its checkpoint could not be written \
                 either: {c:#}"
            ),
        }
    };
    let failed_checkpoint = |e: anyhow::Error, step: u64| {
        anyhow::anyhow!(
            "{e:#}; the run stopped at step {step}, with its output written up to it and the \
             checkpoint before it kept"
        )
    };
    if rewrite_frame {
        // A fresh run's first frame, or a resumed run's frame that was cut short.
        if let Err(e) = output(&mut backend, &mut writer) {
            return Err(stopped(e, &mut backend));
        }
    }

    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{bar:40} {pos}/{len} steps  {rate}  elapsed {elapsed_precise}  ETA {eta_precise}",
        )
        .map(|s| {
            s.with_key("rate", |st: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} steps/s", st.per_sec());
            })
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    };
    let interrupted = || {
        args.interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    };
    let batch = backend.batch().clamp(1, PROGRESS_CHUNK);
    let mut stepping = 0.0f64;
    let mut done = start;
    let mut removed_here = 0u64;
    bar.set_position(done);
    while done < steps && !interrupted() {
        let next_output = ((done / every) + 1) * every;
        let next_checkpoint = checkpoint_every
            .map(|c| (done / c.max(1) + 1) * c.max(1))
            .unwrap_or(u64::MAX);
        let next_insert = done
            .checked_div(insert_every)
            .map_or(u64::MAX, |k| (k + 1) * insert_every);
        let target = next_output
            .min(next_checkpoint)
            .min(next_insert)
            .min(steps)
            .min(done + batch);
        let t0 = Instant::now();
        let fault = backend.run_guarded(target - done)?;
        stepping += t0.elapsed().as_secs_f64();
        done = backend.counters().steps;
        if let Some(f) = fault {
            let snap = backend.snapshot();
            let lost = lost_particles(&scene, &snap);
            let deletable = scene.guards.lost == LostParticles::Delete
                && lost.contains(&f.particle)
                && lost.iter().all(|&i| healthy(&scene, &snap, i));
            if !deletable {
                // Everything up to the last good frame is on disk; nothing of this step is.
                bar.finish_and_clear();
                writer.finish()?;
                bail!("{}", fault_message(&scene, &snap, f.particle));
            }
            backend.remove_particles(&lost)?;
            removed_here += lost.len() as u64;
        }
        bar.set_position(done);
        if insert_every > 0 && done.is_multiple_of(insert_every) {
            given_up += insert_batch(&scene.world, &mut backend, done)?;
        }
        if done.is_multiple_of(every) || done == steps {
            if let Err(e) = output(&mut backend, &mut writer) {
                bar.finish_and_clear();
                return Err(stopped(e, &mut backend));
            }
        }
        if let Some(c) = checkpoint_every {
            if done.is_multiple_of(c.max(1)) || done == steps {
                if let Err(e) = checkpoint(&mut backend) {
                    bar.finish_and_clear();
                    return Err(failed_checkpoint(e, done));
                }
            }
        }
    }
    bar.finish_and_clear();
    if done < steps {
        // Interrupted: the state of this step on disk, output and checkpoint both.
        // (Off the cadence, this frame is removed when the run resumes.)
        if !done.is_multiple_of(every) {
            if let Err(e) = output(&mut backend, &mut writer) {
                return Err(stopped(e, &mut backend));
            }
        }
        writer.finish()?;
        checkpoint(&mut backend)?;
        return Err(Interrupted { step: done, resume }.into());
    }
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
        removed: counters.removed,
    };
    say(&format!(
        "done: {} steps in {} ({} particle-steps/s), {} broad-phase rebuilds, {} contacts per \
         particle and {} wall contacts at the end, {} frames in {}",
        report.steps,
        qty(report.seconds, "s"),
        sig4(report.particles as f64 * report.steps as f64 / report.seconds.max(1e-9)),
        report.rebuilds,
        sig4(contacts.per_particle(report.particles)),
        contacts.walls,
        report.frames,
        report.out.display()
    ));
    // What the run held, beside what `check` estimated: the host's peak resident set, and on
    // the GPU backend its buffers.
    // The pairs are about half the entries (each is listed from both sides; walls once).
    let (entries, pairs, slots) = (
        counters.neighbour_entries as usize,
        counters.neighbour_entries as usize / 2,
        (contacts.pairs + contacts.walls) as usize,
    );
    let memory = match backend.device_bytes() {
        // The GPU's buffers hold a share more than the list they last grew to (`grown_to`).
        Some(device) => format!(
            "memory: {} in device buffers (estimate {} for a dense pack, {} for the list the \
             run ended with), peak resident set {}{}",
            grains_scene::bytes(device),
            grains_scene::bytes(estimates.1),
            grains_scene::bytes(gpu_model.grown_to(entries, pairs, slots).total()),
            preflight::peak_resident()
                .map(grains_scene::bytes)
                .unwrap_or_else(|| "unknown".into()),
            crate::texture_note(&backend.texture_arrays())
        ),
        None => format!(
            "memory: peak resident set {} (estimate {} for a dense pack, {} for the list the run \
             ended with{}{})",
            preflight::peak_resident()
                .map(grains_scene::bytes)
                .unwrap_or_else(|| "unknown".into()),
            grains_scene::bytes(estimates.0),
            grains_scene::bytes(cpu_model.at(entries, pairs, slots)),
            program
                .map(|b| format!(", plus {} of the program itself", grains_scene::bytes(b)))
                .unwrap_or_default(),
            // The CPU backend chosen after looking for a hardware GPU: the drivers that look
            // loaded are resident too, and the scene's estimate cannot know them.
            match preflight::probe_bytes() {
                Some(b) if b >= 1 << 20 => format!(
                    ", plus {} of GPU drivers loaded to look for a hardware adapter",
                    grains_scene::bytes(b)
                ),
                _ => String::new(),
            }
        ),
    };
    say(&memory);
    if counters.removed > 0 {
        say(&format!(
            "lost particles: {} left the domain and were deleted ({removed_here} in this run); \
             the energy they carried is the ledger's `removed` column",
            counters.removed
        ));
    }
    if !scene.world.insertions.is_empty() {
        let inserted = counters.inserted;
        let mut line = format!(
            "insertion: {inserted} particles inserted; the energy they brought is the ledger's \
             `inserted` column"
        );
        if given_up > 0 {
            line.push_str(&format!(
                "; {given_up} found no free place in their region and were not inserted \
                 (a larger region or a lower rate would take them)"
            ));
        }
        say(&line);
    }
    if let Some((_, worst)) = audit {
        if worst > AUDIT_WARNING {
            eprintln!("warning: {}", preflight::ledger_warning(&scene, worst));
        } else {
            say(&format!(
                "energy audit: the ledger's total stayed within {} of its start",
                sig4(worst)
            ));
        }
    }
    Ok(report)
}

/// The command that resumes the run of `args`: its scene, and the flags it was given.
fn resume_command(args: &RunArgs) -> String {
    let mut resume = format!("grains run {} --resume", args.scene.display());
    if let Some(o) = &args.out {
        resume.push_str(&format!(" --out {}", o.display()));
    }
    if let Some(b) = args.backend {
        resume.push_str(&format!(
            " --backend {}",
            b.to_possible_value()
                .map(|v| v.get_name().to_string())
                .unwrap_or_default()
        ));
    }
    if let Some(n) = args.steps {
        resume.push_str(&format!(" --steps {n}"));
    }
    if args.allow_unstable {
        resume.push_str(" --allow-unstable");
    }
    if let Some(m) = args.memory_limit {
        resume.push_str(&format!(" --memory-limit {m}"));
    }
    resume
}

/// The insertion batch at `step`: each block's particles due since the previous batch
/// (`step - world.insert_every`), placed among the particles now in the run. Returns how many
/// could not be placed.
fn insert_batch(world: &grains_core::World, b: &mut Box<dyn Backend>, step: u64) -> Result<u64> {
    let every = world.insert_every.max(1);
    let t = |s: u64| s as f64 * world.dt;
    let mut pos = b.snapshot().pos.into_owned();
    let mut placed = Vec::new();
    let mut given_up = 0u64;
    for ins in &world.insertions {
        let from = if step >= every {
            ins.due(t(step - every))
        } else {
            0
        };
        let to = ins.due(t(step));
        if to > from {
            let p = grains_core::insert::place(world, ins, &pos, from, to);
            given_up += p.given_up as u64;
            let v = ins.velocity.map(|x| x as f32);
            // Later blocks of this batch see these particles.
            for &(id, x) in &p.particles {
                if let Some(r) = world.insertion_radius(id) {
                    pos[id as usize] = [x[0], x[1], x[2], r];
                }
            }
            placed.extend(p.particles.into_iter().map(|(id, x)| (id, x, v)));
        }
    }
    if !placed.is_empty() {
        b.insert_particles(&placed)?;
    }
    Ok(given_up)
}
