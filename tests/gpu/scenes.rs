//! Whole scenes run on both backends: positions, velocities, contacts and rebuilds compared.

use super::*;

/// Run both backends `steps` steps; compare positions and velocities per particle, the
/// candidate pairs and the rebuild steps.
fn scene_parity(
    name: &str,
    world: World,
    ctx: &GpuContext,
    steps: u64,
    opts: GpuOptions,
    (pos_tol, vel_tol): (f32, f32),
) {
    let mut c = cpu(world.clone());
    let mut g = GpuBackend::with_options(world, ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    c.run(steps);
    g.run(steps);
    assert_eq!(g.counters().steps, steps);
    assert_eq!(
        c.rebuild_steps(),
        g.rebuild_steps(),
        "{name}: rebuild steps differ"
    );
    let cp = c.candidate_pairs();
    let gp = g.candidate_pairs();
    assert_eq!(cp.len(), gp.len(), "{name}: candidate pair count");
    assert!(cp == gp, "{name}: candidate pairs differ");
    let gs = g.snapshot();
    let cs = c.snapshot().into_owned();
    // Positions to `pos_tol` of the domain size, velocities to `vel_tol` of the largest speed:
    // the backends differ by an ulp here and there (the driver may fuse a multiply-add), and
    // contacts amplify such differences, a dilute gas the most (each collision multiplies them).
    let size = (0..3)
        .map(|k| c.world.domain.max[k] - c.world.domain.min[k])
        .fold(0.0f64, f64::max) as f32;
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    let (dv, sv) = max_diff4(&cs.vel, &gs.vel);
    eprintln!(
        "{name}: {} particles, {} rebuilds, {} pairs, max |dx| {dx:e} m (domain {size}), max |dv| {dv:e} m/s (max |v| {sv})",
        cs.pos.len(),
        c.rebuild_steps().len(),
        cp.len()
    );
    assert!(dx <= pos_tol * size, "{name}: position diff {dx}");
    assert!(
        dv <= vel_tol * sv,
        "{name}: velocity diff {dv} (scale {sv})"
    );
}

#[test]
fn scene_two_spheres_head_on() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "two spheres",
        two_spheres(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-6, 1e-4),
    );
}

#[test]
fn scene_sphere_on_a_plane() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "sphere on plane",
        sphere_on_plane(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-6, 1e-4),
    );
}

#[test]
fn scene_settling_box() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "settling box",
        settling_box(11),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
}

#[test]
fn scene_periodic_gas() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "periodic gas",
        periodic_gas(13),
        &ctx,
        500,
        GpuOptions::default(),
        // Measured on lavapipe: 7.5e-5 of the box and 2e-3 of the top speed after 500 steps,
        // from one-ulp differences first seen at step 7 in a tangential spring.
        (3e-4, 1e-2),
    );
}

