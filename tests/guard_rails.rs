//! Guard rails: scenes that parse but cannot run are refused before anything is built, runs
//! that go wrong stop at the step they go wrong, and an interrupted run can be resumed.
//! Every refusal is checked with its exact message.

use grains_cli::run::{run, Interrupted, RunArgs};
use grains_cli::{check_report, BackendArg};
use grains_core::backend::REMOVED_RADIUS;
use grains_core::cpu::CpuMemoryModel;
use grains_core::kernels::passes::integrate_first_half::particle_fault;
use grains_core::parity::SplitMix;
use grains_core::units::{qty, sig4};
use grains_core::{Backend, CpuBackend, World};
use grains_gpu::memory::GpuMemoryModel;
use grains_scene::bytes;
use grains_tests::scenes::SceneText;
use grains_tests::{csv_rows, scene_backends};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-guard-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Write `text` as `scene.toml` in a fresh folder; returns the scene's path.
fn scene_file(tag: &str, text: &str) -> PathBuf {
    let path = scratch(tag).join("scene.toml");
    std::fs::write(&path, text).expect("write scene");
    path
}

fn args(scene: &Path, backend: &str, out: &Path) -> RunArgs {
    RunArgs {
        scene: scene.to_path_buf(),
        backend: Some(if backend == "gpu" {
            BackendArg::Gpu
        } else {
            BackendArg::Cpu
        }),
        out: Some(out.to_path_buf()),
        quiet: true,
        ..Default::default()
    }
}

const GLASS: &str = r#"
[[material]]
name = "glass"
density = 2500.0
young = 1.0e7
poisson = 0.3

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
"#;

/// The issue's first finding: 216 million particles. `check` refuses them from the lattice's
/// count alone, before one particle is generated (had it generated them, the 16 GB it would
/// take would abort the test process), naming the estimate, the budget and what would fit.
#[test]
fn a_scene_too_big_for_memory_is_refused_before_it_is_built() {
    let text = SceneText::new()
        .simulation(&["steps = 10"])
        .domain([0.0; 3], [60.0; 3])
        .particles(
            "glass",
            0.04,
            &["lattice = { spacing = 0.1, count = [600, 600, 600] }"],
        )
        .block(GLASS)
        .build();
    let path = scene_file("too-big", &text);
    let e = check_report(&path, Some(1 << 30)).expect_err("refused");
    let per = grains_core::cpu::memory_per_particle_at_least();
    assert_eq!(
        format!("{e:#}"),
        format!(
            "{}:9:36: particles[0].lattice.count: 216000000 particles need at least {} ({} per \
             particle for their state and neighbour list), more than the 1.000 GiB available \
             (--memory-limit); at most {} particles fit",
            path.display(),
            bytes(216_000_000 * per),
            bytes(per),
            (1u64 << 30) / per
        )
    );
    // Without a limit the machine's available memory is the budget. 216 million particles need
    // at least 216e6 times `per` (about 66 GiB), more than CI's machines have free; a host with
    // more (a GPU machine with 128 GiB) would build them, so there only the limited case runs.
    let need = 216_000_000 * per;
    match grains_cli::preflight::available_memory() {
        Some(free) if free >= need => {
            eprintln!(
                "not checking the unlimited budget: {} free holds the {} the scene needs",
                bytes(free),
                bytes(need)
            );
            return;
        }
        _ => {}
    }
    let e = check_report(&path, None).expect_err("refused on this machine too");
    assert!(
        format!("{e:#}").contains("MemAvailable in /proc/meminfo"),
        "{e:#}"
    );
}

/// A scene whose particles fit the bound known before its walls and laws, but whose full
/// estimate does not, is refused by `run` with the backend's estimate.
#[test]
fn run_refuses_a_scene_over_its_memory_estimate() {
    let text = SceneText::new()
        .simulation(&["steps = 10"])
        .domain([0.0; 3], [0.2; 3])
        .particles(
            "glass",
            0.004,
            &["lattice = { spacing = 0.01, count = [20, 20, 20] }"],
        )
        .wall(
            "glass",
            "box = { min = [0.0, 0.0, 0.0], max = [0.2, 0.2, 0.2] }",
        )
        .lines(&["[output]", "dir = \"unused\""])
        .block(GLASS)
        .build();
    let path = scene_file("over-estimate", &text);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let n = scene.world.particles.len() as u64;
    let lower = n * grains_core::cpu::memory_per_particle_at_least();
    let full = CpuMemoryModel::dense_pack(&scene.world).total();
    assert!(
        full > lower + 1024,
        "walls add wall slots: {full} vs {lower}"
    );
    let limit = (lower + full) / 2;
    let out = path.with_file_name("out");
    let mut a = args(&path, "cpu", &out);
    a.memory_limit = Some(limit);
    let e = run(&a).expect_err("refused");
    let per = full / n;
    assert_eq!(
        format!("{e:#}"),
        format!(
            "{}: {n} particles need about {} on the CPU backend ({} per particle), more than the \
             {} available (--memory-limit); at most about {} particles fit",
            path.display(),
            bytes(full),
            bytes(per),
            bytes(limit),
            limit / per
        )
    );
    assert!(!out.exists(), "nothing is written before the refusal");
}

/// The issue's `steps = 18446744073709551615` is refused as a count no run can reach, and a
/// run whose frames would not fit on the output disk is refused before it writes anything.
#[test]
fn absurd_lengths_and_output_volumes_are_refused() {
    let base = SceneText::new()
        .simulation(&["steps = STEPS", "dt = 1.0e-5"])
        .domain([0.0; 3], [0.02; 3])
        .particles(
            "glass",
            0.001,
            &["lattice = { spacing = 0.004, count = [5, 5, 5] }"],
        )
        .lines(&[
            "[output]",
            "every_steps = 1",
            "formats = [\"vtk\", \"csv\"]",
        ])
        .block(GLASS)
        .build();
    let path = scene_file("steps-max", &base.replace("STEPS", "18446744073709551615"));
    let e = grains_scene::load_scene(&path).expect_err("refused");
    assert_eq!(
        e.to_string(),
        format!(
            "{}:2:9: simulation.steps: expected at most 1000000000000000 steps (1e15), found \
             18446744073709551615",
            path.display()
        )
    );
    let path = scene_file("volume", &base.replace("STEPS", "1000000000000000"));
    let out = path.with_file_name("out");
    let e = run(&args(&path, "cpu", &out)).expect_err("refused");
    let m = format!("{e:#}");
    let frames = 1_000_000_000_000_001u64;
    assert!(
        m.starts_with(&format!("{}: the run would write about ", path.display()))
            && m.contains(&format!("({frames} frames to {})", out.display()))
            && m.ends_with(
                "free on that disk; write fewer frames (`output.every`), fewer formats \
                 (`output.formats`), or run fewer steps"
            ),
        "{m}"
    );
    assert!(!out.exists(), "nothing is written before the refusal");
    // `check` says the same, after its report (which gives the estimate).
    let r = check_report(&path, None).expect("parses");
    assert!(
        r.text.contains(&format!("in {frames} frames to out")),
        "{}",
        r.text
    );
    let refusal = format!("{:#}", r.refusal.expect("refused"));
    assert!(refusal.contains("the run would write about"), "{refusal}");
}

