//! The `grains` command line, as a library so the test suite can drive it in-process.
//!
//! `grains run SCENE`, `grains check SCENE`, `grains info`, `grains shader SCENE`,
//! `grains bench` (docs/architecture.md).

/// Write a line of a command's report to stdout, returning the write's error: a closed pipe
/// (`grains shader scene.toml | head`) then ends the command quietly ([`exit_status`]), where
/// `println!` would panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

pub mod bench;
pub mod export;
pub mod plot;
pub mod post;
pub mod preflight;
pub mod run;
pub mod runner;
pub mod stage;
pub mod sweep;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use grains_core::cpu::CpuMemoryModel;
use grains_core::{Backend, BackendState, CpuBackend, World};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// GPU-accelerated Discrete Element Method solver.
#[derive(Parser, Debug)]
#[command(name = "grains", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Backend chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// A hardware GPU if there is one, else the CPU backend.
    Auto,
    /// The GPU backend (any adapter, lavapipe included); an error if there is none.
    Gpu,
    /// The CPU backend.
    Cpu,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a scene, writing frames and the energy log.
    ///
    /// Runs with a progress bar (steps/s, ETA) on stderr; prints the backend it took and the
    /// output it will write, and at the end the steps, wall time, particle-steps/s, broad-phase
    /// rebuilds, contacts per particle and the memory it held (peak resident set; on the GPU,
    /// its buffers) beside the estimate, with what the estimate cannot know (the program's own
    /// resident set, the GPU drivers loaded) measured apart.
    ///
    /// An output directory holds one run: a second run into a directory a run is writing is
    /// refused, naming it (pid, host, scene, since when), and a fresh run into an earlier run's
    /// directory replaces that run's files. `--resume` continues from the directory's
    /// checkpoint after checking the output against it and cutting it back to the checkpoint's
    /// step. Exit status: 0 when the run completes, 1 on any error, 130 when interrupted.
    Run {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Override the scene's backend.
        #[arg(long, value_enum)]
        backend: Option<BackendArg>,
        /// Override the output directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the number of steps.
        #[arg(long)]
        steps: Option<u64>,
        /// No progress bar and no summary.
        #[arg(long, short)]
        quiet: bool,
        /// Resume from the checkpoint in the output directory (written when the scene sets
        /// `output.checkpoint_every`, and always on Ctrl-C), keeping the output written up to it.
        #[arg(long)]
        resume: bool,
        /// Run even when dt exceeds 20% of the Rayleigh time or resolves a collision in fewer
        /// than 10 steps (refused otherwise).
        #[arg(long)]
        allow_unstable: bool,
        /// Memory the run may take, e.g. 8G or 512MiB (default: the machine's available memory).
        #[arg(long, value_parser = preflight::parse_bytes)]
        memory_limit: Option<u64>,
        /// Override a key of the scene, PATH=VALUE (repeatable): `simulation.dt=1e-5`,
        /// `material.glass.young=1e7` (a block by its name), `interaction[0].tangential.friction=0.4`
        /// (by its index); VALUE is a TOML value. A key the block lacks is added.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<grains_scene::overrides::Override>,
        /// The GPU adapter a GPU backend runs on: its number in `grains info`'s list, or a part
        /// of its name (default: the best there is).
        #[arg(long, value_name = "N|NAME")]
        adapter: Option<grains_gpu::AdapterChoice>,
    },
    /// Validate a scene and print its derived figures (no GPU needed).
    ///
    /// Prints particles, materials, chains, the Rayleigh and Hertz collision times, the chosen
    /// dt and the limit that chose it, the memory estimates of both backends (the CPU
    /// backend's resident set and the GPU backend's device buffers, each for a dense pack,
    /// which a settled bed reaches, split per particle into particle arrays, list, pairs in
    /// contact, walls and bonds; on the CPU what a rebuild adds; and the list the run starts
    /// from, counted without building it), the output-size estimate, the initial overlaps and
    /// the scene's warnings; composes and validates every chain's WGSL with naga. Fails where
    /// `grains run` would refuse.
    Check {
        /// Scene file (TOML).
        scene: PathBuf,
        /// Memory the scene may take, e.g. 8G or 512MiB (default: the machine's available
        /// memory).
        #[arg(long, value_parser = preflight::parse_bytes)]
        memory_limit: Option<u64>,
        /// Accept what `grains run --allow-unstable` runs (a dt past the stable limits, impacts
        /// deeper than the radius): reported as warnings, not refused.
        #[arg(long)]
        allow_unstable: bool,
        /// Override a key of the scene, PATH=VALUE (repeatable): `simulation.dt=1e-5`,
        /// `material.glass.young=1e7` (a block by its name), `interaction[0].tangential.friction=0.4`
        /// (by its index); VALUE is a TOML value. A key the block lacks is added.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<grains_scene::overrides::Override>,
    },
    /// List the GPU adapters wgpu can see.
    ///
    /// For the adapter `--backend gpu` takes, also what bounds a run's size there: its
    /// storage-binding size (an array past it is bound as windows), the storage buffers a
    /// kernel may bind, the storage textures it may bind besides (where arrays go when the
    /// windows would be too many), and its largest buffer.
    Info,
    /// Print the composed WGSL of each contact chain of a scene.
    Shader {
        /// Scene file (TOML).
        scene: PathBuf,
    },
    /// Time the CPU and GPU backends on the settle scene (particle-steps per second).
    Bench(bench::BenchArgs),
    /// Run a scene once per row of a table of overrides (a CSV whose header names key paths,
    /// such as material.glass.young), each row into OUT/row_<k>, a summary line per run in
    /// OUT/sweep.csv; --slurm writes a job-array script instead.
    Sweep(sweep::SweepArgs),
    /// Analyse a run's output folder (coordination number, packing fraction profile, size
    /// distribution, angle of repose, discharge rate with Beverloo's coefficient, radial
    /// distribution, velocity profile) into OUT/post/<analysis>.csv.
    Post(post::PostArgs),
    /// Draw a run's output as PNG and SVG figures, each with the CSV of what it plots:
    /// `energy` (the ledger and its drift), `walls` (the wall loads), `contacts` (their count
    /// and normal forces) or `post` (the tables of `grains post`), into OUTDIR or `--out DIR`.
    Plot(plot::PlotArgs),
    /// Write the state a run of SCENE (or the run in folder OUT) left in its checkpoint as pack
    /// files (x y z r vx vy vz, one sphere a line), one per material, in OUT/export/, for a
    /// later scene to start from.
    Export(export::ExportArgs),
}

