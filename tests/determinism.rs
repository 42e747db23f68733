//! The same scene twice gives bitwise identical particles.csv, on each backend.

use grains_tests::workspace_root;
use std::path::PathBuf;

/// A 4000-sphere version of scenes/settle.toml with CSV frames every 50 steps.
fn settle_scene(dir: &std::path::Path) -> PathBuf {
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scenes/settle.toml")
        .replace("count = [40, 40, 13]", "count = [20, 20, 10]")
        .replace("formats = [\"vtk\"]", "formats = [\"csv\"]")
        .replace("every = 0.005", "every_steps = 50");
    let path = dir.join("settle_small.toml");
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(&path, text).expect("write scene");
    path
}

fn run_twice(backend: &str, steps: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("grains-det-{backend}-{}", std::process::id()));
    let scene = settle_scene(&dir);
    let mut outs = Vec::new();
    for k in 0..2 {
        let out = dir.join(format!("out{k}"));
        let args = [
            "grains",
            "run",
            &scene.to_string_lossy(),
            "--backend",
            backend,
            "--steps",
            steps,
            "--out",
            &out.to_string_lossy(),
            "-q",
        ];
        grains_cli::main_with_args(args.map(|s| s.to_string())).expect("run");
        outs.push(std::fs::read(out.join("particles.csv")).expect("particles.csv"));
    }
    let b = outs.pop().unwrap_or_default();
    let a = outs.pop().unwrap_or_default();
    (a, b)
}

#[test]
fn cpu_runs_are_bitwise_identical() {
    let (a, b) = run_twice("cpu", "400");
    assert!(
        a.len() > 4000 * 8 * 50,
        "too little output: {} bytes",
        a.len()
    );
    assert!(a == b, "particles.csv differs between two CPU runs");
}

#[test]
fn gpu_runs_are_bitwise_identical() {
    match grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
        Ok(_) => {}
        Err(e) => {
            if grains_tests::gpu_required() {
                panic!("a GPU adapter is required (CI / GRAINS_REQUIRE_GPU) but: {e}");
            }
            eprintln!("skipping GPU determinism: {e}");
            return;
        }
    }
    let (a, b) = run_twice("gpu", "400");
    assert!(
        a.len() > 4000 * 8 * 50,
        "too little output: {} bytes",
        a.len()
    );
    assert!(a == b, "particles.csv differs between two GPU runs");
}

/// The CPU backend runs its passes on a thread pool; the result must not depend on the
/// number of threads (each element is computed alone, the one reduction is a `max`).
#[test]
fn cpu_backend_is_independent_of_thread_count() {
    use grains_core::{Backend, CpuBackend};
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scenes/settle.toml")
        .replace("count = [40, 40, 13]", "count = [16, 16, 8]");
    let run = |threads: usize| {
        let scene =
            grains_scene::parse_scene(&text, std::path::Path::new("settle.toml")).expect("scene");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut b = CpuBackend::new(scene.world).expect("backend");
            b.run(2000);
            (b.snapshot().into_owned(), b.energy(), b.counters().rebuilds)
        })
    };
    let (a, ea, ra) = run(1);
    let (b, eb, rb) = run(3);
    assert!(ra > 1, "the run should rebuild");
    assert_eq!(ra, rb);
    assert!(a == b, "snapshots differ between 1 and 3 threads");
    assert_eq!(ea, eb);
}

/// `run(n)` runs each step's first half inside the previous step's gather (the passes fused,
/// `CpuBackend::forces`); it must leave exactly the state of `n` separate `step()`s, across
/// rebuilds, and stop a guarded run at the same step with the same state.
#[test]
fn cpu_run_equals_single_steps_bit_for_bit() {
    use grains_core::{Backend, CpuBackend};
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scenes/settle.toml")
        .replace("count = [40, 40, 13]", "count = [14, 14, 8]");
    let backend = || {
        let scene =
            grains_scene::parse_scene(&text, std::path::Path::new("settle.toml")).expect("scene");
        CpuBackend::new(scene.world).expect("backend")
    };
    let (mut fused, mut single, mut guarded) = (backend(), backend(), backend());
    fused.run(1500);
    for _ in 0..1500 {
        single.step();
    }
    assert_eq!(guarded.run_guarded(1500).expect("guarded"), None);
    assert!(
        fused.counters().rebuilds > 2,
        "the run should rebuild, so the fused steps cross rebuilds"
    );
    let want = single.state();
    assert!(fused.state() == want, "run(1500) differs from 1500 step()s");
    assert!(
        guarded.state() == want,
        "run_guarded(1500) differs from 1500 step()s"
    );
}