/// The issue's second finding: `radius = 0.05` in a 0.02 m box. `check` reports the overlaps,
/// `run` refuses with the worst pair's ids and positions, and the scene key lets an intended
/// overlap through.
#[test]
fn deep_initial_overlaps_are_reported_and_refused() {
    let text = SceneText::new()
        .simulation(&["steps = 10"])
        .domain([0.0; 3], [0.5; 3])
        .particles(
            "glass",
            0.05,
            &["lattice = { spacing = 0.004, count = [5, 5, 5] }"],
        )
        .block(GLASS)
        .build();
    let path = scene_file("overlap", &text);
    let r = check_report(&path, None).expect("parses");
    assert!(
        r.text.contains(
            "overlaps    7750 particle pairs and 0 particle-wall pairs at the start; the deepest \
             is 192.0% of the smaller radius (particles 3 and 4)"
        ),
        "{}",
        r.text
    );
    let expected = format!(
        "{}: particles 3 at (0.01400, 2.000e-3, 2.000e-3) m, radius 0.05000 m and 4 at (0.01800, \
         2.000e-3, 2.000e-3) m, radius 0.05000 m overlap by 0.09600 m (192.0% of the smaller \
         radius) at the start, more than `simulation.max_initial_overlap` = 5.000% allows (7750 \
         overlapping particle pairs, 0 particle-wall pairs in all): their contact would push them \
         apart at a speed no collision in the scene reaches; space the particles, or raise \
         max_initial_overlap (a fraction of the smaller radius) if the overlap is intended",
        path.display()
    );
    assert_eq!(format!("{:#}", r.refusal.expect("refused")), expected);
    let out = path.with_file_name("out");
    let e = run(&args(&path, "cpu", &out)).expect_err("refused");
    assert_eq!(format!("{e:#}"), expected);
    assert!(!out.exists(), "nothing is written before the refusal");

    // A 3% overlap passes the default threshold; the key raises it for deeper ones.
    let mild = text
        .replace("radius = 0.05", "radius = 0.00203")
        .replace("steps = 10", "steps = 10\nmax_initial_overlap = 0.05");
    let path = scene_file("overlap-mild", &mild);
    let r = check_report(&path, None).expect("parses");
    assert!(r.refusal.is_none(), "{:?}", r.refusal);
    assert!(
        r.text
            .contains("the deepest is 2.956% of the smaller radius"),
        "{}",
        r.text
    );
    let raised = text.replace("steps = 10", "steps = 10\nmax_initial_overlap = 2.0");
    let path = scene_file("overlap-raised", &raised);
    assert!(check_report(&path, None).expect("parses").refusal.is_none());
}

/// One particle flying at 1 m/s towards the open +x side of the domain from x0: the step at
/// which its centre passes `domain.max.x`, ceil((max - x0) / (v dt)).
const FLYER: &str = r#"[simulation]
steps = 6000
dt = 1.0e-5
LOST
[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]
[[particles]]
material = "glass"
radius = 0.002
positions = [[0.050005, 0.05, 0.05], [0.02, 0.05, 0.05], [0.05, 0.0200025, 0.05]]
velocities = [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, -0.5, 0.0]]
[output]
every_steps = 1000
formats = ["csv"]
"#;

/// The step at which the particle starting at `x0` with speed `v` along an axis passes `max`.
fn exit_step(x0: f64, max: f64, v: f64, dt: f64) -> u64 {
    let n = ((max - x0) / (v * dt)).abs();
    // Far from a tie, so that f32 positions cannot put the crossing a step earlier or later.
    let frac = n - n.floor();
    assert!((0.2..0.8).contains(&frac), "tie-free crossing: {n}");
    n.ceil() as u64
}

/// The issue's third finding, generalised: a particle that leaves a non-periodic domain stops
/// the run at the step it leaves, on both backends (the GPU replays from its last check to find
/// the step), with its id, position and likely cause; no frame of that step or later is written.
#[test]
fn a_lost_particle_stops_the_run_at_its_step() {
    // Only particle 0 moves here.
    let text = format!(
        "{}{GLASS}",
        FLYER
            .replace("LOST", "")
            .replace("[0.0, -0.5, 0.0]", "[0.0, 0.0, 0.0]")
    );
    let path = scene_file("lost", &text);
    let step = exit_step(0.050005, 0.1, 1.0, 1e-5);
    assert_eq!(step, 5000);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let t = &scene.timestep;
    for backend in scene_backends() {
        let out = path.with_file_name(format!("out-{backend}"));
        let e = run(&args(&path, backend, &out)).expect_err("the particle leaves");
        let m = format!("{e:#}");
        let expected_start = format!(
            "particle 0 left the domain at step {step} (t = 0.05000 s): it is at (0.1000, \
             0.05000, 0.05000) m, beyond domain.max.x = 0.1000 m; likely cause: nothing holds it \
             in on that side (its speed, 1.000 m/s, is physical, and dt = 1.000e-5 s is {}% of \
             the Rayleigh time ({}) and resolves a collision in {} steps; `dt = \"auto\"` would \
             choose {} (set by {})); add a wall there, make the axis periodic, or set \
             `simulation.lost_particles = \"delete\"` to remove such particles and count them",
            sig4(100.0 * 1e-5 / t.rayleigh),
            qty(t.rayleigh, "s"),
            sig4(t.collision / 1e-5),
            qty(t.auto_dt, "s"),
            t.limit.describe()
        );
        assert_eq!(m, expected_start, "{backend}");
        let rows = csv_rows(&out.join("particles.csv"));
        let last = rows.iter().map(|r| r[0] as u64).max().expect("rows");
        assert_eq!(
            last, 4000,
            "{backend}: frames up to the last before the loss only"
        );
    }
}

