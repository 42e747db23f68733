//! Colony benchmark: a 2-D overdamped colony of `delile` cells whose every cell divides at the
//! same step, on each backend. Prints the colony's cell-steps per second before and after the
//! division (each the median of single timed steps) and the cost of the division step (the
//! colony's host work, `Backend::divide_cells` and the step that follows, which rebuilds the
//! neighbour list) against the median ordinary step after it, measured in the same run.
//!
//! `GRAINS_BENCH_CELLS=1000000` (the colony after the division; half of it before) and
//! `GRAINS_BENCH_ROUNDS=5` (ordinary steps timed on each side) override the defaults;
//! `GRAINS_BENCH_BACKENDS=cpu` runs the CPU backend alone.

use std::time::Instant;

use anyhow::{Context, Result};

/// The colony's scene: `side x side` cells of 5 um radius on a square lattice 10 um apart in the
/// plane, every one dividing at step 10 (cycle 10 ms at dt = 1 ms, no spread), their daughters
/// at step 20.
fn colony_scene(side: u64) -> String {
    let l = side as f64 * 1.0e-5 + 2.0e-5;
    format!(
        r#"[simulation]
steps = 100
dt = 1.0e-3
dynamics = "overdamped"
max_initial_overlap = 0.2

[domain]
min = [-1.0e-5, -1.0e-5, -2.0e-5]
max = [{l}, {l}, 2.0e-5]
dimensions = 2

[[material]]
name = "cell"
density = 1000.0
young = 1.0e3
poisson = 0.45
substrate_friction = 1.0e-6
substrate_rotational_friction = 2.5e-17

[[particles]]
material = "cell"
radius = 5.0e-6
lattice = {{ origin = [5.0e-6, 5.0e-6, 0.0], spacing = 1.0e-5, count = [{side}, {side}, 1], jitter = 0.01, seed = 5 }}

[[interaction]]
between = ["cell", "cell"]
normal = {{ law = "delile", stiffness = 1.16e8, area_factor = 1.0 }}
resistance = {{ law = "constant_resistance", normal = 1.0e-7, tangential = 5.0e-8 }}

[[cells]]
material = "cell"
cycle_time = 1.0e-2
max_cells = {max}
extra = {{ law = "dividing", repulsive_stiffness = 1.0e-3, duration = 2.0e-3 }}
resistance = {{ law = "dividing_resistance", friction = 1.0e-6 }}

[output]
energy = false
formats = []
"#,
        max = 2 * side * side
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of one call of `f`.
fn timed(f: impl FnOnce() -> Result<()>) -> Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

fn bench(backend: &str, side: u64, rounds: usize) -> Result<()> {
    let text = colony_scene(side);
    let scene = grains_scene::parse_scene(&text, std::path::Path::new("<bench colony>"))?;
    let choice = match backend {
        "gpu" => grains_cli::BackendArg::Gpu,
        _ => grains_cli::BackendArg::Cpu,
    };
    let mut r = grains_cli::run::open_runner(scene, choice, None, (None, false))?;
    let name = r.backend.name();
    let particles = r.backend.snapshot().pos.len();
    let step = |r: &mut grains_cli::runner::Runner| -> Result<()> {
        let next = r.backend.counters().steps + 1;
        r.step_to(next).map(|_| ())
    };
    // Warm-up: the first steps compile and size what they need; the division is due at 10.
    r.step_to(8)?;
    // The one ordinary step before the division.
    let b = timed(|| step(&mut r))?;
    // Step 10 ends with every cell divided (host work and uploads), step 11 rebuilds the list
    // with the daughters.
    let division = timed(|| step(&mut r))? + timed(|| step(&mut r))?;
    let cells = r.colony.as_ref().context("a colony")?.count as f64;
    let after: Vec<f64> = (0..rounds)
        .map(|_| timed(|| step(&mut r)))
        .collect::<Result<_>>()?;
    let a = median(after);
    println!(
        "{backend} ({name}): {particles} particles held; {:.0} cells: {:.4e} cell-steps/s before \
         the division ({:.3} s a step), {cells:.0} cells: {:.4e} after ({:.3} s a step, median \
         of {rounds}); the division step and the one after it take {division:.3} s, {:.2} \
         ordinary steps more than one before and one after",
        cells / 2.0,
        cells / 2.0 / b,
        b,
        cells / a,
        a,
        (division - b - a) / a
    );
    Ok(())
}

fn main() -> Result<()> {
    // As in the `grains` binary: keep Mesa's Wayland probe quiet on headless machines (set
    // before any thread exists).
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let cells: u64 = std::env::var("GRAINS_BENCH_CELLS")
        .unwrap_or_else(|_| "1000000".into())
        .parse()?;
    // The daughters divide at step 20: at most 8 steps after the division's.
    let rounds: usize = std::env::var("GRAINS_BENCH_ROUNDS")
        .unwrap_or_else(|_| "5".into())
        .parse::<usize>()?
        .min(8);
    let backends = std::env::var("GRAINS_BENCH_BACKENDS").unwrap_or_else(|_| "cpu,gpu".into());
    let side = ((cells as f64 / 2.0).sqrt().round() as u64).max(2);
    for backend in backends.split(',') {
        bench(backend, side, rounds.max(1))?;
    }
    Ok(())
}
