//! `grains bench`: throughput of the backends on the settle scene, in particle-steps per
//! second, measured side by side in one run. The CPU backend is the baseline of the ratio.

use crate::{make_backend, BackendArg};
use anyhow::Result;
use clap::Args;
use grains_core::World;
use std::path::Path;
use std::time::Instant;

/// Arguments of `grains bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Particle counts of the settle scene (40 x 40 lattice columns, height to match).
    #[arg(long, value_delimiter = ',', default_values_t = vec![20_000u64, 100_000])]
    pub sizes: Vec<u64>,
    /// Steps timed per run (after 20 warm-up steps).
    #[arg(long, default_value_t = 200)]
    pub steps: u64,
    /// Backends to time.
    #[arg(long, value_delimiter = ',', default_values_t = vec!["cpu".to_string(), "gpu".to_string()])]
    pub backends: Vec<String>,
}

/// One timed run.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub particles: usize,
    pub backend: String,
    pub steps: u64,
    pub seconds: f64,
    pub particle_steps_per_s: f64,
    pub rebuilds: u64,
}

/// The settle scene of the peer benchmark (shared/peers/README.md): spheres of d = 2 mm on a
/// simple cubic lattice of spacing 2.2 mm, 40 x 40 columns, in a walled box; Hertz with
/// viscous damping for e = 0.5, Mindlin tangential spring with mu = 0.5; dt = 1e-5 s; skin
/// 1 mm. `n` is rounded up to whole layers of 1600.
pub fn settle_scene_toml(n: u64) -> String {
    let layers = n.div_ceil(1600).max(1);
    let s = 0.0022;
    let (lx, lz) = (40.0 * s, layers as f64 * s);
    format!(
        r#"[simulation]
steps = 1
dt = 1e-5
gravity = [0.0, 0.0, -9.81]
skin = 0.001

[domain]
min = [0.0, 0.0, 0.0]
max = [{lx}, {lx}, {lz}]

[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.001
lattice = {{ spacing = {s}, count = [40, 40, {layers}], jitter = 0.036, seed = 1 }}

[[wall]]
box = {{ min = [0.0, 0.0, 0.0], max = [{lx}, {lx}, {lz}] }}
material = "glass"

[[interaction]]
between = ["glass", "glass"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = 0.5, stiffness = "mindlin" }}

[output]
energy = false
formats = []
"#
    )
}

/// Build the settle world of about `n` spheres.
pub fn settle_world(n: u64) -> Result<World> {
    let text = settle_scene_toml(n);
    let scene = grains_scene::parse_scene(&text, Path::new("<bench settle>"))?;
    Ok(scene.world)
}

/// Time `steps` steps of `world` on a backend.
pub fn time_backend(world: World, backend: BackendArg, steps: u64) -> Result<BenchRow> {
    let particles = world.particles.len();
    let (mut b, _) = make_backend(world, backend)?;
    b.try_run(20)?;
    let _ = b.snapshot();
    let t0 = Instant::now();
    b.try_run(steps)?;
    // A snapshot waits for the device to finish, so the timing covers all the work.
    let _ = b.snapshot();
    let seconds = t0.elapsed().as_secs_f64();
    Ok(BenchRow {
        particles,
        backend: b.name(),
        steps,
        seconds,
        particle_steps_per_s: particles as f64 * steps as f64 / seconds,
        rebuilds: b.counters().rebuilds,
    })
}

/// Run the benchmark and print its table.
pub fn bench(args: &BenchArgs) -> Result<()> {
    println!(
        "{:>9}  {:<40} {:>6} {:>9} {:>16} {:>9} {:>8}",
        "particles", "backend", "steps", "seconds", "particle-steps/s", "rebuilds", "vs cpu"
    );
    for &n in &args.sizes {
        let mut cpu_rate = None;
        for name in &args.backends {
            let which = match name.as_str() {
                "cpu" => BackendArg::Cpu,
                "gpu" => BackendArg::Gpu,
                other => {
                    anyhow::bail!("unknown backend `{other}` in --backends: expected cpu or gpu")
                }
            };
            let world = settle_world(n)?;
            let row = match time_backend(world, which, args.steps) {
                Ok(r) => r,
                Err(e) => {
                    println!("{n:>9}  {name:<40} skipped: {e:#}");
                    continue;
                }
            };
            if which == BackendArg::Cpu {
                cpu_rate = Some(row.particle_steps_per_s);
            }
            let ratio = cpu_rate
                .map(|c| format!("{:.2}x", row.particle_steps_per_s / c))
                .unwrap_or_else(|| "-".into());
            println!(
                "{:>9}  {:<40} {:>6} {:>9.2} {:>16.3e} {:>9} {:>8}",
                row.particles,
                row.backend,
                row.steps,
                row.seconds,
                row.particle_steps_per_s,
                row.rebuilds,
                ratio
            );
        }
    }
    Ok(())
}
