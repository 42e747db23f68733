//! `grains run`: a scene in, frames and the energy log out, with a progress bar.

use crate::preflight::{
    check_disk, check_overlaps, fault_message, healthy, lost_particles, memory_budget,
    output_estimate,
};
use crate::{make_backend_within, preflight, BackendArg, Resume};
use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use grains_core::cpu::CpuMemoryModel;
use grains_core::units::{qty, sig4};
use grains_core::Backend;
use grains_gpu::memory::GpuMemoryModel;
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
    /// Overrides of the scene's keys (`--set PATH=VALUE`), applied in order.
    pub sets: Vec<grains_scene::overrides::Override>,
    /// The GPU adapter a GPU backend runs on (`--adapter`); `None`: the best there is.
    pub adapter: Option<grains_gpu::AdapterChoice>,
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
    /// Particles, mesh triangles and wall blocks, as `grains check` states them
    /// ([`grains_scene::Scene::counts`]).
    pub counts: String,
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
    let mut scene = scene_to_run(args, budget.as_ref())?;
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
    let (particles, steps) = (scene.world.particles.len(), scene.run.steps);
    let counts = scene.counts();
    let every = scene.output.every_steps.max(1);
    let fingerprint = scene.world.fingerprint();
    let saving = Checkpointing {
        path: out.join(CHECKPOINT_FILE),
        fingerprint,
        resume: resume_command(args),
    };
    // The memory estimates, from the scene's positions (their radii size the broad phase's
    // cells), before a resumed run lets those go.
    let memory = HeldMemory {
        program,
        estimates: (
            CpuMemoryModel::dense_pack(&scene.world).total(),
            GpuMemoryModel::dense_pack(&scene.world).total(),
        ),
        cpu_model: CpuMemoryModel::of(&scene.world),
        gpu_model: GpuMemoryModel::of(&scene.world),
    };
    // One run a directory: held until this function returns, however it returns.
    let _lock = OutputLock::take(&out, &args.scene)?;
    record_overrides(&out, args)?;
    let (state, start) = initial_state(args, &mut scene, &saving)?;
    let opts = preflight::output_options(&scene, &out);
    let volume = output_estimate(&scene, &opts, start, memory.estimates.0);
    check_disk(&scene, &out, &volume)?;
    // Bonds are logged when they break: the particles' materials name each bond's chain.
    // Kept only where there are bonds to log (4 bytes a particle, held for the whole run).
    let material = if scene.world.fixed_pairs.is_empty() {
        Vec::new()
    } else {
        scene.world.particles.material.clone()
    };
    let (mut backend, message) = make_backend_within(
        &mut scene,
        (choice, args.adapter.as_ref()),
        state,
        budget.as_ref(),
        memory.estimates,
    )?;
    let resumed = open_output(args, &scene, &opts, &mut backend, start)
        .with_context(|| format!("cannot write output to {}", out.display()))?;
    if args.resume {
        say(&format!(
            "resuming at step {start} from {}",
            saving.path.display()
        ));
    }
    say(&format!(
        "{message}; {counts}, {steps} steps of {}, output every {every} steps to {} (about {} \
         in {} frames)",
        qty(scene.world.dt, "s"),
        out.display(),
        grains_scene::bytes(volume.bytes),
        volume.frames
    ));
    let mut output = RunOutput::new(&scene, material, args, resumed, backend.as_mut());
    let mut given_up = 0u64;
    if !args.resume && scene.world.insert_every > 0 {
        given_up += insert_batch(&scene, &mut backend, 0)?;
    }
    if output.rewrite_frame {
        // A fresh run's first frame, or a resumed run's frame that was cut short.
        if let Err(e) = output.write(&mut backend) {
            return Err(saving.stopped(e, &mut backend, &scene.world));
        }
    }
    let bar = progress_bar(args.quiet, steps);
    let stepped = step_until_done(
        args,
        &scene,
        &mut backend,
        &mut output,
        &saving,
        &bar,
        start,
    );
    bar.finish_and_clear();
    let stepped = stepped?;
    given_up += stepped.given_up;
    let done = stepped.done;
    if done < steps {
        // Interrupted: the state of this step on disk, output and checkpoint both.
        // (Off the cadence, this frame is removed when the run resumes.)
        if !done.is_multiple_of(every) {
            if let Err(e) = output.write(&mut backend) {
                return Err(saving.stopped(e, &mut backend, &scene.world));
            }
        }
        output.writer.finish()?;
        saving.save(&mut backend, &scene.world)?;
        return Err(Interrupted {
            step: done,
            resume: saving.resume,
        }
        .into());
    }
    output.writer.finish()?;
    let counters = backend.counters();
    let report = RunReport {
        backend: backend.name(),
        steps: done - start,
        particles,
        counts,
        seconds: stepped.seconds,
        rebuilds: counters.rebuilds,
        frames: output.writer.frames_written(),
        out,
        energy_drift: output.audit.map(|(_, worst)| worst),
        removed: counters.removed,
    };
    if !args.quiet {
        let ending = Ending {
            given_up,
            removed_here: stepped.removed_here,
        };
        for line in summary_lines(&scene, &report, backend.as_mut(), &memory, &ending) {
            eprintln!("{line}");
        }
    }
    // A static run's load steps are not a motion in time: its ledger holds the energies of
    // each equilibrium, which a sudden load does not conserve.
    let audited = scene.world.dynamics.mode != grains_core::dynamics::Mode::Static;
    if let Some((_, worst)) = output.audit.filter(|(_, w)| audited && *w > AUDIT_WARNING) {
        eprintln!("warning: {}", preflight::ledger_warning(&scene, worst));
    }
    Ok(report)
}