/// What the binary does with a command's outcome: an error is printed to stderr with one
/// `error: ` before it, an interruption as what it is (see [`run::Interrupted`]); returns the
/// exit status (0, 1, or 130 for an interruption, as shells expect of a command stopped by
/// SIGINT).
pub fn exit_status(outcome: Result<()>) -> i32 {
    match outcome {
        Ok(()) => 0,
        // The reader of stdout went away (`| head`): nothing more is wanted of the command.
        Err(e) if closed_pipe(&e) => 0,
        Err(e) => {
            // An interruption asked for is not an error: say where the run stopped and how to
            // resume it.
            if let Some(stop) = e.downcast_ref::<run::Interrupted>() {
                eprintln!("{stop}");
                return 130;
            }
            eprintln!("{}", error_line(&e));
            1
        }
    }
}

/// Whether `e` is a write to a pipe whose reader has closed it.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An error as the binary prints it: `error: ` and the message with its causes.
pub fn error_line(e: &anyhow::Error) -> String {
    format!("error: {e:#}")
}

/// Make writing past the process's file-size limit (`ulimit -f`) an error of the write, which
/// the run reports naming its file, rather than SIGXFSZ, which kills the process without a
/// word.
#[cfg(unix)]
#[allow(unsafe_code)]
fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler, so no code runs
    // in signal context; it only changes how the kernel treats SIGXFSZ for this process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(not(unix))]
fn ignore_file_size_signal() {}

