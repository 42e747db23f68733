//! Pair sources (CPU): the fixed-topology source runs any chain exactly as the neighbour list
//! does, its slots are gathered on both bodies, its state survives a checkpoint, and bad fixed
//! pairs are refused with a reason. The GPU side is in `gpu` (`fixed_pairs_match_cpu`).

use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::kernels::sources::neighbour::FarSlot;
use grains_core::materials::Interaction;
use grains_core::{Backend, CoreError, CpuBackend, Particles, World};
use grains_tests::worlds::*;

fn cpu(world: World) -> CpuBackend {
    CpuBackend::new(world).unwrap_or_else(|e| panic!("{e}"))
}

/// Two glass spheres of radius 1 mm approaching head on at 0.5 m/s each, `gap` (m) apart,
/// with an offset and a spin so that tangential and rotational terms are exercised.
fn head_on(inter: Interaction, gap: f64) -> World {
    let r = 1e-3;
    let x = r + 0.5 * gap;
    let mut p = Particles::default();
    p.push_sphere(
        [-x, 0.0, 0.0],
        r,
        [0.5, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    p.push_sphere(
        [x, 2e-5, 0.0],
        r,
        [-0.5, 0.0, 0.0],
        [0.0, 0.0, 50.0],
        0,
        2500.0,
        false,
    );
    world(
        p,
        vec![],
        material("glass", 1e7, 2500.0),
        inter,
        open_domain(0.01),
        [0.0; 3],
        1e-6,
        2e-4,
    )
}

fn full_chain() -> Interaction {
    self_interaction(
        hertz(),
        Some(0.5),
        Some((0.5, 0.5)),
        TangentialStiffness::Mindlin,
    )
}

/// The same chain on a fixed pair and on the neighbour list gives the very same slot, and the
/// gather adds it on both bodies with opposite signs: the total is exactly twice the contact's.
#[test]
fn a_fixed_pair_evaluates_its_chain_as_the_neighbour_list_does() {
    // Overlapping by 1e-5 m at the start, so the first force evaluation has a contact.
    let plain = cpu(head_on(full_chain(), -1e-5));
    let doubled = cpu(head_on(full_chain(), -1e-5)
        .with_fixed_pairs(vec![[0, 1]], vec![full_chain()])
        .unwrap_or_else(|e| panic!("{e}")));
    let n = plain.pos.len() as u32;
    let owning = plain
        .list
        .pair_j
        .iter()
        .position(|&j| j < n)
        .expect("the pair is a candidate");
    // The pair's packed slot, through its record's flag.
    let slot = |b: &CpuBackend| {
        let r = owning;
        let a = b.nbr_slot[r] as usize;
        assert!(a > 0, "the pair has a slot");
        b.slots[a - 1]
    };
    assert_ne!(slot(&plain).force, [0.0; 3], "the spheres touch");
    assert_eq!(doubled.fixed_slots.len(), 1);
    // The CPU keeps of a list pair's slot what the other side reads (`FarSlot`).
    let kept = FarSlot::of(&doubled.fixed_slots[0], false);
    assert_eq!(kept, slot(&plain), "fixed slot");
    assert_eq!(slot(&doubled), slot(&plain), "contact slot");
    for p in 0..2 {
        for k in 0..3 {
            assert_eq!(doubled.force[p][k], 2.0 * plain.force[p][k], "force {p}");
            assert_eq!(doubled.torque[p][k], 2.0 * plain.torque[p][k], "torque {p}");
        }
    }
    assert_eq!(
        doubled.world.table.chains.len(),
        2,
        "a contact and a fixed chain"
    );
    assert_eq!(
        doubled.world.table.chains[1].name(),
        "fixed__sphere_sphere__hertz__viscous__cundall_strack"
    );
}

/// Two linear springs of stiffness k, one a contact and one a fixed pair, are one spring of
/// 2k: the collision runs bitwise the same (every term scales by an exact power of two), and
/// the energy ledger holds the elastic energy of both slots.
#[test]
fn a_contact_and_a_fixed_spring_add_up_to_one_spring_of_twice_the_stiffness() {
    let k = 2.0e3;
    let spring =
        |k: f64| self_interaction(linear(Some(k)), None, None, TangentialStiffness::Mindlin);
    let mut two = cpu(head_on(spring(k), 2e-5)
        .with_fixed_pairs(vec![[0, 1]], vec![spring(k)])
        .unwrap_or_else(|e| panic!("{e}")));
    let mut one = cpu(head_on(spring(2.0 * k), 2e-5));
    let mut peak = 0.0f64;
    for step in 0..4000 {
        two.step();
        one.step();
        assert_eq!(two.pos, one.pos, "positions at step {step}");
        assert_eq!(two.vel, one.vel, "velocities at step {step}");
        let (e2, e1) = (two.energy(), one.energy());
        assert_eq!(e2.elastic, e1.elastic, "elastic energy at step {step}");
        peak = peak.max(e1.elastic);
    }
    assert!(peak > 0.0, "the spheres met");
    assert_eq!(two.contacts().fixed, 0, "apart again at the end");
    // They separated: the collision is complete, at the speed they came in with.
    assert!(one.vel[0][0] < -0.49, "rebound {}", one.vel[0][0]);
}

/// A state with fixed pairs resumes bitwise (their history and slots are state arrays).
#[test]
fn fixed_pairs_survive_a_checkpoint() {
    // A row of five spheres in contact, bonded in a chain: each inner sphere has two fixed
    // slots, on either side of its pairs.
    let r = 1e-3;
    let mut p = Particles::default();
    for i in 0..5 {
        let v = if i == 0 { 0.3 } else { 0.0 };
        p.push_sphere(
            [i as f64 * 1.99e-3, 1e-5 * i as f64, 0.0],
            r,
            [v, 0.0, 0.0],
            [0.0, 0.0, 10.0 * i as f64],
            0,
            2500.0,
            false,
        );
    }
    let pairs = vec![[0, 1], [2, 1], [2, 3], [3, 4]];
    let w = world(
        p,
        vec![],
        material("glass", 1e7, 2500.0),
        full_chain(),
        open_domain(0.02),
        [0.0; 3],
        1e-6,
        2e-4,
    )
    .with_fixed_pairs(pairs, vec![full_chain()])
    .unwrap_or_else(|e| panic!("{e}"));
    let mut straight = cpu(w.clone());
    let mut first = cpu(w.clone());
    straight.run(600);
    first.run(300);
    let state = first.state();
    assert_eq!(state.fixed_slots.len(), 4);
    assert!(
        state.fixed_history.iter().any(|&h| h != 0.0),
        "tangential springs loaded"
    );
    // A damaged record index is refused with the entry named, not run with mixed-up pairs.
    let mut damaged = state.clone();
    let owners: Vec<u32> =
        grains_core::kernels::passes::pair_record::entry_owners(&damaged.nbr_start).collect();
    let k = (0..damaged.nbr_pair.len())
        .find(|&k| owners[k] < damaged.nbr_j[k])
        .expect("an owning entry");
    damaged.nbr_pair[k] += 1;
    let e = CpuBackend::from_state(w.clone(), damaged)
        .err()
        .expect("a damaged record index");
    assert!(
        e.to_string()
            .contains(&format!("entry {k} of the neighbour list names record")),
        "{e}"
    );
    // So is a record naming another's packed slot and history: they are in record order.
    let mut damaged = state.clone();
    let r = damaged
        .nbr_slot
        .iter()
        .position(|&a| a != 0)
        .expect("a list pair in contact");
    damaged.nbr_slot[r] += 1;
    let e = CpuBackend::from_state(w.clone(), damaged)
        .err()
        .expect("a damaged slot flag");
    assert!(
        e.to_string().contains(&format!("record {r} names slot")),
        "{e}"
    );
    let mut resumed = CpuBackend::from_state(w, state).unwrap_or_else(|e| panic!("{e}"));
    resumed.run(300);
    assert_eq!(resumed.state(), straight.state());
}

/// A fixed pair naming a missing particle, or one particle twice, is refused; so is a fixed
/// pair whose materials no fixed interaction joins, with the pair named.
#[test]
fn bad_fixed_pairs_are_refused_with_a_reason() {
    let e = head_on(full_chain(), 1e-5)
        .with_fixed_pairs(vec![[0, 1], [1, 7]], vec![full_chain()])
        .expect_err("particle 7 does not exist");
    assert!(matches!(e, CoreError::BadFixedPair { index: 1, .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("fixed pair 1 joins particles 1 and 7") && msg.contains("2 particles"),
        "{msg}"
    );
    let e = head_on(full_chain(), 1e-5)
        .with_fixed_pairs(vec![[1, 1]], vec![full_chain()])
        .expect_err("a particle with itself");
    assert!(matches!(e, CoreError::BadFixedPair { index: 0, .. }), "{e}");
    let e = head_on(full_chain(), 1e-5)
        .with_fixed_pairs(vec![[0, 1]], vec![])
        .expect_err("no fixed interaction");
    let msg = e.to_string();
    assert!(
        msg.contains("the fixed pair of particles 0") && msg.contains("\"glass\""),
        "{msg}"
    );
}

/// The wall source's range for an invocation (the CPU twin of `source_range` in
/// `shaders/sources/wall.wgsl`) is exactly the tail of the particle's records that are walls
/// (`q >= n_particles`): none for a particle with only particle partners, all of a range of
/// walls only, none for an empty range.
#[test]
fn the_wall_source_range_is_the_tail_of_walls() {
    use grains_core::kernel_types::StepParams;
    use grains_core::kernels::sources::wall::source_range;
    let step = StepParams {
        n_particles: 10,
        ..Default::default()
    };
    // Particle 0: partners 3, 7 then walls 10, 12; particle 1: partner 5 only; particle 2:
    // walls only; particle 3: nothing.
    let pair_j = [3, 7, 10, 12, 5, 11, 13];
    let pair_start = [0, 4, 5, 7, 7];
    assert_eq!(source_range(0, &step, &pair_start, &pair_j), 2..4);
    assert_eq!(source_range(1, &step, &pair_start, &pair_j), 5..5);
    assert_eq!(source_range(2, &step, &pair_start, &pair_j), 5..7);
    assert_eq!(source_range(3, &step, &pair_start, &pair_j), 7..7);
}