/// `lost_particles = "delete"`: particles that leave are taken out at the step they leave and
/// counted; the others run on exactly as they would have, and the ledger closes with the
/// energy the deleted ones carried in its `removed` column.
#[test]
fn deleted_lost_particles_are_counted_and_the_ledger_closes() {
    let text = format!(
        "{}{GLASS}",
        FLYER.replace(
            "LOST",
            "lost_particles = \"delete\"\ngravity = [0.0, 0.0, -1.0]"
        )
    );
    let path = scene_file("delete", &text);
    // The same scene with nobody leaving: particles 0 and 2 at rest.
    let free = format!(
        "{}{GLASS}",
        FLYER
            .replace("LOST", "gravity = [0.0, 0.0, -1.0]")
            .replace("[1.0, 0.0, 0.0]", "[0.0, 0.0, 0.0]")
            .replace("[0.0, -0.5, 0.0]", "[0.0, 0.0, 0.0]")
    );
    let free_path = scene_file("delete-ref", &free);
    for backend in scene_backends() {
        let out = path.with_file_name(format!("out-{backend}"));
        let report = run(&args(&path, backend, &out)).expect("runs to the end");
        // Particle 2 leaves through -y at step 4001, particle 0 through +x at step 5000.
        assert_eq!(exit_step(0.0200025, 0.0, -0.5, 1e-5), 4001);
        assert_eq!(report.removed, 2, "{backend}");
        let e = csv_rows(&out.join("energy.csv"));
        let header = std::fs::read_to_string(out.join("energy.csv")).expect("energy");
        assert!(header.starts_with(grains_io::ENERGY_HEADER), "{header}");
        // Tolerance 1e-5 of the total: free fall is exact for velocity Verlet, but each step
        // adds g dt / 2 to f32 velocities with up to half an ulp of rounding (about 4e-5 m/s
        // over the run on a 0.06 m/s fall, 2e-6 of the ledger).
        let e0 = e[0][8];
        for r in &e {
            assert!(
                (r[8] - e0).abs() <= 1e-5 * e0.abs(),
                "{backend}: step {}: total {} vs {e0}",
                r[0],
                r[8]
            );
        }
        let last = e.last().expect("rows");
        assert!(last[9] > 0.0, "{backend}: removed energy {}", last[9]);
        // Particle 1, which never leaves, is where it is in a run that loses nobody.
        let p = csv_rows(&out.join("particles.csv"));
        let free_out = free_path.with_file_name(format!("out-{backend}"));
        run(&args(&free_path, backend, &free_out)).expect("reference run");
        let q = csv_rows(&free_out.join("particles.csv"));
        let at = |rows: &[Vec<f64>], step: f64, id: f64| -> Vec<f64> {
            rows.iter()
                .find(|r| r[0] == step && r[2] == id)
                .cloned()
                .expect("row")
        };
        assert_eq!(at(&p, 6000.0, 1.0), at(&q, 6000.0, 1.0), "{backend}");
        // The deleted ones stay in the output, at rest, with the removed radius.
        let gone = at(&p, 6000.0, 0.0);
        assert_eq!(gone[18] as f32, REMOVED_RADIUS, "{backend}");
        assert_eq!(&gone[6..9], &[0.0, 0.0, 0.0], "{backend}");
    }
}

/// The first step at which some free particle of `b` is a fault, stepping one at a time and
/// judging each snapshot on the host (an independent reading of the guard's condition).
fn first_bad_step(b: &mut dyn Backend, world: &World, max: u64) -> Option<(u64, u32)> {
    let d = world.domain.params();
    let sp = world.step_params();
    for _ in 0..max {
        b.run(1);
        let s = b.snapshot();
        let bad = (0..s.pos.len()).find(|&i| {
            let v = s.vel[i];
            particle_fault(
                &sp,
                &d,
                glam::Vec3A::new(s.pos[i][0], s.pos[i][1], s.pos[i][2]),
                glam::Vec3A::new(v[0], v[1], v[2]),
                v[3],
            )
        });
        if let Some(i) = bad {
            return Some((s.step, i as u32));
        }
    }
    None
}

/// A world for the guard: 512 spheres in a box, periodic along z, random velocities well
/// within the speed limit.
fn guard_world(seed: u64) -> World {
    use grains_core::material::Material;
    use grains_core::materials::Interaction;
    use grains_core::{Domain, LawSpec, Particles};
    let mut rng = SplitMix(seed);
    let mut p = Particles::default();
    // A jittered 8 x 8 x 8 lattice: nobody overlaps at the start.
    for k in 0..8 {
        for j in 0..8 {
            for i in 0..8 {
                let x = [i, j, k].map(|c| 0.0125 + 0.0107 * c as f64 + rng.range(-0.002, 0.002));
                let v = rng.vec3(0.2).map(|c| c as f64);
                p.push_sphere(x, 0.001, v, [0.0; 3], 0, 2500.0, false);
            }
        }
    }
    let glass = Material {
        name: "glass".into(),
        density: 2500.0,
        young: 1e7,
        poisson: 0.3,
        drag: Default::default(),
    };
    World::new(
        p,
        vec![],
        vec![glass],
        vec![Interaction::new(0, 0, vec![LawSpec::Hertz(())])],
        Domain {
            min: [0.0; 3],
            max: [0.1; 3],
            periodic: [false, false, true],
        },
        [0.0, 0.0, -9.81],
        1e-5,
        0.0005,
    )
    .expect("world")
}

/// The guard on random states, CPU against GPU: in each seeded world a few particles are made
/// faulty in one of the three ways (too fast, about to leave through a non-periodic side,
/// non-finite); both backends must name the same step and the same (lowest) particle, and a
/// periodic side must not count as leaving. Tolerance: none, the decision is exact on inputs
/// away from the thresholds (planted faults exceed them by orders of magnitude).
#[test]
fn guard_parity_on_random_states() {
    let ctx = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any);
    assert!(
        ctx.is_ok() || !grains_tests::gpu_required(),
        "no GPU adapter under CI"
    );
    for seed in 0..6u64 {
        let mut world = guard_world(seed);
        let mut rng = SplitMix(1000 + seed);
        let mut planted = Vec::new();
        for _ in 0..3 {
            let i = (rng.next_u64() % 512) as usize;
            planted.push(i as u32);
            let p = &mut world.particles;
            match (seed + i as u64) % 3 {
                0 => p.vel[i] = [1e4, 0.0, 0.0, p.vel[i][3]],
                1 => {
                    p.pos[i][0] = 0.1 - 1e-7;
                    p.vel[i] = [1.0, 0.0, 0.0, p.vel[i][3]];
                }
                _ => p.vel[i][1] = f32::NAN,
            }
        }
        // Across the periodic z side: wrapped, not lost.
        let w = (0..512u32)
            .find(|i| !planted.contains(i))
            .expect("one unplanted") as usize;
        world.particles.pos[w][2] = 0.1 - 1e-7;
        world.particles.vel[w] = [0.0, 0.0, 1.0, world.particles.vel[w][3]];
        let want = *planted.iter().min().expect("planted");
        let mut cpu = CpuBackend::new(world.clone()).expect("cpu");
        let fault = cpu.run_guarded(5).expect("runs").expect("a fault");
        assert_eq!((fault.step, fault.particle), (1, want), "seed {seed}: cpu");
        if let Ok(ctx) = &ctx {
            let mut gpu = grains_gpu::GpuBackend::new(world.clone(), ctx).expect("gpu");
            let g = gpu.run_guarded(5).expect("runs").expect("a fault");
            assert_eq!((g.step, g.particle), (1, want), "seed {seed}: gpu");
            // The replay back to step 1 zeroed the slots the undone steps 2 to 5 wrote (slots
            // are not saved): no inactive record keeps one.
            let st = gpu.state();
            let touching = st.nbr_slot.iter().filter(|&&a| a != 0).count();
            assert_eq!(
                st.slots.len(),
                touching,
                "seed {seed}: one slot per record in contact after the replay"
            );
            st.validate(&world)
                .unwrap_or_else(|e| panic!("seed {seed}: the replayed state: {e}"));
        }
        // And without planted faults, neither backend sees one.
        let clean = guard_world(seed);
        let mut cpu = CpuBackend::new(clean.clone()).expect("cpu");
        assert_eq!(cpu.run_guarded(20).expect("runs"), None, "seed {seed}");
        if let Ok(ctx) = &ctx {
            let mut gpu = grains_gpu::GpuBackend::new(clean, ctx).expect("gpu");
            assert_eq!(gpu.run_guarded(20).expect("runs"), None, "seed {seed}");
        }
    }
}