/// The scene of `args`, read within the memory `budget`, its warnings printed, `--steps`
/// applied and its stability checked (refused unless `--allow-unstable`).
fn scene_to_run(
    args: &RunArgs,
    budget: Option<&grains_scene::MemoryBudget>,
) -> Result<grains_scene::Scene> {
    let mut scene = grains_scene::load_scene_with(&args.scene, budget, &args.sets)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(n) = args.steps {
        if !(1..=grains_scene::MAX_STEPS).contains(&n) {
            bail!("--steps {n}: expected between 1 and 1e15 steps");
        }
        scene = scene.with_steps(n);
    }
    if !args.allow_unstable {
        preflight::check_stability(&scene)?;
    } else if let Some(w) = scene.timestep.warning(scene.world.dt) {
        eprintln!("warning: {w} (running anyway: --allow-unstable)");
    }
    Ok(scene)
}

/// The state a run starts from and its step: a resumed run's checkpoint (checked to be the
/// scene's), or the scene's own particles (checked for deep initial overlaps) at step 0.
fn initial_state(
    args: &RunArgs,
    scene: &mut grains_scene::Scene,
    saving: &Checkpointing,
) -> Result<(Option<Resume>, u64)> {
    if !args.resume {
        // A resumed run's particles have moved on from the scene's initial state, and a
        // stage's overlaps are those its earlier run held at rest.
        if scene.initial.is_none() {
            check_overlaps(scene)?;
        }
        if let Some(init) = &scene.initial {
            let (state, carried) = crate::stage::stage_state(scene, init)?;
            if !args.quiet {
                eprintln!(
                    "starting from {} ({} spheres, {carried} contacts' history carried)",
                    init.from.display(),
                    init.ids.len()
                );
            }
            return Ok((Some(Resume::State(Box::new(state))), 0));
        }
        return Ok((None, 0));
    }
    // The state replaces the scene's initial positions, velocities, spins and orientations
    // (64 bytes a particle): they go before it is read, so that resuming never holds both.
    // The backends take the positions from the state.
    let p = &mut scene.world.particles;
    (p.pos, p.vel, p.omega, p.quat) = Default::default();
    let path = &saving.path;
    let ck = open_checkpoint(path).with_context(|| {
        format!(
            "cannot resume from {}; run without --resume to start over",
            path.display()
        )
    })?;
    if ck.fingerprint != saving.fingerprint {
        bail!(
            "{} was written for a different scene (particles, materials, walls, laws, domain, \
             dt or skin differ): resume it with the scene that wrote it, or run without --resume",
            path.display()
        );
    }
    let step = ck.header.step;
    Ok((Some(Resume::File(ck)), step))
}