/// Parse `args` (program name first) and run the command.
pub fn main_with_args<I, T>(args: I) -> Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    ignore_file_size_signal();
    let cli = Cli::try_parse_from(args).map_err(|e| {
        // --help and --version are not failures.
        if !e.use_stderr() {
            let _ = e.print();
            std::process::exit(0);
        }
        // clap's message begins with its own `error: `; the binary adds the one prefix.
        let text = e.to_string();
        let text = text.strip_prefix("error: ").unwrap_or(&text);
        anyhow::anyhow!("{}", text.trim_end())
    })?;
    match cli.command {
        Command::Run {
            scene,
            backend,
            out,
            steps,
            quiet,
            resume,
            allow_unstable,
            memory_limit,
            set,
            adapter,
        } => run::run(&run::RunArgs {
            scene,
            backend,
            out,
            steps,
            quiet,
            resume,
            allow_unstable,
            memory_limit,
            sets: set,
            adapter,
            interrupt: Some(ctrl_c_flag()),
        })
        .map(|_| ()),
        Command::Check {
            scene,
            memory_limit,
            allow_unstable,
            set,
        } => check(&scene, memory_limit, allow_unstable, &set),
        Command::Info => info(),
        Command::Shader { scene } => shader(&scene),
        Command::Bench(args) => bench::bench(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Post(args) => {
            out!("wrote {}", post::post(&args)?.display());
            Ok(())
        }
        Command::Plot(args) => {
            for f in plot::plot(&args)? {
                out!("wrote {}", f.display());
            }
            Ok(())
        }
        Command::Export(args) => {
            for f in export::export(&args)? {
                out!("wrote {}", f.display());
            }
            Ok(())
        }
    }
}

/// The flag Ctrl-C sets: the handler is installed once per process, and every run started
/// from the command line shares the flag. A second Ctrl-C while the first is being honoured
/// exits at once.
fn ctrl_c_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let installed = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: finishing the current step, then writing a checkpoint");
        });
        if let Err(e) = installed {
            eprintln!("warning: Ctrl-C will stop the run without a checkpoint: {e}");
        }
        flag
    })
    .clone()
}

fn check(
    path: &Path,
    memory_limit: Option<u64>,
    allow_unstable: bool,
    sets: &[grains_scene::overrides::Override],
) -> Result<()> {
    let report = check_report_with(path, memory_limit, allow_unstable, sets)?;
    out!("{}", report.text.trim_end());
    match report.refusal {
        Some(e) => Err(e),
        None => {
            out!("ok");
            Ok(())
        }
    }
}

/// What `grains check` prints, and what `grains run` would refuse.
#[derive(Debug)]
pub struct CheckReport {
    /// The summary: counts, times, estimates, overlaps, chains, warnings (each said once).
    pub text: String,
    /// Why `grains run` would refuse the scene (memory, initial overlaps, disk), if it would.
    pub refusal: Option<anyhow::Error>,
}

/// Validate a scene as `grains check` does. A scene that does not parse, or whose particles
/// would not fit in memory, is an error before anything is generated; one that parses gets
/// its full report, with what a run would refuse in `refusal`.
pub fn check_report(path: &Path, memory_limit: Option<u64>) -> Result<CheckReport> {
    check_report_allowing(path, memory_limit, false)
}

/// As [`check_report`], with `grains check --allow-unstable`: a dt or impact `grains run
/// --allow-unstable` would run is a warning of the report, not its refusal.
pub fn check_report_allowing(
    path: &Path,
    memory_limit: Option<u64>,
    allow_unstable: bool,
) -> Result<CheckReport> {
    check_report_with(path, memory_limit, allow_unstable, &[])
}