/// A fault found at a check is replayed from the check before it, and the steps after the
/// fault are undone. Their slots are not saved but zeroed at the restore: a pair that came into
/// contact only in the undone steps must leave no slot behind (its flag is 0 again), or the
/// contacts and energy read at the fault would count it.
#[test]
fn a_replayed_fault_leaves_no_slot_of_the_undone_steps() {
    let Some(ctx) = grains_tests::gpu_context() else {
        assert!(!grains_tests::gpu_required(), "no GPU adapter under CI");
        return;
    };
    // Two spheres 40 um apart closing at 2 m/s touch at step 20 of 1 us, well inside the
    // first check interval (64 steps) and long before they part; a third, far away, leaves the
    // domain at step 1 (a fault), moving too slowly to make the list rebuild.
    let text = r#"
[simulation]
duration = 0.001
dt = 1e-6
gravity = [0.0, 0.0, 0.0]

[domain]
min = [-0.05, -0.05, -0.05]
max = [0.05, 0.05, 0.05]

[[material]]
name = "glass"
density = 2500.0
young = 1.0e7
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.001
positions = [[-0.00102, 0.0, 0.0], [0.00102, 0.0, 0.0], [0.03, 0.03, 0.03]]
velocities = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }

[output]
dir = "out/replayed_fault"
formats = []
"#;
    let mut world = grains_tests::test_world(text);
    world.particles.pos[2][0] = 0.05 - 1e-7;
    world.particles.vel[2][0] = 1.0;
    // Without the fault, the pair is in contact at the check.
    let clean = grains_tests::test_world(text);
    let mut whole = grains_gpu::GpuBackend::new(clean, &ctx).expect("gpu");
    whole.run(64);
    assert_eq!(
        whole.contacts().pairs,
        1,
        "the pair should touch by step 64"
    );
    let mut gpu = grains_gpu::GpuBackend::new(world, &ctx).expect("gpu");
    let fault = gpu.run_guarded(64).expect("runs").expect("a fault");
    assert_eq!((fault.step, fault.particle), (1, 2));
    assert_eq!(gpu.contacts().pairs, 0, "at step 1 the pair is apart");
    let st = gpu.state();
    assert!(
        st.nbr_slot.iter().all(|&a| a == 0) && st.slots.is_empty(),
        "a record keeps a slot of an undone step"
    );
}

/// A blow-up (three spheres deeply overlapping at 40 times the automatic dt) is caught at its
/// first bad step: the step the CPU backend reports is the first at which stepping one at a
/// time shows a faulty particle, and the GPU backend, checking on the device and replaying
/// from its last check, reports the first bad step of its own trajectory.
#[test]
fn a_blow_up_is_caught_at_its_first_bad_step() {
    let path = scene_file("blow-up", grains_tests::BLOW_UP_SCENE);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let world = scene.world.clone();
    let mut cpu = CpuBackend::new(world.clone()).expect("cpu");
    let reported = cpu.run_guarded(100_000).expect("runs").expect("blows up");
    let mut again = CpuBackend::new(world.clone()).expect("cpu");
    let first = first_bad_step(&mut again, &world, 100_000).expect("blows up");
    assert_eq!((reported.step, reported.particle), first, "cpu");
    if let Ok(ctx) = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
        let mut gpu = grains_gpu::GpuBackend::new(world.clone(), &ctx).expect("gpu");
        let reported = gpu.run_guarded(100_000).expect("runs").expect("blows up");
        let mut again = grains_gpu::GpuBackend::new(world.clone(), &ctx).expect("gpu");
        let first = first_bad_step(&mut again, &world, 100_000).expect("blows up");
        assert_eq!((reported.step, reported.particle), first, "gpu");
        // The replay restored the last check's state, zeroed the slots (they are not saved)
        // and stepped again: every array, slots included, is bit for bit the state of the run
        // that stepped one at a time and never replayed.
        let (replayed, stepped) = (gpu.state(), again.state());
        for (a, (x, y)) in grains_core::state::STATE_ARRAYS.iter().zip(
            replayed
                .array_bytes()
                .into_iter()
                .zip(stepped.array_bytes()),
        ) {
            assert!(x == y, "gpu: `{}` differs after the replay", a.name);
        }
    } else {
        assert!(!grains_tests::gpu_required(), "no GPU adapter under CI");
    }
}

/// Ctrl-C (the interrupt flag the binary's handler sets): the run finishes its step, writes
/// that step's output and a checkpoint, and says how to resume; resuming then ends exactly
/// where the uninterrupted run ends.
#[test]
fn an_interrupted_run_checkpoints_and_resumes_exactly() {
    let scene = grains_tests::workspace_root()
        .join("scenes")
        .join("two_spheres_head_on.toml");
    let dir = scratch("interrupt");
    let whole = dir.join("whole");
    run(&args(&scene, "cpu", &whole)).expect("uninterrupted run");
    let cut = dir.join("cut");
    let mut a = args(&scene, "cpu", &cut);
    a.interrupt = Some(Arc::new(AtomicBool::new(true)));
    let e = run(&a).expect_err("interrupted");
    let stop = e
        .downcast_ref::<Interrupted>()
        .expect("an Interrupted error");
    // Set before the first step: the run stops before taking one.
    assert_eq!(stop.step, 0);
    assert_eq!(
        format!("{e:#}"),
        format!(
            "interrupted after step 0; output flushed and a checkpoint written; resume with: \
             grains run {} --resume --out {} --backend cpu",
            scene.display(),
            cut.display()
        )
    );
    assert!(cut.join("checkpoint.bin").exists());
    // The flags the run needed are in the command that resumes it.
    let mut flagged = args(&scene, "cpu", &dir.join("flagged"));
    flagged.interrupt = Some(Arc::new(AtomicBool::new(true)));
    flagged.allow_unstable = true;
    flagged.memory_limit = Some(1 << 40);
    let e = run(&flagged).expect_err("interrupted");
    assert!(
        format!("{e:#}").ends_with("--backend cpu --allow-unstable --memory-limit 1099511627776"),
        "{e:#}"
    );
    let mut resume = args(&scene, "cpu", &cut);
    resume.resume = true;
    run(&resume).expect("resumed run");
    for file in ["energy.csv", "particles.csv"] {
        let (a, b) = (
            std::fs::read_to_string(whole.join(file)).unwrap_or_default(),
            std::fs::read_to_string(cut.join(file)).unwrap_or_default(),
        );
        let last = |t: &str| t.lines().last().map(str::to_string);
        assert!(!a.is_empty(), "{file}");
        assert_eq!(
            last(&a),
            last(&b),
            "{file}: the resumed run ends where the whole run ends"
        );
    }
}

