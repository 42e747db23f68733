//! Lists, records and slots that outgrow their buffers, frozen steps, the fused gather, and
//! slots given back: each run as the CPU backend runs it.

use super::*;

/// A list that grows during the run (a gas colliding into more candidates) freezes mid-interval
/// and, taken up again in grown buffers, still yields the CPU's pairs.
#[test]
fn neighbour_overflow_grows_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let world = periodic_gas(17);
    // Records for the first list and an eighth more; slots to spare, so only the records grow.
    let opts = GpuOptions {
        initial_records_per_particle: 0,
        initial_slots_per_particle: 64,
        // Odd, so that replays go back to odd steps too, where the packed history is in the
        // second of its two buffers.
        check_every: 15,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let mut g = GpuBackend::with_options(world.clone(), &ctx, opts).unwrap();
    let mut c = cpu(world);
    let (grows0, records0) = (g.list_grows(), g.record_capacity());
    // The gas starts sparse (under one entry per particle) and collides into more: the list
    // overflows during the run, mid-interval, and the replay must reproduce the CPU exactly.
    for _ in 0..4 {
        c.run(50);
        g.run(50);
        assert!(c.candidate_pairs() == g.candidate_pairs(), "pairs differ");
        assert_eq!(c.rebuild_steps(), g.rebuild_steps());
    }
    assert!(
        g.list_grows() > grows0,
        "the list should have grown mid-run"
    );
    assert!(
        g.record_capacity() > records0,
        "the records should have grown"
    );
    let (cs, gs) = (c.snapshot().into_owned(), g.snapshot());
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    assert!(dx < 1e-6, "positions after growth and replay: {dx}");
    // Slots are not saved for a replay: the replayed steps take them again. The records in
    // contact are the CPU's, one packed slot each, and the contacts and the elastic energy read
    // from the slots afterwards are still the CPU's.
    let (cst, gst) = (c.state(), g.state());
    assert_eq!(
        cst.nbr_slot, gst.nbr_slot,
        "records in contact after replay"
    );
    assert_eq!(
        cst.slots.len(),
        gst.slots.len(),
        "packed slots after replay"
    );
    assert_eq!(c.contacts(), g.contacts(), "contacts after replay");
    let (ec, eg) = (c.energy(), g.energy());
    assert!(
        (ec.elastic - eg.elastic).abs() <= 1e-4 * ec.elastic.abs().max(1e-30),
        "elastic energy after replay: {} vs {}",
        ec.elastic,
        eg.elastic
    );
    assert!(ec.elastic > 0.0, "pairs in contact at the end");
    eprintln!(
        "overflow: record capacity {} after {} grows",
        g.record_capacity(),
        g.list_grows()
    );
}

/// A dense packing whose very first list does not fit: the initial rebuild itself replays.
#[test]
fn neighbour_overflow_at_start() {
    let Some(ctx) = gpu_context() else { return };
    let opts = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 8,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    // Spheres still apart after 40 steps: free flight is bitwise the CPU's.
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 1.05e-3);
    assert_eq!(c.snapshot().pos, g.snapshot().pos);
}

/// Records that do not fit (one record per particle against a settling box of several pairs
/// each, walls included) grow, and the run replays to the CPU's list and positions.
#[test]
fn record_overflow_grows_records_alone_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let opts = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 8,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 1.05e-3);
    assert_eq!(c.snapshot().pos, g.snapshot().pos);
    let n = c.pos.len() as u64;
    assert!(g.record_capacity() > n, "the records grew");
    // The list's integers are the CPU's exactly: every entry's record and every flag.
    let (cs, gs) = (c.state(), g.state());
    assert_eq!(cs.nbr_pair, gs.nbr_pair, "nbr_pair");
    assert_eq!(cs.nbr_slot, gs.nbr_slot, "nbr_slot");
    assert_eq!(cs.history.len(), gs.history.len(), "history records");
}

