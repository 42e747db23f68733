//! The `grains` command line, as a library so the test suite can drive it in-process.
//!
//! `grains run SCENE`, `grains check SCENE`, `grains info`, `grains shader SCENE`,
//! `grains bench` (DESIGN.md §5).

pub mod bench;
pub mod run;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use grains_core::{Backend, BackendState, CpuBackend, World};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

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
        /// `output.checkpoint_every`), keeping the output written up to it.
        #[arg(long)]
        resume: bool,
    },
    /// Validate a scene and print its derived figures (no GPU needed).
    Check {
        /// Scene file (TOML).
        scene: PathBuf,
    },
    /// List the GPU adapters wgpu can see.
    Info,
    /// Print the composed WGSL of each contact chain of a scene.
    Shader {
        /// Scene file (TOML).
        scene: PathBuf,
    },
    /// Time the CPU and GPU backends on the settle scene (particle-steps per second).
    Bench(bench::BenchArgs),
}

/// Parse `args` (program name first) and run the command.
pub fn main_with_args<I, T>(args: I) -> Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args).map_err(|e| {
        // --help and --version are not failures.
        if !e.use_stderr() {
            let _ = e.print();
            std::process::exit(0);
        }
        anyhow::anyhow!("{e}")
    })?;
    match cli.command {
        Command::Run {
            scene,
            backend,
            out,
            steps,
            quiet,
            resume,
        } => run::run(&run::RunArgs {
            scene,
            backend,
            out,
            steps,
            quiet,
            resume,
        })
        .map(|_| ()),
        Command::Check { scene } => check(&scene),
        Command::Info => info(),
        Command::Shader { scene } => shader(&scene),
        Command::Bench(args) => bench::bench(&args),
    }
}

fn check(path: &Path) -> Result<()> {
    let scene = grains_scene::load_scene(path)?;
    let summary = scene.summary();
    println!("{}", summary.trim_end());
    for (id, chain) in scene.world.table.chains.iter().enumerate() {
        let binding = grains_shaders::ChainBinding::of(&scene.world.table, id);
        let src = grains_shaders::compose_chain(chain, id as u32, &binding)?;
        grains_shaders::validate(&src, &chain.name())?;
        println!("chain {:<44} composed and validated (naga)", chain.name());
    }
    if let Some(w) = scene.timestep.warning(scene.world.dt) {
        println!("warning: {w}");
    }
    println!("ok");
    Ok(())
}

fn info() -> Result<()> {
    let adapters = grains_gpu::list_adapters();
    if adapters.is_empty() {
        println!("no GPU adapter found: `--backend auto` uses the CPU backend");
    }
    for (i, a) in adapters.iter().enumerate() {
        println!(
            "adapter {i}: {} ({}, {}; driver {})",
            a.name, a.backend, a.device_type, a.driver
        );
    }
    if let Ok(ctx) = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
        let binding = ctx.limits().max_storage_buffer_binding_size;
        // The largest per-particle buffer is the pair-slot array: 48 bytes per neighbour-list
        // entry, 24 entries per particle at the start (it grows with the packing's density).
        let per_particle = 24 * std::mem::size_of::<grains_core::gpu_types::PairSlot>() as u64;
        println!(
            "--backend gpu uses {}: storage bindings up to {} MiB, so about {} particles at most",
            ctx.adapter_name(),
            binding >> 20,
            binding / per_particle
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
        println!("// ==== chain {id}: {} ====", chain.name());
        println!("{src}");
    }
    Ok(())
}

/// Build the backend a run asked for; the message says which one was taken and why.
pub fn make_backend(world: World, choice: BackendArg) -> Result<(Box<dyn Backend>, String)> {
    make_backend_from(world, choice, None)
}

/// As [`make_backend`], resuming from `state` when given.
pub fn make_backend_from(
    world: World,
    choice: BackendArg,
    state: Option<&BackendState>,
) -> Result<(Box<dyn Backend>, String)> {
    let cpu = |world: World| -> Result<Box<dyn Backend>> {
        Ok(match state {
            Some(s) => Box::new(CpuBackend::from_state(world, s.clone())?),
            None => Box::new(CpuBackend::new(world)?),
        })
    };
    let gpu = |world: World, ctx: &grains_gpu::GpuContext| -> Result<Box<dyn Backend>> {
        Ok(match state {
            Some(s) => Box::new(grains_gpu::GpuBackend::from_state(world, ctx, s)?),
            None => Box::new(grains_gpu::GpuBackend::new(world, ctx)?),
        })
    };
    match choice {
        BackendArg::Cpu => Ok((cpu(world)?, "backend: cpu (asked for)".into())),
        BackendArg::Gpu => {
            let ctx = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any)
                .context("--backend gpu needs a GPU adapter")?;
            let name = ctx.adapter_name();
            let b = gpu(world, &ctx)?;
            Ok((b, format!("backend: gpu on {name} (asked for)")))
        }
        BackendArg::Auto => {
            match grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::HardwareOnly) {
                Ok(ctx) => {
                    let name = ctx.adapter_name();
                    let b = gpu(world, &ctx)?;
                    Ok((b, format!("backend: gpu on {name} (auto)")))
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
                    Ok((cpu(world)?, format!("backend: cpu (auto: {why})")))
                }
            }
        }
    }
}