/// The output writer of a run starting at `start`: a fresh run's, or a resumed run's with its
/// output checked against the checkpoint and cut back to it.
fn open_output(
    args: &RunArgs,
    scene: &grains_scene::Scene,
    opts: &grains_io::OutputOptions,
    backend: &mut Box<dyn Backend>,
    start: u64,
) -> Result<grains_io::Resumed, grains_io::IoError> {
    if !args.resume {
        return OutputWriter::create(opts).map(|writer| grains_io::Resumed {
            writer,
            rewrite_frame: true,
            bonds_through: None,
        });
    }
    // The rows of particles.csv the frame of the checkpoint's step holds (or would).
    let frame_rows = (backend.snapshot().pos.len() - scene.world.triangle_tail()) as u64;
    let at = ResumePoint {
        step: start,
        every: scene.output.every_steps.max(1),
        last: scene.run.steps,
        frame_rows,
        rows_every_frame: scene.world.insertions.is_empty(),
    };
    OutputWriter::resume(opts, &at)
}

/// Where a run's checkpoint goes, the scene it belongs to, and the command that resumes it.
struct Checkpointing {
    path: PathBuf,
    fingerprint: u64,
    resume: String,
}

impl Checkpointing {
    /// Write the backend's state, and beside it the particles a later stage starts from
    /// (`stage.csv`).
    fn save(&self, b: &mut Box<dyn Backend>, world: &grains_core::World) -> Result<()> {
        write_backend_checkpoint(&self.path, self.fingerprint, b.as_mut())?;
        if let Some(dir) = self.path.parent() {
            grains_io::write_stage(dir, world, &b.snapshot())?;
        }
        Ok(())
    }

    /// Output that cannot be written (a full disk, a file-size limit) stops the run with the
    /// state of its step saved: its resume writes that step's frame again.
    fn stopped(
        &self,
        e: anyhow::Error,
        b: &mut Box<dyn Backend>,
        world: &grains_core::World,
    ) -> anyhow::Error {
        let step = b.counters().steps;
        match self.save(b, world) {
            Ok(()) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, its state saved in {}: once the cause is \
                 fixed, resume with: {}",
                self.path.display(),
                self.resume
            ),
            Err(c) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, and its checkpoint could not be written \
                 either: {c:#}"
            ),
        }
    }

    /// A checkpoint that could not be written stops the run, the one before it kept.
    fn failed(e: anyhow::Error, step: u64) -> anyhow::Error {
        anyhow::anyhow!(
            "{e:#}; the run stopped at step {step}, with its output written up to it and the \
             checkpoint before it kept"
        )
    }
}

/// What a run writes at each output step, and what it keeps between them: the bonds already
/// logged broken, and the energy audit (the ledger's total at this process's first energy
/// line, and the largest relative departure from it since).
struct RunOutput<'a> {
    scene: &'a grains_scene::Scene,
    writer: OutputWriter,
    /// Whether the frame of the first step is to be written (a fresh run's, or a resumed
    /// frame that was cut short).
    rewrite_frame: bool,
    material: Vec<u32>,
    broken: std::collections::HashSet<usize>,
    audit: Option<(f64, f64)>,
    quiet: bool,
}

