//! The step's schedule, built from the world, lists the passes each shipped scene needs and no
//! others; both backends walk it (the GPU's plan records a dispatch per pass, the CPU runs
//! them in the same order), and `gpu::` checks their results against each other.

use grains_core::schedule::{Pass, Schedule};
use grains_tests::workspace_root;

fn schedule_of(scene: &str) -> Schedule {
    let path = workspace_root().join("scenes").join(scene);
    let scene = grains_scene::load_scene(&path).unwrap_or_else(|e| panic!("{e}"));
    Schedule::of(&scene.world)
}

#[test]
fn each_scene_gets_the_passes_it_needs() {
    use Pass::*;
    // A bed of spheres: the first half, the gather and the second half, fused by either
    // backend as nothing comes between them.
    let settle = schedule_of("settle.toml");
    assert_eq!(settle.head, [IntegrateFirstHalf]);
    assert!(settle.after_gather.is_empty() && settle.booked.is_empty());
    assert!(settle.gather_meets_kick());
    // Clumps: members placed after the drift, bodies gathering their members' forces.
    let clumps = schedule_of("clumps.toml");
    assert_eq!(clumps.head, [IntegrateFirstHalf, ClumpPlace]);
    assert_eq!(clumps.after_gather, [ClumpGather]);
    assert!(!clumps.gather_meets_kick());
    // A shell: its three passes after the gather, in order.
    let cell = schedule_of("cell_on_floor.toml");
    assert_eq!(cell.after_gather, [ShellVolume, ShellEdges, ShellGather]);
    assert!(cell.after_gather.iter().all(|p| p.adds_to_gathered()));
    // A turning drum: its walls moved in the head, their power after the gather.
    let drum = schedule_of("drum.toml");
    assert_eq!(drum.head, [IntegrateFirstHalf, WallMotion]);
    assert_eq!(drum.after_gather, [WallPower]);
    assert!(!WallPower.adds_to_gathered());
    // Kinematic particles pulled apart: their work booked in each step.
    let adhesion = schedule_of("adhesion.toml");
    assert_eq!(adhesion.booked, [KinematicPower]);
    // The neighbour list's chains come first.
    for s in [&settle, &clumps, &cell, &drum, &adhesion] {
        let step = s.step();
        assert_eq!(step.first(), Some(&Some(IntegrateFirstHalf)));
        assert_eq!(step.last(), Some(&Some(IntegrateSecondHalf)));
        assert_eq!(
            step.iter().filter(|p| p.is_none()).count(),
            1,
            "one span of chains"
        );
    }
}

/// The chains run the neighbour list's first, each chain once.
#[test]
fn the_list_chains_lead() {
    let path = workspace_root().join("scenes/springs.toml");
    let scene = grains_scene::load_scene(&path).unwrap_or_else(|e| panic!("{e}"));
    let s = Schedule::of(&scene.world);
    let chains = &scene.world.table.chains;
    let mut seen = s.chains.clone();
    seen.sort();
    assert_eq!(seen, (0..chains.len() as u32).collect::<Vec<_>>());
    let listed: Vec<bool> = s
        .chains
        .iter()
        .map(|&c| chains[c as usize].source.in_list())
        .collect();
    assert!(listed.windows(2).all(|w| w[0] >= w[1]), "{listed:?}");
    assert!(listed.contains(&false), "springs has bonds on fixed pairs");
}