/// A lattice packed 0.5% closer than touching (about 3 pairs in contact per sphere, walls
/// besides) against one packed slot per particle: only the slots grow, at the first step, and
/// the run replays to the CPU's positions, records in contact and slots.
#[test]
fn slot_overflow_grows_slots_alone_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let (mut c, mut g) = overflow_at_start(&ctx, slots_alone_options(), 0.995e-3);
    let n = c.pos.len() as u64;
    // In contact, the f32 sums differ in their last bits (the pass parity's 1e-4 relative).
    let dx = max_pos_diff(
        &c.snapshot().into_owned().pos,
        &g.snapshot().pos,
        &c.world.domain,
    );
    assert!(dx < 1e-9, "positions after the replay: {dx} m");
    let full = (64 * n).next_multiple_of(64);
    assert_eq!(g.record_capacity(), full, "the records fitted");
    assert!(
        g.slot_capacity() > n,
        "the slots grew: {}",
        g.slot_capacity()
    );
    assert!(
        c.state().slots.len() as u64 > n,
        "more contacts ({}) than the initial slots ({n})",
        c.state().slots.len()
    );
    assert_packed_slots_match(&mut c, &mut g);
}

/// A run whose list, records and slots all start too small freezes again and again: at its
/// first rebuild, and in the middle of later steps as the lattice collapses into contact (the
/// list at its guard, the slots after the contact passes, with tangential history in play).
/// Each frozen step, taken up again where it stopped, gives the bits of a run whose buffers
/// never filled: positions, velocities, spins, the list, its flags and its history.
#[test]
fn frozen_steps_give_the_bits_of_a_run_that_never_freezes() {
    let Some(ctx) = gpu_context() else { return };
    // A sparse lattice squeezed towards its centre (every sphere moving at 400/s times its
    // distance from it): the list gains pairs and the spheres come into contact as it packs.
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let mut p = lattice_particles(lo, hi, 0.5e-3, 1.3e-3, 2500.0, 0.05, 100.0, 29);
    for (x, v) in p.pos.iter().zip(p.vel.iter_mut()) {
        for k in 0..3 {
            v[k] -= 400.0 * (x[k] - 0.5 * hi[k] as f32);
        }
    }
    let world = world(
        p,
        box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]),
        material("glass", 1e7, 2500.0),
        full_chain(),
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    );
    let ample = GpuOptions {
        initial_records_per_particle: 64,
        initial_slots_per_particle: 64,
        check_every: 64,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let tight = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 7,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let mut a = GpuBackend::with_options(world.clone(), &ctx, ample).unwrap();
    let mut t = GpuBackend::with_options(world, &ctx, tight).unwrap();
    let (grows0, slots0, records0) = (t.list_grows(), t.slot_capacity(), t.record_capacity());
    for round in 0..8 {
        a.run(50);
        t.run(50);
        let (sa, st) = (a.snapshot().into_owned(), t.snapshot().into_owned());
        assert!(sa.pos == st.pos, "positions differ after round {round}");
        assert!(sa.vel == st.vel, "velocities differ after round {round}");
        assert!(sa.omega == st.omega, "spins differ after round {round}");
    }
    eprintln!(
        "grows {grows0} at start, {} at the end; slots {slots0} -> {}, records {records0} -> {}",
        t.list_grows(),
        t.slot_capacity(),
        t.record_capacity()
    );
    assert!(t.slot_capacity() > slots0, "the slots grew mid-run");
    assert!(t.record_capacity() > records0, "the list grew mid-run");
    assert_eq!(a.rebuild_steps(), t.rebuild_steps());
    let (sa, st) = (a.state(), t.state());
    assert!(!sa.slots.is_empty(), "pairs in contact at the end");
    assert_eq!(sa.nbr_j, st.nbr_j, "the list");
    assert_eq!(sa.nbr_slot, st.nbr_slot, "records in contact");
    let bits = |h: &[f32]| h.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(
        bits(&sa.history) == bits(&st.history),
        "tangential history differs"
    );
}