impl<'a> RunOutput<'a> {
    /// The output of a run whose writer is `resumed`; a resumed run's bonds broken before the
    /// output it keeps are known as logged already.
    fn new(
        scene: &'a grains_scene::Scene,
        material: Vec<u32>,
        args: &RunArgs,
        resumed: grains_io::Resumed,
        backend: &mut dyn Backend,
    ) -> RunOutput<'a> {
        let broken = if args.resume {
            grains_core::kernels::sources::fixed::broken_fixed_pairs(
                &scene.world.table,
                &scene.world.fixed_pairs,
                &material,
                &backend.fixed_history(),
            )
            .into_iter()
            .filter(|&(_, step)| resumed.bonds_through.is_some_and(|t| step <= t))
            .map(|(k, _)| k)
            .collect()
        } else {
            Default::default()
        };
        RunOutput {
            scene,
            writer: resumed.writer,
            rewrite_frame: resumed.rewrite_frame,
            material,
            broken,
            audit: None,
            quiet: args.quiet,
        }
    }

    /// Log the bonds that broke since the last output step.
    fn write_broken_bonds(&mut self, b: &mut Box<dyn Backend>) -> Result<()> {
        let world = &self.scene.world;
        let now = grains_core::kernels::sources::fixed::broken_fixed_pairs(
            &world.table,
            &world.fixed_pairs,
            &self.material,
            &b.fixed_history(),
        );
        let mut rows = Vec::new();
        for (k, step) in now {
            if self.broken.insert(k) {
                let [i, j] = world.fixed_pairs[k];
                if !self.quiet {
                    eprintln!("bond {k} (particles {i} and {j}) broke at step {step}");
                }
                rows.push((step, step as f64 * world.dt, k, i, j));
            }
        }
        rows.sort_by_key(|r| (r.0, r.2));
        self.writer.write_broken_bonds(&rows)?;
        Ok(())
    }

    /// Write the output of the backend's current step: broken bonds, the frame, wall loads,
    /// the walls' surfaces, shells, contacts and the energy line (with the audit).
    fn write(&mut self, b: &mut Box<dyn Backend>) -> Result<()> {
        let (scene, world) = (self.scene, &self.scene.world);
        if !world.fixed_pairs.is_empty() {
            self.write_broken_bonds(b)?;
        }
        // What the writers need besides the particles, read before the snapshot, which borrows
        // the backend's own arrays where it can (the CPU's) rather than copying them.
        let wall_loads = world.logs_wall_loads().then(|| b.wall_loads());
        let has_walls = !world.walls.is_empty() || world.triangle_tail() > 0;
        let walls = (scene.output.vtk && has_walls).then(|| (b.walls(), b.triangles()));
        let shell_forces = (scene.output.vtk && !world.shells.is_empty()).then(|| b.shell_forces());
        let records =
            (scene.output.contacts || scene.output.stress.is_some()).then(|| b.contact_records());
        let w = &mut self.writer;
        let snap = b.snapshot();
        let (step, time) = (snap.step, snap.time);
        // Mesh walls' triangles are fixed particles of the solver, not particles of the scene:
        // frames and stresses hold the scene's particles.
        let n = snap.pos.len() - world.triangle_tail();
        let stress = match (scene.output.stress, &records) {
            (Some(region), Some(records)) => {
                Some(stress_output(world, records, &snap.pos[..n], region))
            }
            _ => None,
        };
        if scene.output.vtk || scene.output.csv {
            let per_particle = stress.as_ref().map(|s| s.0.as_slice());
            if n < snap.pos.len() {
                w.write_frame_with(&snap.first(n), None, per_particle)?;
            } else {
                w.write_frame_with(&snap, None, per_particle)?;
            }
        }
        if let Some((_, region)) = &stress {
            w.write_stress(step, time, region)?;
        }
        if let Some(loads) = wall_loads {
            w.write_walls(step, time, &loads)?;
        }
        if let Some((walls, triangles)) = walls {
            w.write_wall_surfaces(step, time, world, (&walls, &triangles), &snap.pos)?;
        }
        if let Some(forces) = shell_forces {
            w.write_shells(&snap, &world.shells, &forces)?;
        }
        if let Some(records) = records.filter(|_| scene.output.contacts) {
            w.write_contacts(step, time, &records, &snap.pos)?;
        }
        drop(snap);
        if scene.output.energy {
            let e = b.energy();
            w.write_energy(step, time, &e)?;
            let (e0, worst) = self.audit.get_or_insert((e.total, 0.0));
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
    }
}

/// The progress bar of a run of `steps` steps (hidden with `-q`).
fn progress_bar(quiet: bool, steps: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
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
}