/// The issue's message findings: an OS error said once, the periodic-box message once, numbers
/// with four significant digits and units, and `check` warning once about a coarse dt.
#[test]
fn messages_say_each_cause_once() {
    let e = check_report(Path::new("no/such/scene.toml"), None).expect_err("missing");
    let m = format!("{e:#}");
    assert_eq!(
        m,
        "no/such/scene.toml: cannot read the scene file: No such file or directory (os error 2)"
    );
    let text = SceneText::new()
        .simulation(&["steps = 10"])
        .domain([0.0; 3], [0.01; 3])
        .lines(&["periodic = [true, true, true]"])
        .particles(
            "glass",
            0.002,
            &["positions = [[0.005, 0.005, 0.005], [0.002, 0.002, 0.002]]"],
        )
        .block(GLASS)
        .build();
    let path = scene_file("periodic", &text);
    let e = check_report(&path, None).expect_err("too short");
    assert_eq!(
        format!("{e:#}"),
        format!(
            "{}:3:1: domain: periodic axis x is 0.01000 m long but needs at least 3 cells of \
             5.000e-3 m (largest diameter + skin + interaction range); make the domain longer \
             than 0.01500 m or the particles smaller",
            path.display()
        )
    );
    let coarse = text
        .replace("periodic = [true, true, true]\n", "")
        .replace("steps = 10", "steps = 10\ndt = 1.0");
    let path = scene_file("coarse", &coarse);
    // `check` refuses it as `run` does, saying the cause once; with `--allow-unstable` it is
    // the report's one warning.
    let r = check_report(&path, None).expect("parses");
    let refusal = format!("{:#}", r.refusal.expect("refused"));
    assert_eq!(refusal.matches("Rayleigh time").count(), 1, "{refusal}");
    assert!(
        refusal.contains("dt = 1.000 s exceeds 20% of the Rayleigh time"),
        "{refusal}"
    );
    assert_eq!(r.text.matches("warning").count(), 0, "{}", r.text);
    let r = grains_cli::check_report_allowing(&path, None, true).expect("parses");
    assert!(r.refusal.is_none());
    assert_eq!(r.text.matches("warning").count(), 1, "{}", r.text);
    assert!(
        r.text
            .contains("warning: dt = 1.000 s exceeds 20% of the Rayleigh time"),
        "{}",
        r.text
    );
}

/// A property test of the scene parser: every shipped scene, mutated at random (lines
/// dropped, duplicated or cut, values replaced by wrong ones, keys misspelt, bytes inserted),
/// never panics, and every rejection it makes is located as `file:line:column:`. 400 seeded
/// cases in the normal run.
#[test]
fn fuzzed_scenes_never_panic_and_every_rejection_is_located() {
    let root = grains_tests::workspace_root().join("scenes");
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("scenes/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    scenes.sort();
    let values = [
        "-1.0",
        "0",
        "0.0",
        "1e400",
        "-1e-400",
        "nan",
        "inf",
        "\"x\"",
        "[]",
        "[1, 2]",
        "{}",
        "true",
        "18446744073709551615",
        "-9223372036854775808",
        "\"auto\"",
        "[[0.0, 0.0]]",
        "{ law = \"nope\" }",
        "1e-30",
        "3.4e38",
    ];
    let mut rng = SplitMix(0x5eed);
    let mut rejected = 0;
    for case in 0..400 {
        let path = &scenes[case % scenes.len()];
        let text = std::fs::read_to_string(path).expect("scene");
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        for _ in 0..1 + rng.next_u64() % 3 {
            let k = (rng.next_u64() as usize) % lines.len().max(1);
            match rng.next_u64() % 6 {
                0 => {
                    lines.remove(k);
                }
                1 => {
                    let l = lines[k].clone();
                    lines.insert(k, l);
                }
                2 => {
                    let l = &lines[k];
                    let cut = (rng.next_u64() as usize) % (l.len() + 1);
                    let cut = (0..=cut)
                        .rev()
                        .find(|&c| l.is_char_boundary(c))
                        .unwrap_or(0);
                    lines[k] = l[..cut].to_string();
                }
                3 => {
                    if let Some(eq) = lines[k].find('=') {
                        let v = values[(rng.next_u64() as usize) % values.len()];
                        lines[k] = format!("{}= {v}", &lines[k][..eq]);
                    }
                }
                4 => {
                    if let Some(eq) = lines[k].find('=') {
                        lines[k] = format!("x{}", &lines[k][eq.min(1)..]);
                    }
                }
                _ => {
                    let junk = ["{", "]", "\"", "=", "#", "\u{e9}", "[[", "\t"];
                    let j = junk[(rng.next_u64() as usize) % junk.len()];
                    lines[k].push_str(j);
                }
            }
        }
        let mutated = lines.join("\n");
        let result = std::panic::catch_unwind(|| grains_scene::parse_scene(&mutated, path));
        let result = result.unwrap_or_else(|_| {
            panic!(
                "case {case}: the parser panicked on a mutation of {}:\n{mutated}",
                path.display()
            )
        });
        if let Err(e) = result {
            rejected += 1;
            let m = e.to_string();
            let rest = m
                .strip_prefix(&format!("{}:", path.display()))
                .unwrap_or_else(|| panic!("case {case}: not located in the file: {m}"));
            let mut parts = rest.splitn(3, ':');
            let line = parts.next().and_then(|x| x.parse::<usize>().ok());
            let col = parts.next().and_then(|x| x.parse::<usize>().ok());
            assert!(
                line.is_some_and(|l| l >= 1 && l <= lines.len() + 1) && col.is_some_and(|c| c >= 1),
                "case {case}: no line:column in {m}"
            );
        }
    }
    // Most mutations break a scene; a fuzzer that rejects nothing is not exercising the parser.
    assert!(rejected > 200, "only {rejected} of 400 mutations rejected");
}

/// A packing that starts overlapped within the accepted 5% is not a blow-up: two stiff glass
/// spheres (E = 60 GPa) at rest, 4% overlapped, store enough Hertz energy to part at 38 m/s
/// (relative), far above 100 times the 0.01 m/s the scene's impacts could reach (which alone
/// stopped this run at step 1, at 3.8 m/s). The guard's limit also covers what the overlaps
/// can release (`overlaps::release_speed`); the run completes.
#[test]
fn a_scene_started_slightly_overlapped_is_not_a_blow_up() {
    let text = SceneText::new()
        .simulation(&["steps = 2000"])
        .domain([0.0; 3], [0.02; 3])
        .material("glass", 2500.0, 6.0e10, 0.25)
        .particles(
            "glass",
            0.001,
            &["positions = [[0.0095, 0.01, 0.01], [0.01146, 0.01, 0.01]]"],
        )
        .hertz("glass", "glass", &[])
        .lines(&["[output]", "formats = []"])
        .build();
    let path = scene_file("slight-overlap", &text);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let w = scene.overlaps.worst.expect("one overlap");
    let v = grains_core::overlaps::release_speed(&scene.world, &w);
    assert!((30.0..45.0).contains(&v), "release speed {v}");
    assert!(scene.world.speed_limit >= 100.0 * v);
    let out = path.with_file_name("out");
    let report = run(&args(&path, "cpu", &out)).expect("no fault");
    assert_eq!(report.steps, 2000);
}

/// What `grains run` reports of its memory: the GPU backend's buffers against the memory
/// model at the capacities the backend holds (within 5%: the model counts every buffer but
/// the few of a handful of words), for `scenes/settle.toml` after its initial forces and after
/// 400 steps (its list and slots grow as the spheres fall); the dense-pack estimate `check`
/// prints is above both; and the host's peak resident set is read.
#[test]
fn the_gpu_memory_estimate_matches_the_buffers_it_allocates() {
    use grains_core::Backend as _;
    let path = grains_tests::workspace_root().join("scenes/settle.toml");
    let scene = grains_scene::load_scene(&path).expect("scene");
    let estimate = GpuMemoryModel::dense_pack(&scene.world).total() as f64;
    assert!(grains_cli::preflight::peak_resident().is_some_and(|b| b > 0));
    let Ok(ctx) = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) else {
        assert!(!grains_tests::gpu_required(), "no GPU adapter under CI");
        return;
    };
    let mut gpu = grains_gpu::GpuBackend::new(scene.world.clone(), &ctx).expect("gpu");
    let model = GpuMemoryModel::of(&scene.world);
    for steps in [0, 400] {
        gpu.run(steps);
        let held = gpu.device_bytes().expect("device buffers") as f64;
        let at = model.at(
            0,
            gpu.record_capacity() as usize,
            gpu.slot_capacity() as usize,
        ) as f64;
        eprintln!("after {steps} steps: device buffers {held} B, model {at} B, dense-pack estimate {estimate} B");
        assert!(
            (held / at - 1.0).abs() < 0.05,
            "after {steps} steps: device buffers {held} B vs model {at} B"
        );
        assert!(
            held < estimate,
            "buffers {held} B above the dense-pack estimate {estimate} B"
        );
    }
}