/// `gather_kick`, the gather and the second half-step in one pass, gives the bits of the two
/// passes it replaces: a settling box with walls and friction, 300 steps, positions,
/// velocities, spins, orientations, gathered forces and torques, and the energy ledger.
#[test]
fn the_fused_gather_and_kick_give_the_bits_of_the_two_passes() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box_spaced(41, 1.02e-3);
    let two = GpuOptions {
        fuse_gather_kick: false,
        ..GpuOptions::default()
    };
    let mut a = GpuBackend::with_options(world.clone(), &ctx, GpuOptions::default()).unwrap();
    let mut b = GpuBackend::with_options(world, &ctx, two).unwrap();
    for round in 0..3 {
        a.run(100);
        b.run(100);
        let (sa, sb) = (a.snapshot().into_owned(), b.snapshot().into_owned());
        assert!(sa.pos == sb.pos, "positions differ after round {round}");
        assert!(sa.vel == sb.vel, "velocities differ after round {round}");
        assert!(sa.omega == sb.omega, "spins differ after round {round}");
        assert!(
            sa.quat == sb.quat,
            "orientations differ after round {round}"
        );
        assert!(sa.force == sb.force, "forces differ after round {round}");
        assert!(sa.torque == sb.torque, "torques differ after round {round}");
    }
    assert!(a.contacts().pairs > 0, "pairs in contact");
    let (ea, eb) = (a.energy(), b.energy());
    assert_eq!(ea.kinetic.to_bits(), eb.kinetic.to_bits(), "kinetic energy");
    assert_eq!(
        ea.damping_dissipated.to_bits(),
        eb.damping_dissipated.to_bits(),
        "damping dissipation"
    );
    assert_eq!(
        ea.friction_dissipated.to_bits(),
        eb.friction_dissipated.to_bits(),
        "friction dissipation"
    );
}

/// The particle pairs in contact (the backend's contact records, walls and bonds left out),
/// each once as (lower, higher) particle.
fn pairs_in_contact(b: &mut GpuBackend) -> std::collections::BTreeSet<(u32, u32)> {
    b.contact_records()
        .iter()
        .filter(|c| !c.bond && c.j >= 0)
        .map(|c| (c.i.min(c.j as u32), c.i.max(c.j as u32)))
        .collect()
}

/// A pair keeps its packed slot while in contact and gives it back when it parts; pairs that
/// come into contact take the slots given back before new ones. In a granular gas, where
/// pairs collide and part all the time, the slots ever taken stay far below the collisions
/// seen (without reuse they would be at least as many), and a run whose slots grow mid-step
/// (the PENDING records taken up again) gives the bits of one that never grows. (Against the
/// CPU, a gas's collisions grow one-ulp differences into other collisions within 2000 steps;
/// the pass parity and the scene tests compare the two.)
#[test]
fn parted_pairs_give_their_slots_back_for_the_next_collisions() {
    let Some(ctx) = gpu_context() else { return };
    let world = periodic_gas(53);
    let mut g = gpu(world.clone(), &ctx);
    // Records and slots to spare from the start: this run never grows them, where `g` starts
    // with a workgroup's worth of slots and grows them as the collisions need.
    let ample = GpuOptions {
        initial_records_per_particle: 16,
        initial_slots_per_particle: 8,
        ..GpuOptions::default()
    };
    let mut t = GpuBackend::with_options(world, &ctx, ample).unwrap();
    let (mut before, mut collisions, mut most) = (pairs_in_contact(&mut g), 0, 0);
    for _ in 0..200 {
        g.run(10);
        t.run(10);
        let now = pairs_in_contact(&mut g);
        collisions += now.difference(&before).count();
        most = most.max(now.len());
        before = now;
    }
    let taken = g.slots_taken().unwrap() as usize;
    eprintln!("{collisions} collisions seen, at most {most} pairs in contact, {taken} slots taken");
    assert!(
        most > 0 && collisions > 4 * taken,
        "{collisions} collisions, {taken} slots"
    );
    let gs = g.state();
    let ts = t.state();
    // `g` began with 64 slots: taking more froze a step, whose PENDING records took theirs
    // once the slots had grown.
    assert!(taken > 64 && g.list_grows() > 0, "the slots grew");
    assert_eq!(t.list_grows(), 0, "the ample run's slots never grew");
    assert!(
        ts.pos == gs.pos && ts.vel == gs.vel,
        "the bits of the run that grew"
    );
    assert!(
        ts.nbr_slot == gs.nbr_slot,
        "pairs in contact in the run that grew"
    );
}
