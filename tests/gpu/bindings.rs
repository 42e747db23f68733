//! Arrays past a storage binding, held as windows or in textures, run as unsplit arrays.

use super::*;

/// Arrays larger than a storage binding are bound as several windows of their buffer, the
/// kernels that bind them composed to pick each element's window
/// (`grains_shaders::split_arrays`), as on an adapter whose binding limit a large pack
/// exceeds. Here the limit is 20 B a particle, and a buffer holds at most two bindings' worth
/// (as an adapter's `max_buffer_size` caps an array's buffer): the packed slots, their history
/// and pairs split, the slots and history over several buffers, and the slots grow at the
/// first step (their kernels composed again for more parts). The run matches the CPU, tangential springs included; a state taken
/// at an odd step goes up and comes back exactly and runs on bit for bit as the same state
/// does unsplit. (Lavapipe allows 32 storage bindings a kernel: a lower limit here would split
/// the contact kernel past them; `per_particle_arrays_split_over_bindings_run_as_unsplit`
/// splits the particles' arrays.)
#[test]
fn arrays_split_over_bindings_match_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let n = settling_box_spaced(23, 0.995e-3).particles.len() as u64;
    let binding = (20 * n).next_multiple_of(256);
    let opts = GpuOptions {
        binding_limit: binding,
        buffer_limit: 2 * binding,
        initial_records_per_particle: 0,
        ..slots_alone_options()
    };
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 0.995e-3);
    let split = g.split_arrays();
    for array in ["slots", "history", "slot_pair"] {
        assert!(
            split.iter().any(|(_, a, parts)| a == array && *parts >= 2),
            "`{array}` not split: {split:?}"
        );
    }
    // Past two bindings' worth, the slots and their history are held in several buffers.
    for array in ["slots", "history"] {
        assert!(g.array_buffers(array) >= 2, "`{array}` in one buffer");
    }
    let dx = max_pos_diff(
        &c.snapshot().into_owned().pos,
        &g.snapshot().pos,
        &c.world.domain,
    );
    // An element read from the wrong window moves a sphere by its overlap (5e-6 m) or more;
    // rounding alone gave under 1e-9 m on lavapipe and on an H100 (Vulkan).
    assert!(dx < 1e-8, "positions: {dx} m");
    assert_packed_slots_match(&mut c, &mut g);
    // Records past the first window of the history hold some.
    let window = opts.binding_limit as usize / (4 * c.world.table.nbr_history_words);
    assert_packed_history_match(&mut c, &mut g, window);
    c.run(1);
    let state = c.state();
    let mut r = GpuBackend::from_state_with_options(c.world.clone(), &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.state() == state, "the state read back at step 41");
    // Runs on as the same state does unsplit, bit for bit: which window an element lives in
    // changes no arithmetic. (Against the CPU, the 1%-compressed lattice's stiff contacts
    // grow one-ulp differences: 1.4e-8 m in 20 steps on an H100.)
    let whole = GpuOptions {
        binding_limit: 0,
        buffer_limit: 0,
        ..opts
    };
    let mut u = GpuBackend::from_state_with_options(c.world.clone(), &ctx, &state, whole)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        u.split_arrays().is_empty(),
        "nothing split at the adapter's limit"
    );
    r.run(20);
    u.run(20);
    let (rs, us) = (r.state(), u.state());
    assert!(rs.pos == us.pos, "positions 20 steps after the resume");
    assert!(rs == us, "the state 20 steps after the resume");
    c.run(20);
    assert_eq!(
        c.contacts(),
        r.contacts(),
        "contacts 20 steps after the resume"
    );
}