/// As [`check_report_allowing`], with the scene's overrides `sets` (`--set PATH=VALUE`).
pub fn check_report_with(
    path: &Path,
    memory_limit: Option<u64>,
    allow_unstable: bool,
    sets: &[grains_scene::overrides::Override],
) -> Result<CheckReport> {
    use std::fmt::Write as _;
    let budget = preflight::memory_budget(memory_limit);
    let scene = grains_scene::load_scene_with(path, budget.as_ref(), sets)?;
    let mut text = scene.summary_with(&preflight::memory_lines(&scene));
    text.push('\n');
    let opts = preflight::output_options(&scene, &scene.output.dir);
    let volume = preflight::output_estimate(
        &scene,
        &opts,
        0,
        CpuMemoryModel::dense_pack(&scene.world).total(),
    );
    let free = preflight::free_space(&scene.output.dir)
        .map(|f| format!(", {} free there", grains_scene::bytes(f)))
        .unwrap_or_default();
    let _ = writeln!(
        text,
        "output size ~{} in {} frames to {}{free}",
        grains_scene::bytes(volume.bytes),
        volume.frames,
        scene.output.dir.display()
    );
    let _ = writeln!(text, "{}", preflight::timestep_line(&scene));
    let _ = writeln!(text, "{}", preflight::overlap_line(&scene.overlaps));
    for (id, chain) in scene.world.table.chains.iter().enumerate() {
        let binding = grains_shaders::ChainBinding::of(&scene.world.table, id);
        let src = grains_shaders::compose_chain(chain, id as u32, &binding)?;
        grains_shaders::validate(&src, &chain.name())?;
        let _ = writeln!(
            text,
            "chain {:<44} composed and validated (naga)",
            chain.name()
        );
    }
    if let Some(w) = scene
        .timestep
        .warning(scene.world.dt)
        .filter(|_| allow_unstable)
    {
        let _ = writeln!(text, "warning: {w} (allowed: --allow-unstable)");
    }
    // What `grains run` would refuse, refused here too, by the same checks.
    let refusal = preflight::check_memory(
        &scene,
        CpuMemoryModel::dense_pack(&scene.world).total(),
        "CPU",
        budget.as_ref(),
    )
    .and_then(|()| preflight::check_overlaps(&scene).map(|_| ()))
    .and_then(|()| match allow_unstable {
        true => Ok(()),
        false => preflight::check_stability(&scene),
    })
    .and_then(|()| preflight::check_disk(&scene, &scene.output.dir, &volume))
    .err();
    Ok(CheckReport { text, refusal })
}

/// What the backend line adds where arrays are larger than a storage binding of `binding`
/// bytes: each such array with the most windows a kernel binds it in
/// (`GpuBackend::split_arrays`); empty otherwise.
pub(crate) fn split_note(split: &[(String, String, u32)], binding: u64) -> String {
    let mut most: std::collections::BTreeMap<&str, u32> = Default::default();
    for (_, array, parts) in split {
        let m = most.entry(array.as_str()).or_default();
        *m = (*m).max(*parts);
    }
    if most.is_empty() {
        return String::new();
    }
    let mut arrays: Vec<(&str, u32)> = most.into_iter().collect();
    arrays.sort_by_key(|(a, p)| (std::cmp::Reverse(*p), *a));
    let list: Vec<String> = arrays.iter().map(|(a, p)| format!("{a} in {p}")).collect();
    let size = if binding.is_multiple_of(1 << 20) {
        format!("{} MiB", binding >> 20)
    } else {
        format!("{binding} B")
    };
    format!(
        "; arrays past its {size} storage binding, bound as windows: {}",
        list.join(", ")
    )
}

/// What the backend line adds where arrays are held in storage textures (a kernel could not
/// bind their windows, `GpuBackend::texture_arrays`): each with its textures; empty otherwise.
pub(crate) fn texture_note(textures: &[(String, usize)]) -> String {
    if textures.is_empty() {
        return String::new();
    }
    let mut arrays: Vec<&(String, usize)> = textures.iter().collect();
    arrays.sort_by_key(|(a, t)| (std::cmp::Reverse(*t), a.as_str()));
    let list: Vec<String> = arrays.iter().map(|(a, t)| format!("{a} in {t}")).collect();
    format!(
        "; arrays past what a kernel's storage buffers reach, held in storage textures: {}",
        list.join(", ")
    )
}

