//! Resuming: every checkpoint of a violent run resumes on the backend that wrote it, and the
//! resumed run ends where the uninterrupted one does.

use grains_core::{Backend, BackendState, CpuBackend, World};
use grains_gpu::GpuBackend;

/// A bed of 72 glass beads resting on a floor, and a bead fired into it at 200 m/s at a dt
/// far beyond what that speed allows (as `--allow-unstable` runs it): each step the projectile
/// travels 2 mm, twice the beads' radius, so the list is rebuilt nearly every step and pairs
/// in contact leave it at once, the case a state taken up must survive.
const VIOLENT_SCENE: &str = r#"
[simulation]
steps = 16
dt = 1e-5
gravity = [0.0, 0.0, -9.81]
skin = 0.0002
max_initial_overlap = 0.5
[domain]
min = [-0.008, -0.008, -0.001]
max = [0.008, 0.008, 0.03]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.001
lattice = { spacing = 0.00199, count = [6, 6, 2], origin = [-0.005, -0.005, 0.0] }
[[particles]]
material = "glass"
radius = 0.001
positions = [[0.0, 0.0, 0.0075]]
velocities = [[0.0, 0.0, -200.0]]
[[wall]]
box = { min = [-0.008, -0.008, -0.001], max = [0.008, 0.008, 0.03] }
material = "glass"
[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
tangential = { law = "cundall_strack", friction = 0.5 }
"#;

/// Steps the test runs; a checkpoint is taken after each.
const STEPS: u64 = 16;

/// The states of `b` after each of `STEPS` steps (index 0: before the first).
fn states_along(b: &mut dyn Backend) -> Vec<BackendState> {
    let mut states = vec![b.state()];
    for _ in 0..STEPS {
        b.step();
        states.push(b.state());
    }
    states
}

/// How many checkpoints' first resumed step rebuilds the list while pairs are in contact,
/// so that the test is known to reach the case it is for.
fn resumes_rebuilding_contacts(states: &[BackendState]) -> usize {
    states
        .windows(2)
        .filter(|w| {
            let rebuilt = w[1].rebuild_steps.len() > w[0].rebuild_steps.len();
            rebuilt && w[0].nbr_slot.iter().any(|&a| a != 0)
        })
        .count()
}

fn violent_world() -> World {
    grains_tests::test_world(VIOLENT_SCENE)
}

/// Every checkpoint of the CPU backend, written to a file and taken up as `grains run
/// --resume` takes it up (array by array), resumes without a panic and ends, step for step,
/// bit for bit where the uninterrupted run ends. A resumed step that rebuilt the list away
/// from pairs in contact stopped the CPU backend with "the first sweep's flags and history
/// are not packed in record order".
#[test]
fn the_cpu_backend_resumes_every_checkpoint_of_a_violent_run() {
    let world = violent_world();
    let mut first = CpuBackend::new(world.clone()).expect("cpu");
    let states = states_along(&mut first);
    let rebuilding = resumes_rebuilding_contacts(&states);
    assert!(
        rebuilding >= 3,
        "the run rebuilds with pairs in contact at {rebuilding} steps only"
    );
    let dir = std::env::temp_dir().join(format!("grains-resume-cpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("checkpoint.bin");
    for (k, state) in states.iter().enumerate() {
        grains_io::write_checkpoint(&path, 0, state).expect("write");
        let mut ck = grains_io::open_checkpoint(&path).expect("open");
        let header = std::mem::take(&mut ck.header);
        let mut b = CpuBackend::from_source(world.clone(), header, &mut ck)
            .unwrap_or_else(|e| panic!("checkpoint at step {k}: {e}"));
        ck.finish().expect("finish");
        b.run(STEPS - k as u64);
        assert!(
            b.state() == states[STEPS as usize],
            "resumed at step {k}: the end differs from the uninterrupted run's"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The same sweep on the GPU backend: every state it gives resumes and ends where the
/// uninterrupted run does, bit for bit.
#[test]
fn the_gpu_backend_resumes_every_checkpoint_of_a_violent_run() {
    let Some(ctx) = grains_tests::gpu_context() else {
        return;
    };
    let world = violent_world();
    let mut first = GpuBackend::new(world.clone(), &ctx).expect("gpu");
    let states = states_along(&mut first);
    assert!(resumes_rebuilding_contacts(&states) >= 3);
    for (k, state) in states.iter().enumerate() {
        let mut b = GpuBackend::from_state(world.clone(), &ctx, state)
            .unwrap_or_else(|e| panic!("state at step {k}: {e}"));
        b.run(STEPS - k as u64);
        assert!(
            b.state() == states[STEPS as usize],
            "resumed at step {k}: the end differs from the uninterrupted run's"
        );
    }
}