/// The particles' arrays split over bindings (12 B a particle: every per-particle array in two
/// windows, the broad phase's scratch in theirs) and held in several buffers (one window each,
/// as a 134-million-sphere pack's are past a 2 GiB `max_buffer_size`): a settling box runs 300
/// steps, rebuilds included, bit for bit as unsplit, through a removal (which writes single
/// particles across the buffers) and a resume from its state (which writes them whole).
#[test]
fn per_particle_arrays_split_over_bindings_run_as_unsplit() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let n = world.particles.len() as u64;
    let binding = (12 * n).next_multiple_of(256);
    let opts = GpuOptions {
        binding_limit: binding,
        buffer_limit: binding,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world.clone(), &ctx);
    let split = a.split_arrays();
    for array in [
        "pos",
        "vel",
        "omega",
        "force",
        "torque",
        "ref_pos",
        "dissipated",
        "sorted",
    ] {
        assert!(
            split.iter().any(|(_, x, parts)| x == array && *parts == 2),
            "`{array}` not in two windows: {split:?}"
        );
    }
    for array in [
        "pos", "vel", "omega", "pos_comp", "force", "torque", "ref_pos",
    ] {
        assert_eq!(a.array_buffers(array), 2, "`{array}`'s buffers");
        assert_eq!(b.array_buffers(array), 1, "`{array}`'s buffers, unsplit");
    }
    a.run(150);
    b.run(150);
    // One particle in each buffer; the second past the first buffer's end.
    let gone = [3, (n - 5) as u32];
    assert!(16 * gone[1] as u64 > binding, "{gone:?}");
    remove_alike(&mut a, &mut b, &gone);
    let state = a.state();
    let mut r = GpuBackend::from_state_with_options(world, &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.array_buffers("pos"), 2, "the resumed run's buffers");
    finish_alike(&mut r, &mut b);
}

/// Particles `gone` removed from run `a` and the unsplit run `b`: 50 steps later both hold
/// the same state, bit for bit.
fn remove_alike(a: &mut GpuBackend, b: &mut GpuBackend, gone: &[u32]) {
    a.remove_particles(gone).unwrap_or_else(|e| panic!("{e}"));
    b.remove_particles(gone).unwrap_or_else(|e| panic!("{e}"));
    a.run(50);
    b.run(50);
    assert!(
        a.state() == b.state(),
        "the state 50 steps after the removal"
    );
}

/// A resumed run `r` and the unsplit run `b` it follows: 100 more steps each, rebuilds
/// included, end bit for bit alike.
fn finish_alike(r: &mut GpuBackend, b: &mut GpuBackend) {
    r.run(100);
    b.run(100);
    assert!(r.rebuild_steps().len() > 1, "no rebuild after the first");
    assert_eq!(r.rebuild_steps(), b.rebuild_steps());
    assert!(r.state() == b.state(), "the state after 300 steps");
    assert_eq!(r.energy(), b.energy(), "energy");
}

/// A kernel whose arrays, counted as windows, would bind more storage buffers than a shader
/// stage may is refused before it is composed, and the refusal says about how many particles
/// would fit: the same scene builds with the binding size scaled up by particles over that
/// figure (the same windows as that many particles on the first binding size).
#[test]
fn a_kernel_past_its_storage_buffers_is_refused_with_the_count_that_fits() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let n = world.particles.len() as u64;
    let binding = 4096;
    // Never in textures: a kernel that cannot bind its windows is refused.
    let opts = |binding_limit| GpuOptions {
        binding_limit,
        texture_limit: u64::MAX,
        ..GpuOptions::default()
    };
    let err = match GpuBackend::with_options(world.clone(), &ctx, opts(binding)) {
        Ok(_) => panic!("{n} particles in windows of {binding} B were not refused"),
        Err(e) => e,
    };
    let text = err.to_string();
    let grains_gpu::GpuError::KernelReach {
        needed,
        limit,
        particles,
        fit,
        ..
    } = err
    else {
        panic!("not a reach refusal: {text}")
    };
    assert!(needed > limit, "{text}");
    assert_eq!(particles as u64, n, "{text}");
    assert!(fit > 0 && fit < n, "{text}");
    assert!(
        text.contains(&format!("about {fit} particles of this scene fit")),
        "{text}"
    );
    assert!(text.contains("pos in"), "{text}");
    let scaled = (binding * n).div_ceil(fit).next_multiple_of(256);
    if let Err(e) = GpuBackend::with_options(world, &ctx, opts(scaled)) {
        panic!("windows of {scaled} B (as {fit} particles on {binding} B) refused: {e}");
    }
}