/// Where the stepping of a run ended.
struct Stepped {
    /// The step it reached: the last, or where it was interrupted.
    done: u64,
    /// Wall-clock seconds of stepping (output excluded).
    seconds: f64,
    /// Lost particles deleted in this process.
    removed_here: u64,
    /// Inserted particles that found no free place.
    given_up: u64,
}

/// Step the backend from `start` to the scene's last step (or until interrupted), in batches
/// that end at each output, checkpoint and insertion step: a fault stops the run (or deletes
/// the lost particles, where the scene says so), and output or a checkpoint that cannot be
/// written stops it with what is saved.
fn step_until_done(
    args: &RunArgs,
    scene: &grains_scene::Scene,
    backend: &mut Box<dyn Backend>,
    output: &mut RunOutput<'_>,
    saving: &Checkpointing,
    bar: &ProgressBar,
    start: u64,
) -> Result<Stepped> {
    let (steps, every) = (scene.run.steps, scene.output.every_steps.max(1));
    let insert_every = scene.world.insert_every;
    let checkpoint_every = scene.output.checkpoint_every_steps;
    // Servos steer their walls between steps, host-side: batches end where one is due.
    let servos = &scene.world.servos;
    let servo_every = servos.iter().map(|s| s.every.max(1)).min();
    let interrupted = || {
        args.interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    };
    let batch = backend.batch().clamp(1, PROGRESS_CHUNK);
    let mut s = Stepped {
        done: start,
        seconds: 0.0,
        removed_here: 0,
        given_up: 0,
    };
    bar.set_position(s.done);
    while s.done < steps && !interrupted() {
        let done = s.done;
        let next = |period: u64| (done / period + 1) * period;
        let target = next(every)
            .min(checkpoint_every.map_or(u64::MAX, |c| next(c.max(1))))
            .min(if insert_every > 0 {
                next(insert_every)
            } else {
                u64::MAX
            })
            .min(servo_every.map_or(u64::MAX, next))
            .min(steps)
            .min(done + batch);
        let t0 = Instant::now();
        let fault = backend.run_guarded(target - done)?;
        s.seconds += t0.elapsed().as_secs_f64();
        s.done = backend.counters().steps;
        if let Some(f) = fault {
            s.removed_here += delete_lost_or_stop(scene, backend, output, f)?;
        }
        bar.set_position(s.done);
        if insert_every > 0 && s.done.is_multiple_of(insert_every) {
            s.given_up += insert_batch(scene, backend, s.done)?;
        }
        grains_core::servo::steer(backend.as_mut(), servos, s.done);
        if s.done.is_multiple_of(every) || s.done == steps {
            output
                .write(backend)
                .map_err(|e| saving.stopped(e, backend, &scene.world))?;
        }
        if let Some(c) = checkpoint_every {
            if s.done.is_multiple_of(c.max(1)) || s.done == steps {
                saving
                    .save(backend, &scene.world)
                    .map_err(|e| Checkpointing::failed(e, s.done))?;
            }
        }
    }
    Ok(s)
}

/// A fault at the end of a batch: the lost particles deleted where the scene says so and they
/// are healthy (returns how many), or the run stopped with the fault's message, everything up
/// to the last good frame on disk and nothing of this step.
fn delete_lost_or_stop(
    scene: &grains_scene::Scene,
    backend: &mut Box<dyn Backend>,
    output: &mut RunOutput<'_>,
    f: grains_core::Fault,
) -> Result<u64> {
    let snap = backend.snapshot();
    let lost = lost_particles(scene, &snap);
    let deletable = scene.guards.lost == LostParticles::Delete
        && lost.contains(&f.particle)
        && lost.iter().all(|&i| healthy(scene, &snap, i));
    if !deletable {
        let message = fault_message(scene, &snap, f.particle);
        drop(snap);
        output.writer.finish()?;
        bail!("{message}");
    }
    drop(snap);
    backend.remove_particles(&lost)?;
    Ok(lost.len() as u64)
}

/// What the end-of-run memory line compares: the program's own resident set, and the
/// estimates and models of both backends from the scene.
struct HeldMemory {
    program: Option<u64>,
    estimates: (u64, u64),
    cpu_model: CpuMemoryModel,
    gpu_model: GpuMemoryModel,
}