fn info() -> Result<()> {
    let adapters = grains_gpu::list_adapters();
    if adapters.is_empty() {
        // The context's error says what Vulkan is missing, where that can be seen.
        let why = match grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
            Err(e) => e.to_string(),
            Ok(_) => "no GPU adapter found".into(),
        };
        out!("{why}; `--backend auto` uses the CPU backend");
    }
    for (i, a) in adapters.iter().enumerate() {
        out!(
            "adapter {i}: {} ({}, {}; driver {})",
            a.name,
            a.backend,
            a.device_type,
            a.driver
        );
    }
    if let Ok(ctx) = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
        let limits = ctx.limits();
        let binding = limits.max_storage_buffer_binding_size;
        let per_kernel = limits.max_storage_buffers_per_shader_stage as u64;
        // What bounds a run's size on this adapter: an array past a binding is bound as
        // windows of its buffers, each window one storage buffer of the kernels that bind it,
        // so a kernel reaches at most its storage buffers times a binding (a dense pack's
        // contact chains bind about 440 B a sphere); past that, arrays go into storage
        // textures of up to one buffer's size each; an array spans several buffers.
        let textures = limits.max_storage_textures_per_shader_stage as u64;
        let buffer = limits.max_buffer_size >> 20;
        out!(
            "--backend gpu uses {}: storage bindings up to {} MiB (an array past one is bound as \
             windows), {} storage buffers a kernel (so at most {} MiB a kernel reaches in \
             windows), {} storage textures a kernel besides (where arrays go past that, up to \
             {} MiB each), buffers up to {} MiB (an array spans several)",
            ctx.adapter_name(),
            binding >> 20,
            per_kernel,
            (per_kernel * binding) >> 20,
            textures,
            buffer,
            buffer,
        );
    }
    Ok(())
}

fn shader(path: &Path) -> Result<()> {
    let scene = grains_scene::load_scene(path)?;
    for (id, chain) in scene.world.table.chains.iter().enumerate() {
        let binding = grains_shaders::ChainBinding::of(&scene.world.table, id);
        let src = grains_shaders::compose_chain(chain, id as u32, &binding)?;
        grains_shaders::validate(&src, &chain.name())?;
        out!("// ==== chain {id}: {} ====", chain.name());
        out!("{src}");
    }
    Ok(())
}

/// As [`make_backend_from`] for a scene, refusing first a backend whose estimated memory
/// exceeds `budget`: the CPU backend's estimate against it, and the GPU backend's when its
/// adapter is a CPU device (lavapipe), whose buffers are the machine's memory. A hardware
/// adapter's buffers are checked against its own limits as they are created.
///
/// The scene's particles move into the backend (a large scene is not held twice): afterwards
/// `scene.world` has everything but its particles (their shapes kept, and their materials
/// where there are bonds).
pub fn make_backend_within(
    scene: &mut grains_scene::Scene,
    (choice, adapter): (BackendArg, Option<&grains_gpu::AdapterChoice>),
    state: Option<Resume>,
    budget: Option<&grains_scene::MemoryBudget>,
    (cpu_memory, gpu_memory): (u64, u64),
) -> Result<(Box<dyn Backend>, String)> {
    let cpu_ok = || preflight::check_memory(scene, cpu_memory, "CPU", budget);
    let gpu_ok = || preflight::check_memory(scene, gpu_memory, "GPU", budget);
    let no_hardware = preflight::no_hardware_gpu;
    match choice {
        BackendArg::Cpu => cpu_ok()?,
        BackendArg::Gpu if no_hardware() => gpu_ok()?,
        BackendArg::Gpu => {}
        BackendArg::Auto if no_hardware() => cpu_ok()?,
        BackendArg::Auto => {}
    }
    let particles = std::mem::take(&mut scene.world.particles);
    let mut world = scene.world.clone();
    // The scene keeps what each particle is (4 bytes each): the run's output and lost-particle
    // handling read it.
    scene.world.particles.shape = particles.shape.clone();
    scene.world.particles.shapes = particles.shapes.clone();
    // Bonds are logged when they break: the particles' materials name each bond's chain.
    if !scene.world.fixed_pairs.is_empty() {
        scene.world.particles.material = particles.material.clone();
    }
    world.particles = particles;
    make_backend_on(world, choice, state, adapter)
}