/// Arrays held in storage textures (`GpuOptions::texture_limit`: every array of more than 4 B
/// a particle that no kernel updates atomically; the history in two textures) run a settling
/// box in contact 300 steps, rebuilds and the list's growth included, bit for bit as in buffers,
/// through a removal and a resume from its state.
#[test]
fn arrays_in_textures_run_as_in_buffers() {
    let Some(ctx) = gpu_context() else { return };
    // Every particle touching its lattice neighbours from the start: a list and slots
    // of a dense pack's size.
    let world = settling_box_spaced(21, 1.0e-3);
    let n = world.particles.len() as u64;
    let opts = GpuOptions {
        texture_limit: 4 * n,
        buffer_limit: 48 * n,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world.clone(), &ctx);
    let held: BTreeMap<String, usize> = a.texture_arrays().into_iter().collect();
    for array in ["pos", "vel", "omega", "force", "torque", "ref_pos"] {
        assert!(
            held.contains_key(array),
            "`{array}` not in textures: {held:?}"
        );
    }
    assert!(
        !held.contains_key("cell_counts"),
        "an atomic array in textures"
    );
    assert!(b.texture_arrays().is_empty(), "{:?}", b.texture_arrays());
    a.run(150);
    b.run(150);
    // The list's arrays, grown past the limit, are made as textures.
    let held: BTreeMap<String, usize> = a.texture_arrays().into_iter().collect();
    for array in ["pair_j", "nbr_slot", "slots", "slot_pair"] {
        assert!(
            held.contains_key(array),
            "`{array}` not in textures: {held:?}"
        );
    }
    assert!(
        held.get("history").is_some_and(|t| *t >= 2),
        "the history not in several textures: {held:?}"
    );
    let gone = [3, (n - 5) as u32];
    remove_alike(&mut a, &mut b, &gone);
    assert_eq!(a.energy(), b.energy(), "energy after the removal");
    let state = a.state();
    let mut r = GpuBackend::from_state_with_options(world, &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    // The state goes up whole across the textures' ends (the packed slots, whose textures
    // hold a whole number of slots and some padding after them, in two).
    let held: BTreeMap<String, usize> = r.texture_arrays().into_iter().collect();
    assert!(
        held.get("slots").is_some_and(|t| *t >= 2),
        "the resumed slots not in several textures: {held:?}"
    );
    assert!(
        r.state() == state,
        "the resumed state does not read back as written"
    );
    finish_alike(&mut r, &mut b);
}

/// Where a kernel's windows would take more storage buffers than a stage may (4 KiB
/// bindings), its largest arrays go into textures until it binds, rather than the run being
/// refused; it runs bit for bit as with whole buffers.
#[test]
fn arrays_a_kernel_cannot_bind_as_windows_go_into_textures() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let opts = GpuOptions {
        binding_limit: 4096,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world, &ctx);
    let held = a.texture_arrays();
    assert!(!held.is_empty(), "nothing went into textures");
    assert!(
        held.len() < 20,
        "more arrays than needed went into textures: {held:?}"
    );
    a.run(200);
    b.run(200);
    assert!(a.rebuild_steps().len() > 1, "no rebuild after the first");
    assert!(a.state() == b.state(), "the state after 200 steps");
    assert_eq!(a.energy(), b.energy(), "energy");
}

/// The packed history records (tangential springs) of both backends agree, records past
/// `split` included, and some of those are not zero: 1e-3 of the largest word, as the slots'
/// forces (the same f32 arithmetic, summed in another order only where the laws differ).
fn assert_packed_history_match(c: &mut CpuBackend, g: &mut GpuBackend, split: usize) {
    let (cs, gs) = (c.state(), g.state());
    assert_eq!(cs.history.len(), gs.history.len(), "history words");
    let stride = cs.history.len() / cs.slots.len().max(1);
    let hmax = cs.history.iter().fold(0.0f32, |a, x| a.max(x.abs()));
    assert!(hmax > 0.0, "no tangential spring stretched");
    let past = &gs.history[(split * stride).min(gs.history.len())..];
    assert!(
        past.iter().any(|x| *x != 0.0),
        "the records past the split hold history"
    );
    for (k, (a, b)) in cs.history.iter().zip(&gs.history).enumerate() {
        assert!(
            (a - b).abs() <= 1e-3 * hmax,
            "history word {k} (record {}): {a} vs {b}",
            k / stride.max(1)
        );
    }
}