/// A CPU backend takes its world's positions (they are not held twice): a run built from that
/// world is refused with a message that says why, not a panic or a run without radii, and a
/// state resumed with it continues bitwise, its positions taken from the state.
#[test]
fn a_cpu_backends_own_world_resumes_states_but_starts_no_run() {
    use grains_tests::worlds::{head_on_world, hertz_only};
    let mut a = CpuBackend::new(head_on_world(hertz_only(), 1e-3, 0.5, 1e7, 1e-6)).expect("cpu");
    a.run(500);
    assert!(a.world.particles.pos.is_empty(), "the backend took them");
    let e = CpuBackend::new(a.world.clone())
        .err()
        .expect("a world without positions is refused");
    assert!(
        e.to_string()
            .contains("holds 0 positions for 2 particles: a CPU backend's own world gave"),
        "{e}"
    );
    let mut r = CpuBackend::from_state(a.world.clone(), a.state()).expect("resume");
    a.run(700);
    r.run(700);
    assert!(
        a.contacts().pairs + r.contacts().pairs == 0,
        "through the collision"
    );
    assert!(a.pos == r.pos && a.vel == r.vel, "resumed bitwise");
    assert!(a.vel[0][0] < 0.0, "rebounded: {:?}", a.vel[0]);
}

/// `check` says where a dense pack's bytes go, per particle, and the parts add up to its
/// estimate: on `settle_100k`, 145 B of particle arrays (the state's eight vec4s, with no
/// orientation as its spheres keep none, the world's material, mass, inertia and shape, the
/// sweep's flag, and a bit for the owners whose side it summed), 112 B of list (a word for
/// each of 16 entries, two starts, and per record of 8 its flag and mark) and each of the 3
/// pairs in contact's kept slot (28 B: the owner's side is summed in the sweep) and history,
/// with the regions' margin.
#[test]
fn check_splits_the_memory_estimate_by_what_holds_it() {
    let path = grains_tests::workspace_root().join("scenes/settle_100k.toml");
    let scene = grains_scene::load_scene(&path).expect("scene");
    let n = scene.world.particles.len() as u64;
    let parts = CpuMemoryModel::dense_pack(&scene.world);
    let owns = 8 * n.div_ceil(grains_core::cpu::CONTACT_BLOCK as u64);
    assert_eq!(parts.particles, 145 * n + owns, "{parts:?}");
    assert_eq!(parts.list, 112 * n + 8, "{parts:?}");
    let far = std::mem::size_of::<grains_core::kernels::sources::neighbour::FarSlot>();
    assert_eq!(far, 28, "force, elastic energy, one torque");
    let record = (far + 4 * scene.world.table.nbr_history_words) as u64;
    let contacts = 3 * n;
    let margin = contacts / grains_core::cpu::SLOT_MARGIN as u64
        + 4 * n.div_ceil(grains_core::cpu::CONTACT_BLOCK as u64);
    assert_eq!(parts.contacts, (contacts + margin) * record, "{parts:?}");
    let report = check_report(&path, None).expect("check").text;
    assert!(
        report.contains(
            "per particle, dense pack: 145 B particle arrays, 112 B list, 177 B pairs in contact"
        ),
        "{report}"
    );
    // The GPU's device buffers, for the same pack with the sixteenth its buffers grow by: 8 state
    // arrays of 16 B (no orientation), the world's 8 B (material, shape) and four starts per
    // particle (the broad phase's scratch lives in buffers dead during a rebuild); nothing per
    // entry, 8.5 records of three words (partner, a head entry's reference, flag); 3 slots of 28 B (what the list keeps of a slot: the owner's side is
    // summed in the contact passes) with a history record, the slot's pair (8 B) and a word
    // of the ring of slots given back.
    let gpu = GpuMemoryModel::dense_pack(&scene.world);
    assert_eq!(gpu.particles, (128 + 8 + 4 * 4) * n + 4 * 4, "{gpu:?}");
    let (records, slots) = (n * 8 + n / 2, 3 * n + 3 * n / 16);
    assert_eq!(gpu.list, 12 * records, "{gpu:?}");
    // The history unpadded on the device (7 words for this law, not 8).
    let history = 4 * scene.world.table.nbr_history_words as u64;
    assert_eq!(gpu.contacts, slots * (28 + history + 12), "{gpu:?}");
    assert!(
        report.contains(
            "per particle, dense pack on the GPU: 152 B particle arrays, 102 B list, 217 B pairs \
             in contact"
        ),
        "{report}"
    );
}

/// Two stiff spheres 0.2 mm apart closing at 2 m/s, at a step (2 ms) that drives them 3.8 mm
/// into each other: the first step's first half sees them apart at 1 m/s, and its kick throws
/// them apart at thousands of m/s, past the guard's 200 m/s.
const LAST_STEP_BLOW_UP: &str = r#"
[simulation]
steps = 1
dt = 2e-3
[domain]
min = [-1.0, -1.0, -1.0]
max = [1.0, 1.0, 1.0]
[[material]]
name = "steel"
density = 2500.0
young = 1.0e10
poisson = 0.3
[[particles]]
material = "steel"
radius = 0.01
positions = [[-0.0101, 0.0, 0.0], [0.0101, 0.0, 0.0]]
velocities = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]
[[interaction]]
between = ["steel", "steel"]
normal = { law = "hertz" }
[output]
formats = ["csv"]
"#;

