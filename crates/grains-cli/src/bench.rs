//! `grains bench`: throughput of the backends on the peer kit's settle or gas scene, in
//! particle-steps per second, measured side by side in one run. The CPU backend is the
//! baseline of the ratio.

use crate::BackendArg;
use anyhow::Result;
use clap::Args;
use grains_core::{Backend as _, World};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Arguments of `grains bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// The scene: `settle` (the peer kit's settle: 40 x 40 lattice columns under gravity in a
    /// walled box, height to match each size), `gas` (its granular gas: a periodic cube of
    /// side round(cbrt(size)) lattice cells, 0.1 m/s in random directions, no gravity) or
    /// `tissue` (an overdamped tissue of compressed cells relaxing in a box, in 2-D and in 3-D,
    /// beside the settle of the same size, the baseline of its ratios).
    #[arg(long, default_value = "settle")]
    pub scene: String,
    /// Particle counts of the scene, each run on every backend. Without it: 20000, 100000 and
    /// 1000000 on every backend, and 10000000 on the CPU backend alone ([`DEFAULT_SIZES`]).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Option<Vec<u64>>,
    /// Steps timed per run (after 20 warm-up steps).
    #[arg(long, default_value_t = 200)]
    pub steps: u64,
    /// Backends to time: cpu, gpu, gpu-windows (with `--binding-limit`) and gpu-textures (the
    /// GPU backend with every array that no kernel updates atomically held in storage
    /// textures, as past what a kernel's storage buffers reach).
    #[arg(long, value_delimiter = ',', default_values_t = vec!["cpu".to_string(), "gpu".to_string()])]
    pub backends: Vec<String>,
    /// The peer benchmark kit (shared/peers): where LIGGGHTS is installed, it runs the same
    /// settle scene for the same steps on this machine (1 and 2 MPI ranks) and its throughput,
    /// kinetic energy and contacts per particle are printed beside grains', with the ratio.
    #[arg(long)]
    pub peers: Option<PathBuf>,
    /// After timing, profile the GPU step at each size: time per pass (device timestamps where
    /// the adapter has them), dispatches per step, bytes read and written per particle-step
    /// counted from the buffers each pass binds, and the bandwidth bound that traffic sets on
    /// a 3 TB/s device.
    #[arg(long)]
    pub profile: bool,
    /// Time every row this many times, the rows taking turns (grains' backends, then the
    /// peers, then again), so that a slow spell of a shared machine falls on all of them; each
    /// row prints its median run, with every run's throughput on the line below it, and the
    /// ratios are of medians.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Bytes a storage binding holds for the `gpu-windows` row (in `--backends`): the GPU
    /// backend with every array larger than that bound as windows of its buffer, as on an
    /// adapter whose binding limit a large run exceeds; beside the `gpu` row, the windows'
    /// cost measured in the same run.
    #[arg(long)]
    pub binding_limit: Option<u64>,
    /// The GPU adapter of the GPU rows: its number in `grains info`'s list, or a part of its
    /// name (default: the best there is).
    #[arg(long, value_name = "N|NAME")]
    pub adapter: Option<grains_gpu::AdapterChoice>,
}

/// The default table: `(particles, CPU backend only)`. Ten million spheres take about 5 GiB
/// and a minute on the CPU backend, and far longer on a GPU adapter that is itself the CPU.
pub const DEFAULT_SIZES: [(u64, bool); 4] = [
    (20_000, false),
    (100_000, false),
    (1_000_000, false),
    (10_000_000, true),
];

/// Memory bandwidth of the device the profile's bound is quoted for (bytes/s): an H100-class
/// GPU's HBM3.
pub const PROFILE_BANDWIDTH: f64 = 3.0e12;

/// The GPU context of a bench: the adapter `--adapter` names, or the best there is.
fn gpu_context(adapter: Option<&grains_gpu::AdapterChoice>) -> Result<grains_gpu::GpuContext> {
    Ok(match adapter {
        Some(a) => grains_gpu::GpuContext::chosen(a)?,
        None => grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any)?,
    })
}

/// Profile `steps` steps of the GPU step on `world` (after 20 warm-up steps).
pub fn profile_gpu(
    world: World,
    steps: u64,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<(String, grains_gpu::StepProfile)> {
    let ctx = gpu_context(adapter)?;
    let mut g = grains_gpu::GpuBackend::new(world, &ctx)?;
    grains_core::Backend::try_run(&mut g, 20)?;
    let p = g.profile(steps)?;
    Ok((ctx.adapter_name(), p))
}

/// Print a step profile as a table.
pub fn print_profile(adapter: &str, p: &grains_gpu::StepProfile) -> anyhow::Result<()> {
    let n = p.particles as f64;
    let total: f64 = p.passes.iter().map(|x| x.seconds).sum();
    out!(
        "\nGPU step profile: {} particles, {} steps ({} rebuilds) on {adapter}; times from {}",
        p.particles,
        p.steps,
        p.rebuilds,
        if p.timestamps {
            "device timestamps"
        } else {
            "host timings of lone submissions (no timestamp queries on this adapter)"
        }
    );
    out!(
        "  {:<44} {:>10} {:>12} {:>7} {:>12} {:>12}",
        "pass",
        "disp/step",
        "us/step",
        "share",
        "read B/ps",
        "written B/ps"
    );
    for x in &p.passes {
        out!(
            "  {:<44} {:>10.3} {:>12.1} {:>6.1}% {:>12.1} {:>12.1}",
            x.label,
            x.dispatches,
            x.seconds * 1e6,
            100.0 * x.seconds / total.max(1e-30),
            x.read / n,
            x.written / n
        );
    }
    let read: f64 = p.passes.iter().map(|x| x.read).sum::<f64>() / n;
    let written: f64 = p.passes.iter().map(|x| x.written).sum::<f64>() / n;
    let dispatches: f64 = p.passes.iter().map(|x| x.dispatches).sum();
    out!(
        "  {:<44} {:>10.3} {:>12.1} {:>6.1}% {:>12.1} {:>12.1}",
        "total",
        dispatches,
        total * 1e6,
        100.0,
        read,
        written
    );
    out!(
        "  measured: {:.3e} particle-steps/s; bandwidth bound at {:.0} TB/s: {:.3e} particle-steps/s ({:.0} B per particle-step)",
        n / total.max(1e-30),
        PROFILE_BANDWIDTH / 1e12,
        p.bandwidth_bound(PROFILE_BANDWIDTH),
        p.bytes_per_particle_step()
    );
    Ok(())
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
    /// Translational kinetic energy at the end (J).
    pub kinetic: f64,
    /// Particle-particle contacts per particle at the end.
    pub contacts_per_particle: f64,
    /// Bytes of the backend's state per particle at the end: its device buffers (GPU) or the
    /// arrays it holds, scratch included (CPU, [`grains_core::Backend::host_bytes`]); `None`
    /// for a peer code.
    pub bytes_per_particle: Option<f64>,
    /// Conjugate-gradient iterations per step of an implicit scene's timed steps.
    pub solve_iterations_per_step: Option<f64>,
}

/// What both peer scenes share: the glass of the kit, its contact law as LIGGGHTS runs it
/// (Hertz; LIGGGHTS' viscous damping for e = 0.5, `form = "tsuji"`; a Mindlin tangential spring
/// with mu = 0.5 in LIGGGHTS' form, `form = "liggghts"`, damped while sticking) and no output.
const KIT_MATERIAL_AND_LAW: &str = r#"
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5, form = "tsuji" }
tangential = { law = "cundall_strack", friction = 0.5, stiffness = "mindlin", form = "liggghts", restitution = 0.5 }

[output]
energy = false
formats = []
"#;

/// The settle scene of the peer benchmark (shared/peers/README.md): spheres of d = 2 mm on a
/// simple cubic lattice of spacing 2.2 mm jittered by 0.08 mm with the kit's seed (the same
/// positions as its data files), 40 x 40 columns, in a walled box; the kit's law
/// ([`KIT_MATERIAL_AND_LAW`]); dt = 1e-5 s; skin 1 mm. `n` is rounded up to whole layers of
/// 1600.
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

[[particles]]
material = "glass"
radius = 0.001
lattice = {{ spacing = {s}, count = [40, 40, {layers}], jitter = 0.036363636, seed = 1 }}

[[wall]]
box = {{ min = [0.0, 0.0, 0.0], max = [{lx}, {lx}, {lz}] }}
material = "glass"
{KIT_MATERIAL_AND_LAW}"#
    )
}

/// Build the settle world of about `n` spheres.
pub fn settle_world(n: u64) -> Result<World> {
    bench_world("settle", n)
}

/// Lattice cells per side of the gas scene of about `n` spheres.
pub fn gas_side(n: u64) -> u64 {
    ((n as f64).cbrt().round() as u64).max(3)
}

/// The gas scene of the peer benchmark (shared/peers/README.md, scene B): `side`^3 spheres of
/// d = 2 mm on a simple cubic lattice of spacing 2.4 mm jittered by 0.08 mm with the kit's
/// seed 2, each at 0.1 m/s in the kit's random direction, in a fully periodic cube with no
/// gravity; the settle scene's contact law, time step and skin.
pub fn gas_scene_toml(side: u64) -> String {
    let s = 0.0024;
    let l = side as f64 * s;
    let j = 0.08 / 2.4;
    format!(
        r#"[simulation]
steps = 1
dt = 1e-5
gravity = [0.0, 0.0, 0.0]
skin = 0.001

[domain]
min = [0.0, 0.0, 0.0]
max = [{l}, {l}, {l}]
periodic = [true, true, true]

[[particles]]
material = "glass"
radius = 0.001
lattice = {{ spacing = {s}, count = [{side}, {side}, {side}], jitter = {j}, seed = 2, speed = 0.1 }}
{KIT_MATERIAL_AND_LAW}"#
    )
}

/// The overdamped tissue of about `n` cells (`dims` 2 or 3): cells of 5 um radius on a
/// square (cubic) lattice of spacing 9.8 um, so that each starts pressed on its neighbours by
/// 4% of its diameter, jittered by 1% of the spacing, relaxing in a closed box; Hertz contacts
/// of E = 1 kPa, a constant resistance between touching cells, substrate drag 1e-6 N s/m;
/// dt = 0.01 s, as `scenes/tissue.toml`.
pub fn tissue_scene_toml(n: u64, dims: u32) -> String {
    let side = match dims {
        2 => ((n as f64).sqrt().round() as u64).max(3),
        _ => ((n as f64).cbrt().round() as u64).max(3),
    };
    let s = 9.8e-6;
    let l = side as f64 * s + 4.0e-6;
    let (zn, zmin, zmax, planar) = match dims {
        2 => (1, -2.0e-5, 2.0e-5, "dimensions = 2"),
        _ => (side, 0.0, l, ""),
    };
    let walls = if dims == 2 {
        "[[wall]]\nmaterial = \"glass\"\nplane = { point = [0.0, 0.0, 0.0], normal = [0.0, 1.0, 0.0] }\n\n\
         [[wall]]\nmaterial = \"glass\"\nplane = { point = [0.0, 0.0, 0.0], normal = [1.0, 0.0, 0.0] }\n"
            .to_string()
            + &format!(
                "\n[[wall]]\nmaterial = \"glass\"\nplane = {{ point = [{l}, {l}, 0.0], normal = [0.0, -1.0, 0.0] }}\n\n\
                 [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [{l}, {l}, 0.0], normal = [-1.0, 0.0, 0.0] }}\n"
            )
    } else {
        format!("[[wall]]\nmaterial = \"glass\"\nbox = {{ min = [0.0, 0.0, 0.0], max = [{l}, {l}, {l}] }}\n")
    };
    format!(
        r#"[simulation]
steps = 1
dt = 0.01
dynamics = "overdamped"
max_initial_overlap = 0.1

[domain]
min = [0.0, 0.0, {zmin}]
max = [{l}, {l}, {zmax}]
{planar}

[[material]]
name = "cell"
density = 1000.0
young = 1.0e3
poisson = 0.45
substrate_friction = 1.0e-6
substrate_rotational_friction = 2.5e-17

[[material]]
name = "glass"
density = 2500.0
young = 1.0e6
poisson = 0.3

[[particles]]
material = "cell"
radius = 5.0e-6
lattice = {{ origin = [6.9e-6, 6.9e-6, {z0}], spacing = {s}, count = [{side}, {side}, {zn}], jitter = 0.01, seed = 13 }}

{walls}
[[interaction]]
between = ["cell", "cell"]
normal = {{ law = "hertz" }}
resistance = {{ law = "constant_resistance", normal = 1.0e-6, tangential = 5.0e-7 }}

[[interaction]]
between = ["cell", "glass"]
normal = {{ law = "hertz" }}

[output]
energy = false
formats = []
"#,
        z0 = if dims == 2 { 0.0 } else { 6.9e-6 },
    )
}

/// The worlds a bench of `scene` times at about `n` particles, each with the label its rows
/// carry: `tissue` is the overdamped tissue in 2-D and in 3-D beside the inertial settle, the
/// baseline of its ratios; any other scene is itself.
pub fn bench_worlds(scene: &str, n: u64) -> Vec<(&'static str, Result<World>)> {
    match scene {
        "tissue" => vec![
            ("tissue 2-D", bench_world("tissue_2d", n)),
            ("tissue 3-D", bench_world("tissue_3d", n)),
            ("settle", bench_world("settle", n)),
        ],
        _ => vec![("", bench_world(scene, n))],
    }
}

/// The bench's world of `scene` at about `n` spheres, refused (a `SceneError`) where its
/// particles cannot fit in the available memory.
pub fn bench_world(scene: &str, n: u64) -> Result<World> {
    let text = match scene {
        "settle" => settle_scene_toml(n),
        "gas" => gas_scene_toml(gas_side(n)),
        "tissue_2d" => tissue_scene_toml(n, 2),
        "tissue_3d" => tissue_scene_toml(n, 3),
        other => {
            anyhow::bail!("unknown scene `{other}` in --scene: expected settle, gas or tissue")
        }
    };
    let path = format!("<bench {scene}>");
    let budget = crate::preflight::memory_budget(None);
    let parsed = grains_scene::parse_scene_within(&text, Path::new(&path), budget.as_ref())?;
    Ok(parsed.world)
}

/// Time `steps` steps of `world` on a backend.
pub fn time_backend(
    world: World,
    backend: BackendArg,
    steps: u64,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<BenchRow> {
    let particles = world.particles.len();
    let (b, _) = crate::make_backend_on(world, backend, None, adapter)?;
    let name = b.name();
    time_built(b, name, particles, steps)
}

/// Time `steps` steps of `world` on the GPU backend with storage bindings of `limit` bytes
/// (`GpuOptions::binding_limit`): the arrays past it bound as windows.
pub fn time_gpu_windows(
    world: World,
    limit: u64,
    steps: u64,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<BenchRow> {
    let opts = grains_gpu::GpuOptions {
        binding_limit: limit,
        ..Default::default()
    };
    time_gpu_with(world, opts, &format!("{limit} B windows"), steps, adapter)
}

/// Time `steps` steps of the GPU backend with every array that no kernel updates atomically
/// held in storage textures (`GpuOptions::texture_limit`), as past what a kernel's storage
/// buffers reach.
pub fn time_gpu_textures(
    world: World,
    steps: u64,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<BenchRow> {
    let opts = grains_gpu::GpuOptions {
        texture_limit: 1,
        ..Default::default()
    };
    time_gpu_with(world, opts, "arrays in textures", steps, adapter)
}

fn time_gpu_with(
    world: World,
    opts: grains_gpu::GpuOptions,
    what: &str,
    steps: u64,
    adapter: Option<&grains_gpu::AdapterChoice>,
) -> Result<BenchRow> {
    let particles = world.particles.len();
    let ctx = gpu_context(adapter)?;
    let binding = match opts.binding_limit {
        0 => ctx.limits().max_storage_buffer_binding_size,
        b => b,
    };
    let b = grains_gpu::GpuBackend::with_options(world, &ctx, opts)?;
    eprintln!(
        "{particles}: the GPU backend{}{}",
        crate::split_note(&b.split_arrays(), binding),
        crate::texture_note(&b.texture_arrays())
    );
    let name = format!("{} ({what})", ctx.adapter_name());
    time_built(Box::new(b), name, particles, steps)
}

/// Time `steps` steps of a built backend, after 20 warm-up steps.
fn time_built(
    mut b: Box<dyn grains_core::Backend>,
    name: String,
    particles: usize,
    steps: u64,
) -> Result<BenchRow> {
    b.try_run(20)?;
    let before = b.counters();
    let t0 = Instant::now();
    // `try_run` returns with the work done: the GPU backend reads its control words back after
    // every batch, which waits for the batch. (A snapshot here put the read-back of six
    // particle arrays, 96 B a sphere over the bus, in the timing: an H100's million-sphere row
    // took 620 us a step where its profile's device timestamps gave 424.)
    b.try_run(steps)?;
    let seconds = t0.elapsed().as_secs_f64();
    let after = b.counters();
    let solves = after.solves - before.solves;
    let solve_iterations_per_step = (solves > 0)
        .then(|| (after.solve_iterations - before.solve_iterations) as f64 / solves as f64);
    Ok(BenchRow {
        solve_iterations_per_step,
        particles,
        backend: name,
        steps,
        seconds,
        particle_steps_per_s: particles as f64 * steps as f64 / seconds,
        rebuilds: b.counters().rebuilds,
        kinetic: b.energy().kinetic,
        contacts_per_particle: b.contacts().per_particle(particles),
        bytes_per_particle: Some(
            b.device_bytes()
                .or_else(|| b.host_bytes())
                .unwrap_or_else(|| b.state().array_bytes().iter().map(|a| a.len() as u64).sum())
                as f64
                / particles as f64,
        ),
    })
}

/// LIGGGHTS on the peer kit's `scene` (`settle` of `size` lattice layers, or `gas` of `size`
/// cells per side): its input file, the data file written by the kit's own generator, `steps`
/// steps on `ranks` MPI ranks.
fn liggghts_row(kit: &Path, scene: &str, size: u64, steps: u64, ranks: u32) -> Result<BenchRow> {
    let dir = std::env::temp_dir().join(format!("grains-peers-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let stem = dir.join(format!("{scene}_{size}"));
    let data = stem.with_extension("data");
    let size_flag = if scene == "gas" { "--n" } else { "--nz" };
    if !data.exists() {
        let gen = Command::new("python3")
            .arg(kit.join("gen_scene.py"))
            .args([scene, size_flag, &size.to_string(), "--out"])
            .arg(&stem)
            .output()?;
        anyhow::ensure!(
            gen.status.success(),
            "the kit's gen_scene.py failed: {}",
            String::from_utf8_lossy(&gen.stderr)
        );
    }
    let log = dir.join(format!("log_{scene}_{size}_{ranks}.txt"));
    let out = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "-np",
            &ranks.to_string(),
            "liggghts",
            "-in",
        ])
        .arg(kit.join(format!("liggghts/in.{scene}")))
        .arg("-var")
        .arg("data")
        .arg(&data)
        .args(["-var", "nsteps", &steps.to_string(), "-log"])
        .arg(&log)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "liggghts failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log)?;
    // "Loop time of T on P procs for S steps with N atoms", after the last thermo line.
    let loop_line = text
        .lines()
        .find(|l| l.starts_with("Loop time of"))
        .ok_or_else(|| anyhow::anyhow!("no loop time in {}", log.display()))?;
    let words: Vec<&str> = loop_line.split_whitespace().collect();
    let seconds: f64 = words
        .get(3)
        .and_then(|w| w.parse().ok())
        .unwrap_or(f64::NAN);
    let particles: usize = words
        .iter()
        .position(|w| *w == "with")
        .and_then(|k| words.get(k + 1))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    let thermo: Vec<f64> = text
        .lines()
        .take_while(|l| !l.starts_with("Loop time of"))
        .filter_map(|l| {
            let v: Vec<f64> = l
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            (v.len() == 4).then_some(v)
        })
        .last()
        .unwrap_or_default();
    Ok(BenchRow {
        particles,
        backend: format!(
            "LIGGGHTS ({ranks} rank{})",
            if ranks > 1 { "s" } else { "" }
        ),
        steps,
        seconds,
        particle_steps_per_s: particles as f64 * steps as f64 / seconds,
        rebuilds: text
            .lines()
            .find_map(|l| l.strip_prefix("Neighbor list builds = "))
            .and_then(|w| w.trim().parse().ok())
            .unwrap_or(0),
        kinetic: thermo.get(2).copied().unwrap_or(f64::NAN),
        contacts_per_particle: thermo.get(3).copied().unwrap_or(f64::NAN),
        bytes_per_particle: None,
        solve_iterations_per_step: None,
    })
}

fn print_row(row: &BenchRow, cpu_rate: Option<f64>) -> Result<()> {
    let ratio = cpu_rate
        .map(|c| format!("{:.2}x", row.particle_steps_per_s / c))
        .unwrap_or_else(|| "-".into());
    let bytes = row
        .bytes_per_particle
        .map(|b| format!("{b:.0}"))
        .unwrap_or_else(|| "-".into());
    out!(
        "{:>9}  {:<36} {:>6} {:>9.2} {:>16.3e} {:>9} {:>11.4e} {:>9.3} {:>8} {:>10}",
        row.particles,
        row.backend,
        row.steps,
        row.seconds,
        row.particle_steps_per_s,
        row.rebuilds,
        row.kinetic,
        row.contacts_per_particle,
        ratio,
        bytes
    );
    Ok(())
}

/// Runs of one row in order of throughput, slowest first.
fn sort_runs(runs: &mut [BenchRow]) {
    runs.sort_by(|a, b| a.particle_steps_per_s.total_cmp(&b.particle_steps_per_s));
}

/// The median of runs sorted by [`sort_runs`] (the slower of the middle two of an even
/// count): the run a row of a repeated bench prints.
fn median(runs: &[BenchRow]) -> Option<BenchRow> {
    runs.get(runs.len().saturating_sub(1) / 2).cloned()
}

/// Run the benchmark and print its table.
pub fn bench(args: &BenchArgs) -> Result<()> {
    let adapter = args.adapter.as_ref();
    out!(
        "{:>9}  {:<36} {:>6} {:>9} {:>16} {:>9} {:>11} {:>9} {:>8} {:>10}",
        "particles",
        "backend",
        "steps",
        "seconds",
        "particle-steps/s",
        "rebuilds",
        "KE end (J)",
        "contacts",
        "vs cpu",
        "B/particle"
    );
    let sizes: Vec<(u64, bool)> = match &args.sizes {
        Some(v) => v.iter().map(|&n| (n, false)).collect(),
        None => DEFAULT_SIZES.to_vec(),
    };
    for (n, cpu_only) in sizes {
        // Each row's runs, in the table's order; a row that cannot run is skipped, named.
        // Each run's throughput goes to stderr as it ends, as progress; the rows (medians of
        // repeated runs) print at the end of the size, so that every row has its ratio to the
        // CPU backend's, whichever order --backends names them in.
        let mut rows: SizeRows = Vec::new();
        for rep in 0..args.repeat {
            let mut at = 0;
            let mut put = |rows: &mut Vec<_>, name: &str, r: Result<BenchRow>| {
                if rows.len() == at {
                    rows.push(Ok(Vec::new()));
                }
                if let Ok(runs) = &mut rows[at] {
                    match r {
                        Ok(row) => {
                            eprintln!(
                                "{n}: {} run {} of {}: {:.3e} particle-steps/s",
                                row.backend,
                                rep + 1,
                                args.repeat,
                                row.particle_steps_per_s
                            );
                            runs.push(row);
                        }
                        Err(e) => {
                            eprintln!("{n}: {name} skipped");
                            rows[at] = Err((name.to_string(), format!("{e:#}")));
                        }
                    }
                }
                at += 1;
            };
            for name in &args.backends {
                let which = match name.as_str() {
                    "cpu" => BackendArg::Cpu,
                    "gpu" | "gpu-windows" | "gpu-textures" => BackendArg::Gpu,
                    other => anyhow::bail!(
                        "unknown backend `{other}` in --backends: expected cpu, gpu, \
                         gpu-windows or gpu-textures"
                    ),
                };
                let windows = match (name.as_str(), args.binding_limit) {
                    ("gpu-windows", Some(limit)) => Some(limit),
                    ("gpu-windows", None) => anyhow::bail!(
                        "--backends gpu-windows needs --binding-limit BYTES (the storage \
                         binding its arrays are split at)"
                    ),
                    _ => None,
                };
                if cpu_only && which != BackendArg::Cpu {
                    continue;
                }
                for (label, world) in bench_worlds(&args.scene, n) {
                    // A size the scene parser refuses (its particles cannot fit in the
                    // available memory) is a row saying so, not a machine driven into swap.
                    let row = match world {
                        Ok(w) => match windows {
                            Some(limit) => time_gpu_windows(w, limit, args.steps, adapter),
                            None if name == "gpu-textures" => {
                                time_gpu_textures(w, args.steps, adapter)
                            }
                            None => time_backend(w, which, args.steps, adapter),
                        },
                        Err(e) if e.downcast_ref::<grains_scene::SceneError>().is_some() => Err(e),
                        Err(e) => return Err(e),
                    };
                    let labelled = |b: &str| match label {
                        "" => b.to_string(),
                        l => format!("{b} · {l}"),
                    };
                    let row = row.map(|mut r| {
                        r.backend = labelled(&r.backend);
                        r
                    });
                    put(&mut rows, &labelled(name), row);
                }
            }
            // The peers hold about 1.4 GB per million spheres: not at the CPU-only size.
            if let Some(kit) = args.peers.as_ref().filter(|_| !cpu_only) {
                for ranks in [1, 2] {
                    // grains times `steps` after 20 warm-up steps; the peer runs them all.
                    let size = if args.scene == "gas" {
                        gas_side(n)
                    } else {
                        n.div_ceil(1600).max(1)
                    };
                    let row = liggghts_row(kit, &args.scene, size, args.steps + 20, ranks);
                    put(&mut rows, "LIGGGHTS", row);
                }
            }
        }
        print_size(n, args, &mut rows)?;
        if args.profile && !cpu_only && args.backends.iter().any(|b| b == "gpu") {
            for (label, world) in bench_worlds(&args.scene, n) {
                match world.and_then(|w| profile_gpu(w, args.steps, adapter)) {
                    Ok((adapter, p)) => {
                        if !label.is_empty() {
                            out!("\n{label}:");
                        }
                        print_profile(&adapter, &p)?
                    }
                    Err(e) => out!("{n:>9}  profile skipped: {e:#}"),
                }
            }
        }
    }
    Ok(())
}

/// One size's rows, in the table's order: each row's runs, or its name and why it was skipped.
type SizeRows = Vec<Result<Vec<BenchRow>, (String, String)>>;

/// Print one size's rows: each row's median with its ratio to the CPU baseline of the same run
/// (the `cpu` row, or `cpu · settle` beside the tissue), every run below it when repeated,
/// then the size's notes (conjugate-gradient iterations of implicit rows among them).
fn print_size(n: u64, args: &BenchArgs, rows: &mut SizeRows) -> Result<()> {
    for runs in rows.iter_mut().flatten() {
        sort_runs(runs);
    }
    let cpu_rate = rows
        .iter()
        .flatten()
        .filter_map(|runs| median(runs))
        .find(|r| r.backend == "cpu" || r.backend == "cpu · settle")
        .map(|r| r.particle_steps_per_s);
    for row in rows.iter() {
        match row {
            Ok(runs) => {
                let Some(mid) = median(runs) else { continue };
                print_row(&mid, cpu_rate)?;
                if args.repeat == 1 {
                    continue;
                }
                let each: Vec<String> = runs
                    .iter()
                    .map(|r| format!("{:.3e}", r.particle_steps_per_s))
                    .collect();
                out!("{:>9}  {:<36} runs: {}", "", "", each.join(", "));
            }
            Err((name, why)) => out!("{n:>9}  {name:<36} skipped: {why}"),
        }
    }
    let medians: Vec<BenchRow> = rows.iter().flatten().filter_map(|r| median(r)).collect();
    for r in medians
        .iter()
        .filter(|r| r.solve_iterations_per_step.is_some())
    {
        out!(
            "{n:>9}  note: {}: {:.1} conjugate-gradient iterations per step",
            r.backend,
            r.solve_iterations_per_step.unwrap_or(0.0)
        );
    }
    for note in size_notes(n, args.steps, &medians) {
        out!("{n:>9}  note: {note}");
    }
    Ok(())
}

/// Below this many particle contacts per particle at the end of a timed run, its steps timed
/// particles before most touch (the settle's lattice falls for its first few hundred steps).
const FREE_FALL_CONTACTS: f64 = 0.5;

/// What a size's rows need said: the particle count the scene ran where it is not the size
/// asked (the settle is whole lattice columns), and, where a row ended with its particles
/// barely touching, that its steps timed free fall rather than contacts.
fn size_notes(asked: u64, steps: u64, rows: &[BenchRow]) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(ran) = rows
        .first()
        .map(|r| r.particles as u64)
        .filter(|&p| p != asked)
    {
        notes.push(format!(
            "{asked} particles asked, {ran} run: the scene is built of whole lattice columns"
        ));
    }
    let touching = rows
        .iter()
        .filter(|r| r.bytes_per_particle.is_some())
        .map(|r| r.contacts_per_particle)
        .fold(f64::INFINITY, f64::min);
    if touching < FREE_FALL_CONTACTS {
        notes.push(format!(
            "{touching:.3} contacts per particle at the end: these {steps} steps timed \
             particles falling before they touch, not contacts; more --steps (the peer kit's \
             settle runs 4980) time the settling bed"
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::{median, size_notes, sort_runs, BenchRow};

    /// The notes of a size: the count run where it is not the one asked, and free fall.
    #[test]
    fn a_size_says_what_it_ran_and_whether_it_timed_free_fall() {
        let row = |particles: usize, contacts: f64| BenchRow {
            particles,
            contacts_per_particle: contacts,
            bytes_per_particle: Some(100.0),
            ..run(1.0)
        };
        let notes = size_notes(20_000, 200, &[row(20_800, 0.0)]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("20000 particles asked, 20800 run"));
        assert!(notes[1].contains("200 steps timed particles falling"));
        assert!(size_notes(20_800, 5000, &[row(20_800, 2.9)]).is_empty());
    }

    fn run(rate: f64) -> BenchRow {
        BenchRow {
            particles: 1,
            backend: "cpu".into(),
            steps: 1,
            seconds: 1.0 / rate,
            particle_steps_per_s: rate,
            rebuilds: 0,
            kinetic: 0.0,
            contacts_per_particle: 0.0,
            bytes_per_particle: None,
            solve_iterations_per_step: None,
        }
    }

    /// A repeated row prints its median run: the middle of an odd count, the slower middle
    /// of an even one, whatever order the runs ended in.
    #[test]
    fn a_repeated_row_is_its_median_run() {
        let rate = |rates: &[f64]| {
            let mut runs: Vec<BenchRow> = rates.iter().map(|&r| run(r)).collect();
            sort_runs(&mut runs);
            median(&runs).map(|r| r.particle_steps_per_s)
        };
        assert_eq!(rate(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(rate(&[4.0, 2.0, 8.0, 6.0]), Some(4.0));
        assert_eq!(rate(&[7.0]), Some(7.0));
        assert_eq!(rate(&[]), None);
    }
}
