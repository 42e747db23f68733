//! `grains run`: a scene in, frames and the energy log out, with a progress bar.

use crate::preflight::{check_disk, check_overlaps, memory_budget, output_estimate};
use crate::runner::{Checkpointing, Runner};
use crate::{make_backend_within, preflight, BackendArg, Resume};
use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use grains_core::cpu::CpuMemoryModel;
use grains_core::units::{qty, sig4};
use grains_core::Backend;
use grains_gpu::memory::GpuMemoryModel;
use grains_io::{open_checkpoint, OutputLock, OutputWriter, ResumePoint, CHECKPOINT_FILE};
use grains_scene::BackendChoice;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    let mut runner = Runner::new(scene, backend);
    runner.record(resumed, (args.resume, args.quiet), saving);
    let mut given_up = runner.begin(!args.resume)?;
    let bar = progress_bar(args.quiet, steps);
    let stepped = runner.advance(steps, args.interrupt.as_deref(), &bar);
    bar.finish_and_clear();
    let stepped = stepped?;
    given_up += stepped.given_up;
    let done = stepped.done;
    if done < steps {
        // Interrupted: the state of this step on disk, output and checkpoint both.
        // (Off the cadence, this frame is removed when the run resumes.)
        if !done.is_multiple_of(every) {
            runner.write_frame()?;
        }
        runner.finish()?;
        runner.save()?;
        return Err(Interrupted {
            step: done,
            resume: resume_command(args),
        }
        .into());
    }
    runner.finish()?;
    let counters = runner.backend.counters();
    let audit = runner.recording.as_ref().and_then(|r| r.0.audit);
    let report = RunReport {
        backend: runner.backend.name(),
        steps: done - start,
        particles,
        counts,
        seconds: stepped.seconds,
        rebuilds: counters.rebuilds,
        frames: runner.frames_written(),
        out,
        energy_drift: audit.map(|(_, worst)| worst),
        removed: counters.removed,
    };
    let scene = &runner.scene;
    if !args.quiet {
        let ending = Ending {
            given_up,
            removed_here: stepped.removed_here,
        };
        for line in summary_lines(scene, &report, runner.backend.as_mut(), &memory, &ending) {
            eprintln!("{line}");
        }
    }
    let audited = scene.world.dynamics.mode != grains_core::dynamics::Mode::Static;
    if let Some((_, worst)) = audit.filter(|(_, w)| audited && *w > AUDIT_WARNING) {
        eprintln!("warning: {}", preflight::ledger_warning(scene, worst));
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
        return Ok((first_state(scene, args.quiet)?, 0));
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

/// The state a fresh run of `scene` starts from: a stage's (`[initial] from`), or else the
/// scene's own particles (`None`), checked for deep initial overlaps.
pub fn first_state(scene: &grains_scene::Scene, quiet: bool) -> Result<Option<Resume>> {
    // A stage's overlaps are those its earlier run held at rest.
    let Some(init) = &scene.initial else {
        check_overlaps(scene)?;
        return Ok(None);
    };
    let (state, carried) = crate::stage::stage_state(scene, init)?;
    if !quiet {
        eprintln!(
            "starting from {} ({} spheres, {carried} contacts' history carried)",
            init.from.display(),
            init.ids.len()
        );
    }
    Ok(Some(Resume::State(Box::new(state))))
}

/// A runner of `scene` (read, and checked for stability unless `allow_unstable`) on the
/// backend `choice`, from `state` (the scene's first state when `None`), writing its output
/// to `out` as `grains run` does from that step: what the Python package runs.
pub fn open_runner(
    mut scene: grains_scene::Scene,
    choice: BackendArg,
    state: Option<grains_core::BackendState>,
    (out, allow_unstable): (Option<&std::path::Path>, bool),
) -> Result<Runner> {
    if !allow_unstable {
        preflight::check_stability(&scene)?;
    }
    let state = match state {
        Some(s) => Some(Resume::State(Box::new(s))),
        None => first_state(&scene, true)?,
    };
    let estimates = (
        CpuMemoryModel::dense_pack(&scene.world).total(),
        GpuMemoryModel::dense_pack(&scene.world).total(),
    );
    let fingerprint = scene.world.fingerprint();
    let budget = memory_budget(None);
    let (backend, _) = make_backend_within(
        &mut scene,
        (choice, None),
        state,
        budget.as_ref(),
        estimates,
    )?;
    Runner::start(scene, backend, out, fingerprint)
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