/// The guard checks the end of every step, the last included. The first half of a step checks
/// the drifted state, but the kick with the step's new forces is only seen by the next step's
/// first half: a run of one step whose kick blows up ended at thousands of m/s against the
/// guard's 200 m/s, with exit 0. Both backends must report that step's fault (particle 0, the
/// lowest of the two), as the host's own reading of the end state does, and `grains run
/// --steps 1` must fail with the guard's message.
#[test]
fn the_guard_checks_the_end_of_the_last_step() {
    let path = scene_file("last-step", LAST_STEP_BLOW_UP);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let world = scene.world.clone();
    let mut probe = CpuBackend::new(world.clone()).expect("cpu");
    assert_eq!(first_bad_step(&mut probe, &world, 1), Some((1, 0)), "host");
    let mut cpu = CpuBackend::new(world.clone()).expect("cpu");
    let fault = cpu
        .run_guarded(1)
        .expect("runs")
        .expect("the last step's fault");
    assert_eq!((fault.step, fault.particle), (1, 0), "cpu");
    if let Some(ctx) = grains_tests::gpu_context() {
        let mut gpu = grains_gpu::GpuBackend::new(world.clone(), &ctx).expect("gpu");
        let fault = gpu
            .run_guarded(1)
            .expect("runs")
            .expect("the last step's fault");
        assert_eq!((fault.step, fault.particle), (1, 0), "gpu");
    }
    for backend in scene_backends() {
        let out = scratch(&format!("last-step-{backend}"));
        let mut a = args(&path, backend, &out);
        a.steps = Some(1);
        a.allow_unstable = true;
        let e = run(&a).expect_err("the blow-up in the last step stops the run");
        let m = format!("{e:#}");
        assert!(
            m.contains("particle 0 moves at") && m.contains("at step 1 (t ="),
            "{backend}: {m}"
        );
    }
}

/// Two glass spheres (radius 1 mm) meeting head on at `speed` each, Hertz with a viscous
/// dashpot of restitution `e`, at `dt = "auto"`.
fn head_on_scene(e: f64, speed: f64) -> String {
    SceneText::new()
        .simulation(&["duration = 1.0", "dt = \"auto\""])
        .domain([-0.01; 3], [0.01; 3])
        .material("glass", 2500.0, 1.0e9, 0.3)
        .particles(
            "glass",
            0.001,
            &[
                "positions = [[-0.00105, 0.0, 0.0], [0.00105, 0.0, 0.0]]",
                &format!("velocities = [[{speed}, 0.0, 0.0], [-{speed}, 0.0, 0.0]]"),
            ],
        )
        .hertz(
            "glass",
            "glass",
            &[&format!(
                "damping = {{ law = \"viscous\", restitution = {e} }}"
            )],
        )
        .build()
}

/// The restitution a head-on impact achieves on `b`: the separation speed once the spheres
/// no longer touch (or the run's end) over the approach speed `2 v`.
fn achieved_restitution(b: &mut dyn Backend, v: f64, steps: u64) -> f64 {
    for _ in 0..steps / 50 {
        b.run(50);
        let s = b.snapshot();
        let gap = (s.pos[1][0] - s.pos[0][0]) as f64 - 0.002;
        if gap > 0.0 && s.vel[1][0] > s.vel[0][0] {
            break;
        }
    }
    let s = b.snapshot();
    (s.vel[1][0] - s.vel[0][0]) as f64 / (2.0 * v)
}

/// `dt = "auto"` resolves the dashpot: at restitution 1e-3 the dashpot's relaxation time
/// `m*/c` is far shorter than the collision, and forty steps per collision let the impact
/// restitute 0.26. With the dashpot's time scale in the estimate the achieved restitution is
/// within 0.01 of the requested one on both backends (0.01: the explicit dashpot's error at ten
/// steps per relaxation time, against the 0.26 of an unresolved one), and `grains check` names
/// the dashpot as the limit that chose `dt`.
#[test]
fn auto_dt_resolves_a_stiff_dashpot() {
    let text = head_on_scene(0.001, 0.5);
    let path = scene_file("stiff-dashpot", &text);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let t = &scene.timestep;
    assert_eq!(t.limit, grains_core::timestep::DtLimit::Damping, "{t:?}");
    assert_eq!(scene.world.dt, t.auto_dt);
    assert!(t.auto_dt < t.collision / 40.0, "{t:?}");
    let steps = (4.0 * t.collision / t.auto_dt) as u64;
    let mut cpu = CpuBackend::new(scene.world.clone()).expect("cpu");
    let e = achieved_restitution(&mut cpu, 0.5, steps);
    assert!((e - 0.001).abs() < 0.01, "cpu: restitution {e}");
    if let Some(ctx) = grains_tests::gpu_context() {
        let mut gpu = grains_gpu::GpuBackend::new(scene.world.clone(), &ctx).expect("gpu");
        let e = achieved_restitution(&mut gpu, 0.5, steps);
        assert!((e - 0.001).abs() < 0.01, "gpu: restitution {e}");
    }
    let report = check_report(&path, None).expect("check");
    assert!(
        report
            .text
            .contains("is set by 10 steps per dashpot relaxation time m*/c"),
        "{}",
        report.text
    );
}

/// At 1000 m/s a step of `dt = "auto"` limited by the collision alone let two glass spheres
/// approach by over a third of their radius per step, and nothing said that such an impact
/// (Hertz's overlap about five radii) is outside the contact law. Now `dt = "auto"` limits the
/// approach per step to a tenth of the smallest radius (the travel limit binds, and is what
/// `check` names), and both `check` and `run` refuse the scene, naming the material, the
/// speed and the overlap of Johnson's closed form, unless `--allow-unstable` is given.
#[test]
fn auto_dt_limits_the_travel_and_deep_impacts_are_refused() {
    let text = head_on_scene(0.5, 1000.0);
    let path = scene_file("fast-impact", &text);
    let scene = grains_scene::load_scene(&path).expect("scene");
    let t = &scene.timestep;
    let r = 0.001;
    assert_eq!(t.limit, grains_core::timestep::DtLimit::Travel, "{t:?}");
    // The relative travel per step is a tenth of the radius (to 1e-6: the radius is stored in
    // f32, 5e-8 off 1 mm), where the collision limit alone allowed several times more.
    let travel = t.auto_dt * t.impact_speed;
    assert!((travel - 0.1 * r).abs() < 1e-6 * r, "travel {travel}");
    assert!(t.collision / 40.0 * t.impact_speed > 0.3 * r, "{t:?}");
    // Johnson's closed form, computed here independently: m* = m/2, R* = r/2, E* = E/(2(1-nu^2)).
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let e_star = 1.0e9 / (2.0 * (1.0 - 0.09));
    let v = t.impact_speed;
    let overlap = (15.0 * 0.5 * m * v * v / (16.0 * e_star * (0.5 * r).sqrt())).powf(0.4);
    assert!(overlap > r, "overlap {overlap}");
    let want = format!(
        "two \"glass\" particles of radius {} meeting at the expected impact speed {} would \
         overlap by {}",
        qty(r, "m"),
        qty(v, "m/s"),
        qty(overlap, "m")
    );
    let report = check_report(&path, None).expect("check reads it");
    let e = report.refusal.expect("check refuses it");
    assert!(format!("{e:#}").contains(&want), "check: {e:#}");
    let out = scratch("fast-impact-out");
    let e = run(&args(&path, "cpu", &out)).expect_err("run refuses it");
    assert!(format!("{e:#}").contains(&want), "run: {e:#}");
    assert!(format!("{e:#}").contains("--allow-unstable"), "run: {e:#}");
}

