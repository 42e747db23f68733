//! GPU runs: determinism, step against run, the adapter summary, the profile, checkpoints and
//! states refused.

use super::*;

/// The same world twice on the GPU: bitwise identical after 300 steps.
#[test]
fn gpu_runs_are_bitwise_deterministic() {
    let Some(ctx) = gpu_context() else { return };
    let mut a = gpu(settling_box(21), &ctx);
    let mut b = gpu(settling_box(21), &ctx);
    a.run(300);
    for _ in 0..3 {
        b.run(100);
    }
    let (sa, sb) = (a.snapshot(), b.snapshot());
    let bits = |v: &[[f32; 4]]| -> Vec<u32> { v.iter().flatten().map(|x| x.to_bits()).collect() };
    assert_eq!(bits(&sa.pos), bits(&sb.pos), "positions");
    assert_eq!(bits(&sa.vel), bits(&sb.vel), "velocities");
    assert_eq!(bits(&sa.omega), bits(&sb.omega), "angular velocities");
    assert_eq!(bits(&sa.force), bits(&sb.force), "forces");
    assert_eq!(a.energy(), b.energy(), "energy");
    assert_eq!(a.rebuild_steps(), b.rebuild_steps());
}

/// `step()` and `run(n)` record the same work.
#[test]
fn step_and_run_agree() {
    let Some(ctx) = gpu_context() else { return };
    let mut a = gpu(sphere_on_plane(), &ctx);
    let mut b = gpu(sphere_on_plane(), &ctx);
    a.run(40);
    for _ in 0..40 {
        b.step();
    }
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(a.counters(), b.counters());
}

/// The adapter is listed; a buffer beyond the device's largest (not its binding limit: larger
/// arrays are bound as windows) is refused with a message naming it.
#[test]
fn adapter_summary_is_listed() {
    let Some(ctx) = gpu_context() else { return };
    let s = ctx.summary();
    assert!(!s.name.is_empty());
    assert!(grains_gpu::list_adapters().iter().any(|a| a.name == s.name));
    let binding = ctx.limits().max_storage_buffer_binding_size;
    if ctx.limits().max_buffer_size > binding + 16 {
        ctx.check_buffer("pos", binding + 16, 123)
            .unwrap_or_else(|e| panic!("a buffer past a binding is split, not refused: {e}"));
    }
    let limit = ctx.limits().max_buffer_size;
    let err = ctx
        .check_buffer("pos", limit + 16, 123)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pos") && err.contains("123 particles"),
        "{err}"
    );
}
/// `grains bench --profile`'s machinery: every pass of the step is timed and its traffic
/// counted, rebuild passes at the share of steps that rebuilt.
#[test]
fn the_step_profile_covers_every_pass() {
    let Some(ctx) = gpu_context() else { return };
    let world = grains_cli::bench::settle_world(3200).expect("settle");
    let n = world.particles.len();
    let mut g = gpu(world, &ctx);
    g.run(5);
    let p = g.profile(40).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.particles, n);
    let label = |s: &str| {
        p.passes
            .iter()
            .find(|x| x.label == s)
            .unwrap_or_else(|| panic!("no {s}"))
    };
    // The settle has nothing between the gather and the second half: one fused pass.
    assert!(
        p.passes
            .iter()
            .all(|x| x.label != "gather" && x.label != "integrate_second_half"),
        "the step's gather and kick are fused"
    );
    for pass in ["integrate_first_half", "gather_kick"] {
        let x = label(pass);
        assert_eq!(x.dispatches, 1.0, "{pass}");
        assert!(x.read > 0.0 && x.written > 0.0, "{pass}: no traffic");
        if p.timestamps {
            assert!(x.seconds > 0.0, "{pass}: no time");
        }
    }
    // integrate_first_half streams the particle arrays: at least pos, vel, omega, force,
    // torque, ref_pos, pos_comp (16 B each) per particle; the settle's spheres keep no
    // orientation, so `quat` is one element.
    let first = label("integrate_first_half").read;
    assert!(first >= 7.0 * 16.0 * n as f64, "{first}");
    assert!(
        first < 8.0 * 16.0 * n as f64,
        "{first}: the orientations are read"
    );
    let chains = p
        .passes
        .iter()
        .filter(|x| x.label.starts_with("chain "))
        .count();
    assert_eq!(chains, 2, "settle has a sphere and a wall chain");
    let want = p.rebuilds as f64 / 40.0;
    assert!((label("pair_fill").dispatches - want).abs() < 1e-12);
    assert!(p.bytes_per_particle_step() > 0.0 && p.bandwidth_bound(3e12).is_finite());
}

/// The GPU backend hands its state out buffer by buffer (`stream_state`), so that a checkpoint
/// does not hold the state twice on the host: the file is byte for byte the one written from
/// its whole `state()` (a settling box with walls and friction, 300 steps, pairs in contact).
#[test]
fn streamed_gpu_checkpoints_are_the_whole_states_bytes() {
    let Some(ctx) = gpu_context() else { return };
    let mut g = gpu(settling_box_spaced(41, 1.02e-3), &ctx);
    g.run(300);
    let state = g.state();
    assert!(!state.slots.is_empty(), "pairs in contact");
    let dir = std::env::temp_dir().join(format!("grains-gpu-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let (whole, streamed) = (dir.join("whole.bin"), dir.join("streamed.bin"));
    grains_io::write_checkpoint(&whole, 3, &state).expect("write");
    grains_io::write_backend_checkpoint(&streamed, 3, &mut g).expect("write");
    let (a, s) = (
        std::fs::read(&whole).expect("read"),
        std::fs::read(&streamed).expect("read"),
    );
    let first = a.iter().zip(&s).position(|(x, y)| x != y);
    assert!(
        a.len() == s.len() && first.is_none(),
        "{} and {} bytes, first difference at {first:?}",
        a.len(),
        s.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The GPU keeps the list with each pair once, so it cannot hold a state whose list names a
/// pair from one side only (particle 2 lists 1, which does not list 2: a valid state, whose
/// entry names record `u32::MAX`, that no backend builds but a hand-made file may hold). It
/// says so instead of dropping the entry; the same state goes up on the CPU backend.
#[test]
fn a_state_naming_a_pair_from_one_side_only_is_refused_with_a_reason() {
    let Some(ctx) = gpu_context() else { return };
    let mut p = Particles::default();
    for x in [0.0, 0.01, 0.02] {
        p.push_sphere([x, 0.0, 0.0], 0.001, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    }
    let world = grains_tests::worlds::world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        hertz_only(),
        open_domain(1.0),
        [0.0; 3],
        1e-5,
        0.0005,
    );
    let mut state = cpu(world.clone()).state();
    state.nbr_start = vec![0, 2, 3, 5];
    state.nbr_j = vec![1, 2, 0, 0, 1];
    state.nbr_pair = vec![0, 1, 0, 1, u32::MAX];
    state.nbr_slot = vec![0, 0];
    state.validate(&world).expect("a valid state");
    assert!(CpuBackend::from_state(world.clone(), state.clone()).is_ok());
    let e = match GpuBackend::from_state(world, &ctx, &state) {
        Ok(_) => panic!("the GPU took up a list it cannot hold"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("from one side only") && e.contains("CPU backend"),
        "{e}"
    );
}