/// The contact sweep writes each block's slots into a region reserved from its last count
/// and lays the regions out anew when a block outgrows its own (`CpuBackend::slot_relays`);
/// a backend resumed from its state every 100 steps starts from a fresh layout each time. The
/// layout never reaches the physics: both runs end in exactly the same state.
#[test]
fn cpu_slot_layouts_do_not_change_the_run() {
    use grains_core::{Backend, CpuBackend};
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scenes/settle.toml")
        .replace("count = [40, 40, 13]", "count = [16, 16, 8]");
    let world = grains_scene::parse_scene(&text, std::path::Path::new("settle.toml"))
        .expect("scene")
        .world;
    let mut straight = CpuBackend::new(world.clone()).expect("backend");
    straight.run(1500);
    assert!(
        straight.slot_relays() > 0,
        "the settling bed's contacts should outgrow some block's region"
    );
    let mut resumed = CpuBackend::new(world.clone()).expect("backend");
    for _ in 0..15 {
        resumed.run(100);
        let state = resumed.state();
        resumed = CpuBackend::from_state(world.clone(), state).expect("resume");
    }
    assert!(
        straight.state() == resumed.state(),
        "the run resumed every 100 steps differs from the straight run"
    );
}

/// The contact sweep skips sphere pairs it found apart until the fastest particle could have
/// closed the gap (`ApartSkip` in `cpu/skip.rs`): a skipped pair must be one the exact test would
/// find apart, so runs with and without the skipping end in the same state, bit for bit. The
/// gather likewise skips particles whose stored force, torque and dissipation are already what
/// a step without contacts stores: a particle leaving contact must be gathered until they are.
/// A granular gas (fast, head-on approaches across skin pairs) and a settling bed (pairs closing
/// under gravity, contacts forming and breaking), each over several rebuilds.
#[test]
fn cpu_skipping_pairs_found_apart_and_idle_particles_does_not_change_the_run() {
    use grains_core::{Backend, CpuBackend};
    let scene = |file: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(workspace_root().join(file))
            .expect("scene")
            .replace(from, to);
        assert!(text.contains(to), "{file}: the replacement did not apply");
        grains_scene::parse_scene(&text, std::path::Path::new(file))
            .expect("scene")
            .world
    };
    let cases = [
        (
            // Ten times the file's speed: more collisions between rebuilds.
            scene(
                "scenes/gas.toml",
                "count = [20, 20, 20], jitter = 0.0333, seed = 2, speed = 0.1",
                "count = [12, 12, 12], jitter = 0.0333, seed = 2, speed = 1.0",
            ),
            3000,
        ),
        (
            // In a walled box: records of spheres and plane walls are skipped too (marking
            // them 0.1 mm beyond their gap fails this).
            scene(
                "scenes/settle.toml",
                "count = [40, 40, 13]",
                "count = [16, 16, 8]",
            ),
            1500,
        ),
    ];
    for (world, steps) in cases {
        let mut skipping = CpuBackend::new(world.clone()).expect("backend");
        let mut testing = CpuBackend::new(world).expect("backend");
        testing.set_skips(false);
        skipping.run(steps);
        testing.run(steps);
        assert!(
            skipping.counters().rebuilds >= 3,
            "the run should rebuild its list a few times"
        );
        assert!(
            skipping.contacts().pairs > 0,
            "the run should end with contacts"
        );
        assert!(
            skipping.state() == testing.state(),
            "skipping pairs found apart, or particles left idle, changed the run"
        );
    }
}