/// Counts of a run's end that its report does not carry.
struct Ending {
    given_up: u64,
    removed_here: u64,
}

/// The lines a finished run prints: steps and throughput, memory held against the estimate,
/// lost and inserted particles, and the energy audit when it held.
fn summary_lines(
    scene: &grains_scene::Scene,
    report: &RunReport,
    backend: &mut dyn Backend,
    memory: &HeldMemory,
    ending: &Ending,
) -> Vec<String> {
    let counters = backend.counters();
    let contacts = backend.contacts();
    let mut lines = vec![format!(
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
    )];
    lines.push(memory_line(backend, memory, &counters, &contacts));
    if counters.solves > 0 {
        lines.push(format!(
            "implicit solve ({}): {} conjugate-gradient iterations per step on average, {} \
             in all over {} solves",
            scene.world.dynamics.mode.keyword(),
            sig4(counters.solve_iterations as f64 / counters.solves as f64),
            counters.solve_iterations,
            counters.solves
        ));
    }
    if counters.removed > 0 {
        lines.push(format!(
            "lost particles: {} left the domain and were deleted ({} in this run); the energy \
             they carried is the ledger's `removed` column",
            counters.removed, ending.removed_here
        ));
    }
    if !scene.world.insertions.is_empty() {
        let mut line = format!(
            "insertion: {} particles inserted; the energy they brought is the ledger's \
             `inserted` column",
            counters.inserted
        );
        if ending.given_up > 0 {
            line.push_str(&format!(
                "; {} found no free place in their region and were not inserted (a larger \
                 region or a lower rate would take them)",
                ending.given_up
            ));
        }
        lines.push(line);
    }
    let audited = scene.world.dynamics.mode != grains_core::dynamics::Mode::Static;
    if let Some(worst) = report
        .energy_drift
        .filter(|&w| audited && w <= AUDIT_WARNING)
    {
        lines.push(format!(
            "energy audit: the ledger's total stayed within {} of its start ({})",
            sig4(worst),
            preflight::AUDIT_SCALE
        ));
    }
    lines
}