/// Every time-step warning recommends a step that helps: smaller than the one in use, and the
/// figure it names. One given `dt` per limit: past 20% of the Rayleigh time, under 10 steps per
/// collision, past half the dashpot's relaxation time, and past half a radius of approach per
/// step; and where `dt = "auto"` itself is in use, a smaller step than it.
#[test]
fn time_step_warnings_recommend_a_smaller_step() {
    for (e, speed) in [(0.001, 0.5), (0.5, 0.5), (0.5, 1000.0)] {
        let scene =
            grains_scene::load_scene(&scene_file("warn", &head_on_scene(e, speed))).expect("scene");
        let t = &scene.timestep;
        assert_eq!(t.warning(t.auto_dt), None, "auto dt is within every limit");
        assert!(t.suggested(t.auto_dt) < t.auto_dt);
        let given = [
            0.3 * t.rayleigh,
            t.collision / 5.0,
            0.6 * t.damping,
            0.6 * t.travel,
        ];
        for dt in given.into_iter().filter(|d| d.is_finite()) {
            let w = t
                .warning(dt)
                .unwrap_or_else(|| panic!("dt {dt} warned: {t:?}"));
            let s = t.suggested(dt);
            assert!(s < dt, "{w}");
            assert!(w.contains(&qty(s, "s")), "{w}");
            assert!(!w.contains(&format!("({}", qty(dt, "s"))), "{w}");
        }
    }
}

/// A fake root with `/proc/meminfo` saying `mem_kib` kB available and the cgroup files given
/// as `(path under sys/fs/cgroup, text)`.
fn memory_root(tag: &str, mem_kib: Option<u64>, cgroup: &[(&str, &str)]) -> PathBuf {
    let root = scratch(tag);
    if let Some(kib) = mem_kib {
        std::fs::create_dir_all(root.join("proc")).expect("proc");
        let text = format!("MemTotal:       99999999 kB\nMemAvailable:   {kib} kB\n");
        std::fs::write(root.join("proc/meminfo"), text).expect("meminfo");
    }
    for (path, text) in cgroup {
        let file = root.join("sys/fs/cgroup").join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("cgroup dir");
        std::fs::write(file, text).expect("cgroup file");
    }
    root
}

/// The memory check took `/proc/meminfo`'s MemAvailable alone, so in a container whose cgroup
/// allows less than the machine has free a run was killed by the kernel without a message.
/// Available memory is now the least of MemAvailable and the cgroup's limit less its usage
/// (v2: memory.max and memory.current; v1: memory.limit_in_bytes and memory.usage_in_bytes),
/// "max" (v2) and v1's page-aligned i64::MAX meaning no limit.
#[test]
fn available_memory_heeds_the_containers_limit() {
    use grains_cli::preflight::available_memory_in;
    let gib = 1u64 << 30;
    // 8 GiB free on the machine, a v2 limit of 2 GiB with 512 MiB used: 1.5 GiB.
    let v2 = memory_root(
        "mem-v2",
        Some(8 << 20),
        &[
            ("memory.max", "2147483648\n"),
            ("memory.current", "536870912\n"),
        ],
    );
    let (bytes, what) = available_memory_in(&v2).expect("known");
    assert_eq!(bytes, 2 * gib - gib / 2);
    assert!(what.contains("memory.max"), "{what}");
    // "max": no limit, MemAvailable decides.
    let unlimited = memory_root(
        "mem-v2-max",
        Some(8 << 20),
        &[("memory.max", "max\n"), ("memory.current", "536870912\n")],
    );
    let (bytes, what) = available_memory_in(&unlimited).expect("known");
    assert_eq!(
        (bytes, what.as_str()),
        (8 * gib, "MemAvailable in /proc/meminfo")
    );
    // v1, limited below the machine's free memory.
    let v1 = memory_root(
        "mem-v1",
        Some(8 << 20),
        &[
            ("memory/memory.limit_in_bytes", "4294967296\n"),
            ("memory/memory.usage_in_bytes", "1073741824\n"),
        ],
    );
    let (bytes, what) = available_memory_in(&v1).expect("known");
    assert_eq!(bytes, 3 * gib);
    assert!(what.contains("memory.limit_in_bytes"), "{what}");
    // v1 without a limit (the page-aligned i64::MAX it reports).
    let v1_free = memory_root(
        "mem-v1-max",
        Some(8 << 20),
        &[
            ("memory/memory.limit_in_bytes", "9223372036854771712\n"),
            ("memory/memory.usage_in_bytes", "1073741824\n"),
        ],
    );
    assert_eq!(available_memory_in(&v1_free).map(|a| a.0), Some(8 * gib));
    // A limit above what the machine has free: the machine's figure is the lesser.
    let loose = memory_root(
        "mem-loose",
        Some(1 << 20),
        &[("memory.max", "17179869184\n"), ("memory.current", "0\n")],
    );
    assert_eq!(available_memory_in(&loose).map(|a| a.0), Some(gib));
    // Usage over the limit leaves nothing; no meminfo at all leaves the cgroup's figure.
    let over = memory_root(
        "mem-over",
        None,
        &[
            ("memory.max", "1073741824\n"),
            ("memory.current", "2147483648\n"),
        ],
    );
    assert_eq!(available_memory_in(&over).map(|a| a.0), Some(0));
    // Nothing readable: unknown.
    let bare = memory_root("mem-bare", None, &[]);
    assert_eq!(available_memory_in(&bare), None);
}

/// A Young's modulus written in MPa where pascals are meant (`young = 5.0`) lets the expected
/// impacts overlap far deeper than the radius: `check` and `run` refuse it alike, located at
/// the material's `young`, naming the likely slip.
#[test]
fn a_young_modulus_in_mpa_is_refused_with_its_hint() {
    let text = SceneText::new()
        .simulation(&["steps = 10", "gravity = [0.0, 0.0, -9.81]"])
        .domain([0.0; 3], [0.02; 3])
        .particles(
            "glass",
            0.001,
            &["lattice = { spacing = 0.004, count = [2, 2, 2] }"],
        )
        .block(&GLASS.replace("young = 1.0e7", "young = 5.0"))
        .build();
    let path = scene_file("young-mpa", &text);
    let r = check_report(&path, None).expect("parses");
    let refusal = format!("{:#}", r.refusal.expect("refused"));
    assert!(
        refusal.starts_with(&format!("{}:15:1: material[0].young: ", path.display())),
        "{refusal}"
    );
    assert!(
        refusal.contains(
            "more than their radius: the contact law does not hold there; young = 5.000 Pa: MPa \
             meant? (SI units: Pa); use a stiffer material"
        ),
        "{refusal}"
    );
    let out = path.with_file_name("out");
    let e = run(&args(&path, "cpu", &out)).expect_err("refused");
    assert_eq!(format!("{e:#}"), refusal, "run and check say the same");
}