/// The settling box with fixed pairs (the fixed-topology source) running the box's own chain:
/// lattice neighbours along x, listed in both orders so that the gather meets both sides, and
/// a sphere with fixed slots on either side.
fn settling_box_with_fixed_pairs(seed: u64, spacing: f64) -> World {
    let w = settling_box_spaced(seed, spacing);
    let n = w.particles.len() as u32;
    let pairs: Vec<[u32; 2]> = (0..n - 1)
        .step_by(3)
        .flat_map(|i| [[i, i + 1], [i + 2, i + 1]])
        .filter(|p| p[0] < n && p[1] < n)
        .collect();
    w.with_fixed_pairs(pairs, vec![full_chain()])
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Fixed pairs on the GPU: their slots after the first force evaluation equal the CPU's, a
/// scene with them matches the CPU after 500 steps, and a CPU state with them resumes on the
/// GPU.
#[test]
fn fixed_pairs_match_cpu() {
    let Some(ctx) = gpu_context() else { return };
    // A lattice compressed by 2e-6 m (0.4 % of a radius): fixed pairs touch from the start.
    let world = settling_box_with_fixed_pairs(19, 0.998e-3);
    let nf = world.fixed_pairs.len();
    let c = cpu(world.clone());
    let g = gpu(world.clone(), &ctx);
    let slots: Vec<PairSlot> = g.read_buffer("fixed_slots", nf).unwrap();
    let fmax = c
        .fixed_slots
        .iter()
        .flat_map(|s| s.force)
        .fold(0.0f32, |a, x| a.max(x.abs()));
    assert!(fmax > 0.0, "some fixed pairs touch at the start");
    // Resolver, three laws and assembly, each within its own 1e-5: 1e-4 of the largest force.
    for (k, (a, b)) in c.fixed_slots.iter().zip(&slots).enumerate() {
        for d in 0..3 {
            assert!(
                (a.force[d] - b.force[d]).abs() <= 1e-4 * fmax,
                "fixed slot {k}: {:?} vs {:?}",
                a.force,
                b.force
            );
        }
    }
    // The settling box of `scene_settling_box`, with its tolerances: a jammed lattice with
    // doubled contacts amplifies ulp differences beyond them within 500 steps (measured: 2.9e-3
    // of the top speed, against 5e-4 without the fixed pairs), from forces that agree to 1.4e-7
    // at the start.
    let world = settling_box_with_fixed_pairs(11, 1.15e-3);
    scene_parity(
        "settling box with fixed pairs",
        world.clone(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
    let mut c = cpu(world.clone());
    c.run(201);
    // At an odd step the packed history lives in the second of the GPU's two history buffers:
    // the state reads back exactly as it went in, and the next steps read it from there.
    let state = c.state();
    assert!(!state.history.is_empty(), "pairs in contact at step 201");
    let mut g = GpuBackend::from_state(world, &ctx, &state).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        g.state() == state,
        "the GPU's state after resuming at step 201"
    );
    c.run(100);
    g.run(100);
    let (gs, cs) = (g.snapshot(), c.snapshot().into_owned());
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    assert!(
        dx <= 1e-5 * 1.6e-2,
        "resumed on the GPU: position diff {dx}"
    );
    let ge = g.energy();
    let ce = c.energy();
    assert!(
        (ge.elastic - ce.elastic).abs() <= 1e-3 * ce.elastic.abs() + 1e-15,
        "elastic energy {} vs {}",
        ge.elastic,
        ce.elastic
    );
}

/// The settling box with a chain of the law library in every slot (gonthier, a dashpot,
/// regularised Coulomb friction, spring-slider rolling, torsional friction, and linear adhesion
/// with lubrication in the extra list) between two particle materials, and EEPA against the
/// walls: the same 500 steps on both backends, within `scene_settling_box`'s tolerances.
#[test]
fn scene_with_the_law_library() {
    let Some(ctx) = gpu_context() else { return };
    let world = law_library_world();
    // One library chain serves the three particle pairs, one EEPA chain the walls.
    assert_eq!(world.table.chains.len(), 2, "{:?}", world.table.chains);
    scene_parity(
        "law library",
        world,
        &ctx,
        500,
        GpuOptions::default(),
        // Ten times the settling box's: its chains hold pow, exp and atan2 (EEPA, Gonthier,
        // lubrication), which a conforming adapter rounds to several ulp where lavapipe gives
        // the CPU's bits. Measured on an H100 (Vulkan): 3.3e-5 of the domain and 7.9e-3 of the
        // top speed; a wrong law moves particles by their overlaps, about 1e-2 of the domain.
        (1e-4, 3e-2),
    );
}

/// The world of [`scene_with_the_law_library`].
fn law_library_world() -> World {
    use grains_core::kernels::laws::eepa::EepaSpec;
    use grains_core::kernels::laws::haff_werner::ViscousCoulombSpec;
    use grains_core::kernels::laws::hunt_crossley::ImpactSpec;
    use grains_core::kernels::laws::linear_adhesion::LinearAdhesionSpec;
    use grains_core::kernels::laws::linear_damper::NormalDashpotSpec;
    use grains_core::kernels::laws::lubrication::LubricationSpec;
    use grains_core::kernels::laws::rolling_spring::RollingSpringSpec;
    use grains_core::kernels::laws::torsional_coulomb::TorsionalCoulombSpec;
    use grains_core::materials::Interaction;
    use grains_core::LawSpec;
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let p = lattice_particles(lo, hi, 0.5e-3, 1.15e-3, 2500.0, 0.2, 20.0, 23);
    let mut particles = p;
    // Half the particles of a second material.
    for (k, m) in particles.material.iter_mut().enumerate() {
        *m = (k % 2) as u32;
    }
    let library = vec![
        LawSpec::Gonthier(ImpactSpec {
            restitution: 0.4,
            exponent: 1.5,
            stiffness: None,
            min_impact_velocity: 0.01,
            damping: 0.0,
        }),
        LawSpec::LinearDamperOverlap(NormalDashpotSpec { damping: 1e-4 }),
        LawSpec::RegularizedCoulomb(ViscousCoulombSpec {
            friction: 0.4,
            damping: 0.0,
            regularization_velocity: 1e-3,
        }),
        LawSpec::RollingSpring(RollingSpringSpec {
            rolling_friction: 0.05,
            rolling_stiffness: None,
            rolling_damping: 0.3,
        }),
        LawSpec::TorsionalCoulomb(TorsionalCoulombSpec {
            torsional_friction: 0.1,
            damping: 1e3,
        }),
        LawSpec::LinearAdhesion(LinearAdhesionSpec {
            detach_force: 1e-5,
            detach_length: 1e-5,
        }),
        LawSpec::Lubrication(LubricationSpec {
            viscosity: 1e-3,
            min_gap: 1e-6,
            max_gap: 5e-5,
        }),
    ];
    let eepa = vec![LawSpec::Eepa(EepaSpec {
        plasticity_ratio: 0.5,
        stiffness: None,
        exponent: 1.5,
        adhesion_stiffness: 1e2,
        adhesion_exponent: 1.0,
        pull_off_force: 1e-6,
    })];
    // The walls are a third material, met with EEPA.
    let mut walls = box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    for w in walls.iter_mut() {
        w.material = 2;
    }
    let world = World::new(
        particles,
        walls,
        vec![
            material("a", 1e7, 2500.0),
            material("b", 2e7, 2500.0),
            material("wall", 1e7, 2500.0),
        ],
        vec![
            Interaction::new(0, 0, library.clone()),
            Interaction::new(1, 1, library.clone()),
            Interaction::new(0, 1, library),
            Interaction::new(0, 2, eepa.clone()),
            Interaction::new(1, 2, eepa),
        ],
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    world
}

/// Two materials with three different chains (and a wall material with a fourth): the
/// per-material-pair table and each chain kernel's CHAIN_ID filter must route every pair to
/// its own laws on the GPU exactly as on the CPU.
#[test]
fn scene_two_materials_several_chains() {
    use grains_core::materials::Interaction;
    let Some(ctx) = gpu_context() else { return };
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let mut p = lattice_particles(lo, hi, 0.5e-3, 1.2e-3, 2500.0, 0.2, 20.0, 29);
    // Every third particle becomes the second material (heavier, stiffer).
    for (k, m) in p.material.iter_mut().enumerate() {
        if k % 3 == 0 {
            *m = 1;
            p.mass[k] *= 3.0;
            p.inertia[k] *= 3.0;
            p.vel[k][3] /= 3.0;
            p.omega[k][3] /= 3.0;
        }
    }
    let glass = material("glass", 1e7, 2500.0);
    let steel = material("steel", 5e7, 7500.0);
    let cs = |mu: f64| cundall_strack(mu, mu, TangentialStiffness::Mindlin);
    let interactions = vec![
        Interaction::new(0, 0, vec![hertz(), viscous(0.5), cs(0.5)]),
        Interaction::new(1, 1, vec![linear(None), viscous(0.8)]),
        Interaction::new(0, 1, vec![hertz_damped(1e-6), cs(0.3)]),
    ];
    let mut walls = box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    for w in &mut walls {
        w.material = 1;
    }
    let world = World::new(
        p,
        walls,
        vec![glass, steel],
        interactions,
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        world.table.chains.len() >= 5,
        "expected distinct sphere and wall chains, got {:?}",
        world.table.chains
    );
    scene_parity(
        "two materials",
        world,
        &ctx,
        400,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
}