/// What the run held, beside what `check` estimated: the host's peak resident set, and on the
/// GPU backend its buffers.
fn memory_line(
    backend: &mut dyn Backend,
    memory: &HeldMemory,
    counters: &grains_core::Counters,
    contacts: &grains_core::ContactCount,
) -> String {
    // The pairs are about half the entries (each is listed from both sides; walls once).
    let (entries, pairs, slots) = (
        counters.neighbour_entries as usize,
        counters.neighbour_entries as usize / 2,
        (contacts.pairs + contacts.walls) as usize,
    );
    let peak = preflight::peak_resident()
        .map(grains_scene::bytes)
        .unwrap_or_else(|| "unknown".into());
    match backend.device_bytes() {
        // The GPU's buffers hold a share more than the list they last grew to (`grown_to`).
        Some(device) => format!(
            "memory: {} in device buffers (estimate {} for a dense pack, {} for the list the \
             run ended with), peak resident set {peak}{}",
            grains_scene::bytes(device),
            grains_scene::bytes(memory.estimates.1),
            grains_scene::bytes(memory.gpu_model.grown_to(entries, pairs, slots).total()),
            crate::texture_note(&backend.texture_arrays())
        ),
        None => format!(
            "memory: peak resident set {peak} (estimate {} for a dense pack, {} for the list the \
             run ended with{}{})",
            grains_scene::bytes(memory.estimates.0),
            grains_scene::bytes(memory.cpu_model.at(entries, pairs, slots)),
            memory
                .program
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
    }
}

/// Keep the run's overrides in `OUT/overrides.txt`, a `--set PATH=VALUE` a line, so the
/// output says what it ran; a fresh run without overrides removes the file an earlier run left.
fn record_overrides(out: &std::path::Path, args: &RunArgs) -> Result<()> {
    let path = out.join("overrides.txt");
    if args.sets.is_empty() {
        if !args.resume && path.exists() {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
        return Ok(());
    }
    let text: String = args.sets.iter().map(|o| format!("--set {o}\n")).collect();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
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
    for o in &args.sets {
        resume.push_str(&format!(" --set '{o}'"));
    }
    if let Some(a) = &args.adapter {
        resume.push_str(&format!(" --adapter '{a}'"));
    }
    resume
}

/// The insertion batch at `step`: each block's particles due since the previous batch
/// (`step - world.insert_every`), placed among the particles now in the run. Returns how many
/// could not be placed; a block that has placed none of its particles and finds no place for
/// any due now stops the run ([`nothing_placed`]): it would insert nothing.
fn insert_batch(scene: &grains_scene::Scene, b: &mut Box<dyn Backend>, step: u64) -> Result<u64> {
    let world = &scene.world;
    let every = world.insert_every.max(1);
    let t = |s: u64| s as f64 * world.dt;
    let mut pos = b.snapshot().pos.into_owned();
    let mut placed = Vec::new();
    let mut given_up = 0u64;
    for (k, ins) in world.insertions.iter().enumerate() {
        let from = if step >= every {
            ins.due(t(step - every))
        } else {
            0
        };
        let to = ins.due(t(step));
        if to > from {
            let p = grains_core::insert::place(world, ins, &pos, from, to);
            let mine = ins.first as usize..ins.first as usize + ins.radii.len();
            if p.particles.is_empty() && pos[mine].iter().all(|x| x[3] <= 0.0) {
                bail!("{}", nothing_placed(scene, k, to));
            }
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

/// Why block `k` of the scene, `due` of whose particles are due and none placed, stops the run:
/// where its region is, its size and the particles' radii.
fn nothing_placed(scene: &grains_scene::Scene, k: usize, due: u32) -> String {
    let ins = &scene.world.insertions[k];
    let place = scene
        .places
        .inserts
        .get(k)
        .cloned()
        .unwrap_or_else(|| format!("{}: insert[{k}]", scene.path.display()));
    let (lo, hi) = ins
        .radii
        .iter()
        .fold((f32::INFINITY, 0.0f32), |(a, b), &r| (a.min(r), b.max(r)));
    let v = |x: [f64; 3]| format!("[{}, {}, {}]", sig4(x[0]), sig4(x[1]), sig4(x[2]));
    let region = match ins.region {
        grains_core::insert::Region::Box { min, max } => {
            format!("the box from {} to {} m", v(min), v(max))
        }
        grains_core::insert::Region::Cylinder {
            center,
            radius,
            height,
            ..
        } => format!(
            "the cylinder at {} m of radius {} and height {}",
            v(center),
            qty(radius, "m"),
            qty(height, "m")
        ),
    };
    format!(
        "{place}: insert[{k}] found no place for any of the {due} particle(s) due so far (radius {} to {}) \
         in {region}: every try ({} per particle) met a wall, another particle or the domain's \
         edge, so the block would insert nothing; expected a region clear of the walls with \
         room for its particles (larger, or moved off the walls)",
        qty(lo as f64, "m"),
        qty(hi as f64, "m"),
        grains_core::insert::ATTEMPTS
    )
}

/// Each of the first `pos.len()` particles' virial stress (Pa), and the mean stress of the box
/// `region` (the `stress` format: grains_core::stress).
fn stress_output(
    world: &grains_core::World,
    records: &[grains_core::ContactRecord],
    pos: &[[f32; 4]],
    region: [[f64; 3]; 2],
) -> (Vec<[f64; 6]>, grains_core::stress::RegionStress) {
    use grains_core::stress::{per_volume, region_stress, virial_moments};
    // A mesh wall's triangles are no particle of the scene: their contacts count for the
    // sphere that touches them only.
    let inside: Vec<_> = records
        .iter()
        .filter(|r| (r.i as usize) < pos.len())
        .map(|r| {
            let mut r = *r;
            if r.j >= pos.len() as i64 {
                r.j = -1;
            }
            r
        })
        .collect();
    let moments = virial_moments(&inside, pos, &world.domain.params());
    let region = region_stress(&moments, pos, region[0], region[1]);
    (per_volume(&moments, pos), region)
}