/// The CPU backend reproduces a reviewed reference: the energy log of
/// `tests/fixtures/reference/settle_small.toml` (4000 spheres, 2000 steps), recorded when the
/// physics tests passed and checked by hand (the ledger total drifts by 6e-5 relative, kinetic
/// energy rises then falls as the packing lands, damping and friction dissipation grow
/// monotonically). Tolerance: 1e-6 of the initial total, far below any physical change but
/// above the last-digit noise a different compiler could introduce. Regenerate it only for an
/// intended change of the physics, and say so in the commit.
#[test]
fn cpu_reproduces_the_reviewed_reference() {
    let reference = workspace_root().join("tests/fixtures/reference");
    let out = std::env::temp_dir().join(format!("grains-ref-{}", std::process::id()));
    let args = [
        "grains".to_string(),
        "run".into(),
        reference
            .join("settle_small.toml")
            .to_string_lossy()
            .into_owned(),
        "--backend".into(),
        "cpu".into(),
        "--steps".into(),
        "2000".into(),
        "--out".into(),
        out.to_string_lossy().into_owned(),
        "-q".into(),
    ];
    grains_cli::main_with_args(args).expect("run");
    let parse = |text: &str| -> Vec<Vec<f64>> {
        text.lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
            .collect()
    };
    let want = parse(
        &std::fs::read_to_string(reference.join("settle_small_energy.csv")).expect("reference"),
    );
    let got = parse(&std::fs::read_to_string(out.join("energy.csv")).expect("energy.csv"));
    assert_eq!(want.len(), got.len(), "number of energy lines");
    let scale = want[0][8];
    for (w, g) in want.iter().zip(&got) {
        for (c, (a, b)) in w.iter().zip(g).enumerate() {
            assert!(
                (a - b).abs() <= 1e-6 * scale,
                "step {}: column {c} is {b}, reference {a}",
                w[0]
            );
        }
    }
}

/// Every chain of the registry's table of compiled chains runs its laws with the bits of the
/// registry's dispatch (the path every other chain takes), on 2000 random pairs: each law's
/// parameters and history from its own parity cases (edge cases first), the geometry of the
/// normal law's case. Exact: the same operations in the same order. The resolver is the
/// resolver's own function on both paths.
#[test]
fn compiled_chains_give_the_dispatch_bits() {
    use grains_core::kernels::passes::{apply_chain, ChainRun};
    use grains_core::parity::SplitMix;
    use grains_core::registry::{compiled_chain, compiled_chains};
    let table = compiled_chains();
    assert!(table.len() >= 2, "the table of compiled chains is empty");
    let mut rng = SplitMix(0xC0DE_C4A1);
    for (spec, apply) in &table {
        assert!(
            compiled_chain(spec).is_some(),
            "{}: in the table but not found for its spec",
            spec.name()
        );
        let run = ChainRun::new(0, spec, 0.0).dispatched();
        for i in 0..2000 {
            let cases: Vec<_> = spec
                .laws
                .iter()
                .map(|l| l.parity_case(&mut rng, i))
                .collect();
            let geom = cases[0].geom;
            let params: Vec<u32> = cases.iter().flat_map(|c| c.params.clone()).collect();
            let history: Vec<f32> = cases.iter().flat_map(|c| c.history.clone()).collect();
            let mut h_dispatch = history.clone();
            let f_dispatch = apply_chain(&run, &geom, &params, &mut h_dispatch);
            let (mut h_whole, mut f_whole) = (history, Default::default());
            apply(&geom, &params, &mut h_whole, &mut f_whole);
            let bits = |f: &grains_core::kernel_types::ContactForce| bytemuck::bytes_of(f).to_vec();
            assert_eq!(
                bits(&f_dispatch),
                bits(&f_whole),
                "{} case {i}: force {f_dispatch:?} dispatched, {f_whole:?} compiled",
                spec.name()
            );
            let hb = |h: &[f32]| h.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                hb(&h_dispatch),
                hb(&h_whole),
                "{} case {i}: history",
                spec.name()
            );
        }
    }
}