/// What a resumed run starts from.
pub enum Resume {
    /// A whole state in memory.
    State(Box<BackendState>),
    /// A checkpoint whose header is read (and its fingerprint checked): the CPU backend takes
    /// its arrays up as they are read ([`CpuBackend::from_source`]), so that it never holds the
    /// whole state beside its own forms; the GPU backend reads it whole and uploads it.
    File(grains_io::CheckpointArrays),
}

/// Build the backend a run asked for; the message says which one was taken and why.
pub fn make_backend(world: World, choice: BackendArg) -> Result<(Box<dyn Backend>, String)> {
    make_backend_from(world, choice, None)
}

/// As [`make_backend`], resuming from `state` when given. The state is taken, not copied: the
/// CPU backend takes its arrays over (a resumed run does not hold its state twice), the GPU
/// backend uploads them and drops them.
pub fn make_backend_from(
    world: World,
    choice: BackendArg,
    state: Option<Resume>,
) -> Result<(Box<dyn Backend>, String)> {
    make_backend_on(world, choice, state, None)
}

/// As [`make_backend_from`], on the GPU adapter `adapter` names (`--adapter N|NAME`) where the
/// backend is a GPU's; `None`: the best adapter there is.
pub fn make_backend_on(
    world: World,
    choice: BackendArg,
    state: Option<Resume>,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<(Box<dyn Backend>, String)> {
    let cpu = |world: World, state: Option<Resume>| -> Result<Box<dyn Backend>> {
        Ok(match state {
            Some(Resume::State(s)) => Box::new(CpuBackend::from_state(world, *s)?),
            Some(Resume::File(mut ck)) => {
                let header = std::mem::take(&mut ck.header);
                let b = CpuBackend::from_source(world, header, &mut ck)?;
                ck.finish()?;
                Box::new(b)
            }
            None => Box::new(CpuBackend::new(world)?),
        })
    };
    let gpu = |world: World,
               ctx: &grains_gpu::GpuContext,
               state: Option<Resume>|
     -> Result<(Box<dyn Backend>, String)> {
        let b = match state {
            Some(Resume::State(s)) => grains_gpu::GpuBackend::from_state(world, ctx, &s)?,
            Some(Resume::File(ck)) => {
                grains_gpu::GpuBackend::from_state(world, ctx, &ck.read_state()?)?
            }
            None => grains_gpu::GpuBackend::new(world, ctx)?,
        };
        let binding = ctx.limits().max_storage_buffer_binding_size;
        let windows = split_note(&b.split_arrays(), binding) + &texture_note(&b.texture_arrays());
        Ok((Box::new(b), windows))
    };
    match (choice, adapter) {
        (BackendArg::Cpu, _) => Ok((cpu(world, state)?, "backend: cpu (asked for)".into())),
        (BackendArg::Gpu | BackendArg::Auto, Some(a)) => {
            let ctx = grains_gpu::GpuContext::chosen(a)?;
            let name = ctx.adapter_name();
            let (b, windows) = gpu(world, &ctx, state)?;
            Ok((
                b,
                format!("backend: gpu on {name} (--adapter {a}){windows}"),
            ))
        }
        (BackendArg::Gpu, None) => {
            let ctx = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any)
                .context("--backend gpu needs a GPU adapter")?;
            let name = ctx.adapter_name();
            let (b, windows) = gpu(world, &ctx, state)?;
            Ok((b, format!("backend: gpu on {name} (asked for){windows}")))
        }
        (BackendArg::Auto, None) => {
            match grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::HardwareOnly) {
                Ok(ctx) => {
                    let name = ctx.adapter_name();
                    let (b, windows) = gpu(world, &ctx, state)?;
                    Ok((b, format!("backend: gpu on {name} (auto){windows}")))
                }
                Err(e) => {
                    // A CPU Vulkan device (lavapipe) is slower than the CPU backend: auto skips
                    // it, and says how to use it anyway.
                    let why = match grains_gpu::list_adapters().first() {
                        Some(a) => format!(
                            "no hardware GPU; the CPU adapter \"{}\" runs only with --backend gpu",
                            a.name
                        ),
                        None => e.to_string(),
                    };
                    Ok((cpu(world, state)?, format!("backend: cpu (auto: {why})")))
                }
            }
        }
    }
}
