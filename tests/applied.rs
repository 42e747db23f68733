//! Forces applied to particles and particles fixed or released between steps
//! (`Backend::apply_forces`, `Backend::set_fixed`): the `applied_power` pass against its WGSL
//! twin, closed forms and the ledger on both backends, a load on a floor, checkpoints, the
//! rebuild of a backend with the capability turned on, and refusals.

use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::materials::Interaction;
use grains_core::{Backend, CoreError, CpuBackend, Domain, Particles, World};
use grains_tests::worlds::*;

const EPS: f64 = f32::EPSILON as f64;

/// A backend of `w` on the CPU, and one on the GPU where there is an adapter (lavapipe
/// counts; under CI one is required).
fn backends(w: World) -> Vec<Box<dyn Backend>> {
    let mut out: Vec<Box<dyn Backend>> = vec![Box::new(cpu(w.clone()))];
    if let Some(ctx) = crate::gpu::gpu_context() {
        let g = grains_gpu::GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
        out.push(Box::new(g));
    }
    out
}

fn cpu(w: World) -> CpuBackend {
    CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"))
}

/// The box `[-h, h]^2 x [0, 2h]` (m): its floor is the domain's, so gravitational energy is
/// small beside the work the tests book.
fn floor_domain(h: f64) -> Domain {
    Domain {
        min: [-h, -h, 0.0],
        max: [h, h, 2.0 * h],
        periodic: [false; 3],
    }
}

/// Hertz with a viscous dashpot of restitution `e`, material 0 with itself.
fn hertz_viscous(e: f64) -> Interaction {
    self_interaction(hertz(), Some(e), None, TangentialStiffness::Mindlin)
}

/// One sphere (r = 1 mm, 2500 kg/m^3) at rest at `x0`, without gravity or contacts, in a world
/// holding applied forces.
fn lone_sphere(x0: [f64; 3], dt: f64) -> World {
    let mut p = Particles::default();
    p.push_sphere(x0, 1e-3, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    let mut w = world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        hertz_only(),
        open_domain(1.0),
        [0.0; 3],
        dt,
        2e-4,
    );
    w.applied_forces = true;
    w
}

/// One sphere without gravity or contacts under a constant applied force F from rest, n steps
/// of dt: velocity Verlet is exact for a constant force, `v = F t / m`, `x = x0 + F t^2/(2m)`
/// (m the mass whose inverse the particle carries), so the tolerance is f32's rounding. Each
/// of the 2n half-kicks adds the same f32 increment (itself within 2 eps of `F dt / 2m`),
/// rounded by at most half an ulp of the velocity: the velocity is within (n + 2) eps of
/// itself. The drift is Kahan-compensated: the displacement is within (n + 3) eps of itself,
/// plus 2 ulps of the coordinate. The ledger: each half-kick's rounding moves the kinetic
/// energy by up to `m v ulp(v) / 2` that `F . v dt` does not book, so the total stays within
/// (2n + 8) eps of the kinetic energy of its start (0), which grows to F^2 t^2/(2m) (within
/// 2(n + 2) eps). Then a zero force: the velocity stays as it is, bit for bit, the position
/// moves by it, and the total stays where it was, bit for bit.
#[test]
fn a_constant_force_gives_the_closed_form_and_a_closed_ledger_on_both_backends() {
    let x0 = [0.01, -0.02, 0.03];
    let dt = 1e-5;
    let f = [2e-4f32, -1e-4, 5e-5];
    let n = 1000u64;
    for mut b in backends(lone_sphere(x0, dt)) {
        let name = b.name();
        let s = b.snapshot();
        let (x0, inv_m) = (s.pos[0], s.vel[0][3] as f64);
        let e0 = b.energy().total;
        b.apply_forces(&[0], &[f]).unwrap_or_else(|e| panic!("{e}"));
        b.run(n);
        let t = n as f64 * (dt as f32) as f64;
        let s = b.snapshot().into_owned();
        let (mut worst_v, mut worst_x) = (0.0f64, 0.0f64);
        for k in 0..3 {
            let a = f[k] as f64 * inv_m;
            let (v, d) = (a * t, 0.5 * a * t * t);
            let dv = (s.vel[0][k] as f64 - v).abs();
            let dx = (s.pos[0][k] as f64 - (x0[k] as f64 + d)).abs();
            let tol_v = (n + 2) as f64 * EPS * v.abs();
            let tol_x = (n + 3) as f64 * EPS * d.abs() + 2.0 * EPS * x0[k].abs() as f64;
            assert!(
                dv <= tol_v,
                "{name}: v[{k}] off by {dv:e} (tolerance {tol_v:e})"
            );
            assert!(
                dx <= tol_x,
                "{name}: x[{k}] off by {dx:e} (tolerance {tol_x:e})"
            );
            worst_v = worst_v.max(dv / v.abs());
            worst_x = worst_x.max(dx / d.abs());
        }
        let f2: f64 = f.iter().map(|&c| (c as f64).powi(2)).sum();
        let ke = 0.5 * f2 * t * t * inv_m;
        let e = b.energy();
        let (dke, drift) = ((e.kinetic - ke).abs(), (e.total - e0).abs());
        assert!(
            dke <= 2.0 * (n + 2) as f64 * EPS * ke,
            "{name}: kinetic {:e} against {ke:e}",
            e.kinetic
        );
        assert!(
            drift <= (2 * n + 8) as f64 * EPS * ke,
            "{name}: the total moved by {drift:e} of a kinetic energy {ke:e}"
        );
        println!(
            "{name}: after {n} steps, velocity within {worst_v:.1e}, displacement within \
             {worst_x:.1e} (relative), kinetic energy within {:.1e}, total within {:.1e} of it",
            dke / ke,
            drift / ke
        );
        // Cleared: no more acceleration, nothing more booked.
        b.apply_forces(&[0], &[[0.0; 3]])
            .unwrap_or_else(|e| panic!("{e}"));
        let v = s.vel[0];
        b.run(100);
        let after = b.snapshot().into_owned();
        assert_eq!(after.vel[0], v, "{name}: a cleared force still accelerates");
        let moved = after.pos[0][0] as f64 - s.pos[0][0] as f64;
        let want = 100.0 * v[0] as f64 * (dt as f32) as f64;
        assert!(
            (moved - want).abs() <= 1e-5 * want,
            "{name}: coasted {moved:e}, expected {want:e}"
        );
        assert_eq!(
            b.energy().total,
            e.total,
            "{name}: a cleared force booked work"
        );
    }
}

/// A sphere on a floor (linear spring of stiffness k, a viscous dashpot to settle it) pushed
/// down by an applied force F besides its weight settles at the overlap where the spring holds
/// both: `k delta = F + m g` (k = 1000 N/m, F = 10 mN: 10 um). The dashpot's envelope decays as
/// `exp(-zeta omega t)` (restitution 0.2: zeta = 0.46, omega = 9.8e3 rad/s), 2e-10 of the first
/// overshoot after the 5 ms run; the overlap is a difference of f32 positions near 1 mm (1.2e-10
/// m an ulp), so within 1e-4 of itself. The ledger closes within the dashpot's integration
/// error, 1e-3 of the applied force's work.
#[test]
fn a_sphere_pushed_onto_a_floor_settles_where_the_spring_holds_the_load() {
    let (r, k, fz, g, dt) = (1e-3, 1e3, 1e-2, 9.81, 4e-6);
    let mut p = Particles::default();
    p.push_sphere([0.0, 0.0, r], r, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    let laws = vec![linear(Some(k)), viscous(0.2)];
    let mut w = world(
        p,
        vec![wall([0.0; 3], [0.0, 0.0, 1.0])],
        material("m", 1e7, 2500.0),
        Interaction::new(0, 0, laws),
        floor_domain(0.01),
        [0.0, 0.0, -g],
        dt,
        0.2 * r,
    );
    w.applied_forces = true;
    let mut b = cpu(w);
    let m = 1.0 / b.vel[0][3] as f64;
    let e0 = b.energy().total;
    b.apply_forces(&[0], &[[0.0, 0.0, -fz as f32]])
        .unwrap_or_else(|e| panic!("{e}"));
    b.run(1250);
    let delta = r - b.pos[0][2] as f64;
    let want = (fz + m * g) / k;
    let rel = (delta - want).abs() / want;
    assert!(
        rel <= 1e-4,
        "overlap {delta:e} m against {want:e} m ({rel:.1e})"
    );
    assert!(b.vel[0][2].abs() < 1e-8, "still moving: {:?}", b.vel[0]);
    let e = b.energy();
    let drift = (e.total - e0).abs();
    assert!(
        drift <= 1e-3 * e.kinematic_work.abs(),
        "the total moved by {drift:e} J of {:e} J of applied work",
        e.kinematic_work
    );
    println!(
        "overlap {delta:e} m against {want:e} m ({rel:.1e}); ledger within {:.1e} of the work",
        drift / e.kinematic_work.abs()
    );
}

/// Sphere A (free in the scene) fixed between steps with velocity v pushes sphere B, resting
/// on a floor, off along it, then is released. A moves at exactly v (its velocity bit for bit,
/// its position within 2 ulps of `x0 + v t`); B leaves faster than v; the ledger's total stays
/// where it was across the fixing (A's energy booked as work taken out) and through the push
/// within 2e-3 of the kinematic work plus half a step's work of the end forces (see
/// `kinematic_power`); released, A falls under gravity again (`v_z = -g t` within 1e-5) and the
/// total stays where it was.
#[test]
fn a_fixed_sphere_moves_at_its_velocity_pushes_another_and_falls_when_released() {
    let (r, g, dt) = (1e-3, 9.81, 5e-6);
    let mat = material("m", 1e7, 2500.0);
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let kh = 4.0 / 3.0 * grains_core::material::effective_young(&mat, &mat) * r.sqrt();
    let rest = (m * g / kh).powf(2.0 / 3.0);
    let mut p = Particles::default();
    p.push_sphere(
        [0.0, 0.0, r - rest],
        r,
        [0.0; 3],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let xa = -2.05 * r;
    p.push_sphere([xa, 0.0, r + 2e-5], r, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    let mut w = world(
        p,
        vec![wall([0.0; 3], [0.0, 0.0, 1.0])],
        mat,
        hertz_viscous(0.5),
        floor_domain(0.01),
        [0.0, 0.0, -g],
        dt,
        0.2 * r,
    );
    w.kinematic = true;
    let v = [0.05f32, 0.0, 0.0];
    for mut b in backends(w) {
        let name = b.name();
        let before = b.energy().total;
        b.set_fixed(&[1], Some(&[v]))
            .unwrap_or_else(|e| panic!("{e}"));
        let fixed = b.energy();
        let (e0, k0) = (fixed.total, fixed.kinematic_work);
        assert!(
            (e0 - before).abs() <= 4.0 * EPS * before.abs(),
            "{name}: fixing moved the total from {before:e} to {e0:e}"
        );
        let x0 = b.snapshot().pos[1];
        let mut steps = 0u64;
        let mut worst = 0.0f64;
        for _ in 0..8 {
            b.run(50);
            steps += 50;
            let s = b.snapshot().into_owned();
            assert_eq!(s.vel[1], [v[0], v[1], v[2], 0.0], "{name}: A's velocity");
            let want = x0[0] as f64 + steps as f64 * v[0] as f64 * (dt as f32) as f64;
            let off = (s.pos[1][0] as f64 - want).abs();
            assert!(off <= 2.0 * EPS * want.abs(), "{name}: A off by {off:e} m");
            assert_eq!(&s.pos[1][1..], &x0[1..], "{name}: A left its line");
            let e = b.energy();
            let f = b.snapshot().force[1];
            let end = (f[0] as f64).hypot(f[1] as f64).hypot(f[2] as f64);
            // The work A did since it was fixed; and a floor of 1e-5 of the total, for its f64
            // sums of f32 positions and energies.
            let pushed = e.kinematic_work - k0;
            let tol = 2e-3 * pushed.abs() + end * v[0] as f64 * dt + 1e-5 * e0.abs();
            let drift = (e.total - e0).abs();
            assert!(
                drift <= tol,
                "{name}, step {steps}: the total moved by {drift:e} J (tolerance {tol:e} J)"
            );
            worst = worst.max(drift / tol);
        }
        let s = b.snapshot().into_owned();
        assert!(
            s.vel[0][0] > 1.2 * v[0],
            "{name}: B was not pushed off: {:?}",
            s.vel[0]
        );
        let e = b.energy();
        let pushed = e.kinematic_work - k0;
        println!(
            "{name}: B leaves at {:.4} m/s; A did {pushed:.3e} J of work, the total ends within \
             {:.1e} of it (at most {worst:.2} of the tolerance on the way)",
            s.vel[0][0],
            (e.total - e0).abs() / pushed
        );
        b.set_fixed(&[1], None).unwrap_or_else(|e| panic!("{e}"));
        let released = b.energy().total;
        assert!(
            (released - e.total).abs() <= 4.0 * EPS * e.total.abs(),
            "{name}: releasing moved the total from {:e} to {released:e}",
            e.total
        );
        b.run(10);
        let s = b.snapshot().into_owned();
        let vz = s.vel[1][2] as f64;
        let want = -g * 10.0 * (dt as f32) as f64;
        assert!(
            (vz - want).abs() <= 1e-5 * want.abs(),
            "{name}: released A falls at {vz:e} m/s, expected {want:e}"
        );
        assert_eq!(s.vel[1][0], v[0], "{name}: released A keeps its velocity");
        let drift = (b.energy().total - released).abs();
        assert!(
            drift <= 1e-5 * released.abs(),
            "{name}: after the release the total moved by {drift:e}"
        );
    }
}

/// A box of 27 spheres (r = 0.8 mm, 0.1 mm apart, up to 0.2 m/s: colliding within the first
/// few hundred steps, with each other and the walls), under gravity, with the flags given:
/// [`load`] applies forces to three and fixes a fourth moving.
fn loaded_box(applied: bool, kinematic: bool) -> World {
    let (lo, hi) = ([-2.6e-3; 3], [2.6e-3; 3]);
    let p = lattice_particles(lo, hi, 8e-4, 1.7e-3, 2500.0, 0.2, 50.0, 7);
    let mut w = world(
        p,
        box_walls([-2.6e-3; 3], [2.6e-3; 3]),
        material("m", 1e7, 2500.0),
        hertz_viscous(0.6),
        open_domain(4e-3),
        [0.0, 0.0, -9.81],
        2e-6,
        2e-4,
    );
    w.applied_forces = applied;
    w.kinematic = kinematic;
    w
}

/// Apply [`loaded_box`]'s forces and fix its moving sphere.
fn load(b: &mut dyn Backend) {
    let f = [[2e-4, 0.0, 1e-4], [-1e-4, 3e-4, 0.0], [0.0, 0.0, 5e-4]];
    b.apply_forces(&[0, 13, 26], &f)
        .unwrap_or_else(|e| panic!("{e}"));
    b.set_fixed(&[4], Some(&[[0.0, 0.0, 0.02]]))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The held forces are state: a checkpoint (`write_backend_checkpoint`, `read_checkpoint`)
/// carries them, and a run resumed from it ends bit for bit where the uninterrupted run does
/// on the CPU, into a world built with applied forces and kinematic work, and into one built
/// without (the state turns them on). The GPU resumes it too, into a world built without,
/// holding the same forces and ending within 1e-9 m (a thousandth of the gaps) of the CPU.
#[test]
fn applied_forces_survive_a_checkpoint_and_a_resumed_run_is_bitwise_the_same() {
    let dir = std::env::temp_dir().join(format!("grains-applied-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("checkpoint.bin");
    let w = loaded_box(true, true);
    let fingerprint = w.fingerprint();
    let mut a = cpu(w);
    load(&mut a);
    a.run(150);
    grains_io::write_backend_checkpoint(&path, fingerprint, &mut a).expect("checkpoint");
    let held = a.applied_force.clone();
    a.run(150);
    let end = a.state();
    let contacts = a.contacts();
    assert!(contacts.pairs > 0, "no contact to carry");
    let (fp, state) = grains_io::read_checkpoint(&path).expect("read");
    assert_eq!(fp, fingerprint);
    assert_eq!(state.applied_force, held, "the held forces");
    assert!(held[13][1] == 3e-4 && held[1] == [0.0; 4]);
    if let Some(ctx) = crate::gpu::gpu_context() {
        let mut g = grains_gpu::GpuBackend::from_state(loaded_box(false, false), &ctx, &state)
            .unwrap_or_else(|e| panic!("{e}"));
        g.run(150);
        let s = g.state();
        assert_eq!(s.applied_force, held, "the GPU's held forces");
        let off = s
            .pos
            .iter()
            .zip(&end.pos)
            .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
            .fold(0.0f32, f32::max);
        assert!(off <= 1e-9, "the GPU resumed {off:e} m off the CPU's run");
        println!(
            "checkpoint at {} pair and {} wall contacts; the GPU's resumed run within {off:e} m",
            contacts.pairs, contacts.walls
        );
    }
    for (applied, kinematic) in [(true, true), (false, false)] {
        let mut b = CpuBackend::from_state(loaded_box(applied, kinematic), state.clone())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(b.world.applied_forces && b.world.kinematic);
        b.run(150);
        assert!(
            b.state() == end,
            "resumed into a world with flags {applied}, {kinematic}: not the uninterrupted run"
        );
    }
    // As `grains run --resume` takes it: array by array from the file.
    let mut ck = grains_io::open_checkpoint(&path).expect("open");
    let header = ck.header.clone();
    let mut b = CpuBackend::from_source(loaded_box(false, false), header, &mut ck)
        .unwrap_or_else(|e| panic!("{e}"));
    ck.finish().expect("the whole file");
    b.run(150);
    assert!(b.state() == end, "streamed: not the uninterrupted run");
    std::fs::remove_dir_all(&dir).ok();
}

/// A backend built without applied forces refuses them; one built again from its state with
/// them on goes on bit for bit as the first (no force held yet: the same positions, velocities
/// and forces), then takes a force. Likewise with kinematic work for fixing a particle.
#[test]
fn a_backend_rebuilt_from_its_state_with_the_capabilities_on_goes_on_where_it_stood() {
    let mut a = cpu(loaded_box(false, false));
    a.run(100);
    let e = a.apply_forces(&[0], &[[1e-4, 0.0, 0.0]]).expect_err("off");
    assert!(matches!(e, CoreError::BuiltWithout { .. }), "{e}");
    let e = a.set_fixed(&[4], Some(&[[0.0; 3]])).expect_err("off");
    assert!(matches!(e, CoreError::BuiltWithout { .. }), "{e}");
    let state = a.state();
    let mut b =
        CpuBackend::from_state(loaded_box(true, true), state).unwrap_or_else(|e| panic!("{e}"));
    a.run(100);
    b.run(100);
    assert_eq!(a.pos, b.pos);
    assert_eq!(a.vel, b.vel);
    assert_eq!(a.force, b.force);
    let x = b.pos[0];
    load(&mut b);
    b.run(100);
    a.run(100);
    assert_ne!(a.pos[0], b.pos[0], "the force moved nothing");
    assert_ne!(b.pos[0], x);
}

/// Refusals, each a `CoreError` with a message saying why, after which nothing has changed (the
/// whole state bit for bit), on both backends: an id out of range (after a valid one: nothing
/// half-applied), a force or velocity not finite, rows and ids of different counts, a particle
/// fixed or removed, and the capabilities off.
#[test]
fn refused_requests_say_why_and_change_nothing() {
    for mut b in backends(loaded_box(true, true)) {
        let name = b.name();
        b.remove_particles(&[20]).unwrap_or_else(|e| panic!("{e}"));
        b.set_fixed(&[4], Some(&[[0.0, 0.0, 0.01]]))
            .unwrap_or_else(|e| panic!("{e}"));
        b.run(5);
        let before = b.state();
        let nan = f32::NAN;
        let cases: Vec<(Result<(), CoreError>, &str)> = vec![
            (
                b.apply_forces(&[0, 27], &[[1e-4; 3], [1e-4; 3]]),
                "particle 27 does not exist: the scene has 27 particles",
            ),
            (
                b.apply_forces(&[3], &[[0.0, nan, 0.0]]),
                "the applied force of particle 3 is not finite",
            ),
            (
                b.apply_forces(&[3, 5], &[[0.0; 3]]),
                "2 ids for 1 rows of applied force",
            ),
            (b.apply_forces(&[4], &[[1e-4; 3]]), "particle 4 is fixed"),
            (
                b.apply_forces(&[20], &[[1e-4; 3]]),
                "particle 20 is not in the run",
            ),
            (
                b.set_fixed(&[1, 99], Some(&[[0.0; 3], [0.0; 3]])),
                "particle 99 does not exist",
            ),
            (
                b.set_fixed(&[1], Some(&[[f32::INFINITY, 0.0, 0.0]])),
                "the velocity of particle 1 is not finite",
            ),
            (b.set_fixed(&[1, 99], None), "particle 99 does not exist"),
            (b.set_fixed(&[20], None), "particle 20 is not in the run"),
        ];
        for (r, says) in cases {
            let e = r.expect_err(says);
            assert!(matches!(e, CoreError::Refused(_)), "{name}: {e:?}");
            assert!(e.to_string().contains(says), "{name}: `{e}` for `{says}`");
        }
        assert!(
            b.state() == before,
            "{name}: a refused request changed the state"
        );
    }
    for mut b in backends(loaded_box(false, false)) {
        let name = b.name();
        let before = b.state();
        let e = b.apply_forces(&[0], &[[1e-4; 3]]).expect_err("off");
        let says = "the world was built without applied forces: set `World::applied_forces`";
        assert!(e.to_string().contains(says), "{name}: {e}");
        let e = b.set_fixed(&[0], None).expect_err("off");
        assert!(e.to_string().contains("`World::kinematic`"), "{name}: {e}");
        assert!(
            b.state() == before,
            "{name}: a refused request changed the state"
        );
    }
}

/// In the overdamped mode the solve takes the applied force in its right-hand side: a sphere
/// with drag gamma_0 under F alone moves at `F / gamma_0` from the first step (the solve's f64
/// on the CPU, f32 on the GPU: within 1e-6).
#[test]
fn an_overdamped_sphere_moves_at_force_over_drag() {
    let text = "[simulation]\nsteps = 3\ndt = 1e-3\ngravity = [0.0, 0.0, 0.0]\n\
                dynamics = \"overdamped\"\n\n[domain]\nmin = [-0.1, -0.1, -0.1]\n\
                max = [0.1, 0.1, 0.1]\n\n[[material]]\nname = \"cell\"\ndensity = 2500.0\n\
                young = 1e7\npoisson = 0.3\nsubstrate_friction = 2e-3\n\
                substrate_rotational_friction = 1.0e-6\n\n[[particles]]\nmaterial = \"cell\"\n\
                radius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n";
    let mut w = grains_tests::test_world(text);
    w.applied_forces = true;
    let f = [3e-5f32, 0.0, -1e-5];
    for mut b in backends(w) {
        b.apply_forces(&[0], &[f]).unwrap_or_else(|e| panic!("{e}"));
        for step in 1..=3 {
            b.step();
            let s = b.snapshot();
            for k in [0, 2] {
                let want = f[k] as f64 / 2e-3;
                let got = s.vel[0][k] as f64;
                assert!(
                    (got - want).abs() <= 1e-6 * want.abs(),
                    "{}, step {step}: v[{k}] {got} against {want}",
                    b.name()
                );
            }
        }
    }
}

/// The schedule books the applied forces last, and only where the world holds them; neither
/// backend then fuses the gather with the kick.
#[test]
fn the_schedule_runs_applied_power_only_where_forces_are_held() {
    use grains_core::schedule::{Pass, Schedule};
    let off = Schedule::of(&loaded_box(false, false));
    assert!(!off.has(Pass::AppliedPower) && off.gather_meets_kick());
    let on = Schedule::of(&loaded_box(true, true));
    assert_eq!(on.booked, [Pass::KinematicPower, Pass::AppliedPower]);
    assert!(Pass::AppliedPower.adds_to_gathered() && !on.gather_meets_kick());
}

/// `applied_power` on the GPU against its twin on seeded random particles: free and fixed,
/// forces of either sign over four decades (a seventh of them zero), velocities likewise, and
/// accumulators already holding work. Tolerance: the force is one f32 add a component, the
/// same bits; the power is a 3-term dot product and one Kahan step, which a driver may fuse or
/// round differently by an ulp or two of each term, so 1e-6 of `|F| |v| dt` plus 1e-6 of the
/// accumulator on the booked work (`sum - compensation`); particles the twin leaves alone are
/// left bit for bit.
#[test]
fn applied_power_matches_its_twin() {
    use grains_core::kernel_types::StepParams;
    use grains_core::kernels::passes::applied_power;
    let Some(ctx) = crate::gpu::gpu_context() else {
        return;
    };
    let mut rng = SplitMix(0xA991);
    let n = 1000usize;
    let step = StepParams {
        dt: 1e-6,
        n_particles: n as u32,
        unit: 1.0,
        ..bytemuck::Zeroable::zeroed()
    };
    let mut vec4 = |w: f32| -> [f32; 4] {
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        let mut c = || (rng.range(-1.0, 1.0) * scale) as f32;
        [c(), c(), c(), w]
    };
    let vel: Vec<[f32; 4]> = (0..n)
        .map(|i| vec4(if i % 5 == 0 { 0.0 } else { 3.0 }))
        .collect();
    let applied: Vec<[f32; 4]> = (0..n)
        .map(|i| if i % 7 == 0 { [0.0; 4] } else { vec4(0.0) })
        .collect();
    let force: Vec<[f32; 4]> = (0..n).map(|_| vec4(0.0)).collect();
    let work0: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            let a = (i as f32 - 500.0) * 1e-9;
            [a, a * 1e-8]
        })
        .collect();
    let src = grains_shaders::compose_pass("applied_power").unwrap_or_else(|e| panic!("{e}"));
    let bytes = |v: &[[f32; 4]]| bytemuck::cast_slice::<_, u8>(v).to_vec();
    let out = grains_gpu::kernel::run_once(
        &ctx,
        "applied_power",
        &src,
        "applied_power",
        &[
            ("step", bytemuck::bytes_of(&step)),
            ("vel", &bytes(&vel)),
            ("applied_force", &bytes(&applied)),
            ("force", &bytes(&force)),
            ("kinematic_work", bytemuck::cast_slice(&work0)),
        ],
        &["force", "kinematic_work"],
        n.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let gpu_force: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&out[0]);
    let gpu_work: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(&out[1]);
    let norm = |a: [f32; 4]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt() as f64;
    let mut booked = 0;
    for i in 0..n {
        let (mut f, mut w) = (force[i], work0[i]);
        applied_power(i, &step, &vel, &applied, &mut f, &mut w);
        assert_eq!(gpu_force[i], f, "particle {i}: the force");
        if w == work0[i] {
            assert_eq!(gpu_work[i], w, "particle {i}: the twin books nothing");
            continue;
        }
        booked += 1;
        let scale = norm(applied[i]) * norm(vel[i]) * step.dt as f64;
        let tol = 1e-6 * (scale + work0[i][0].abs() as f64);
        let (g, c) = (
            gpu_work[i][0] as f64 - gpu_work[i][1] as f64,
            w[0] as f64 - w[1] as f64,
        );
        assert!(
            (g - c).abs() <= tol,
            "particle {i}: gpu {g:e}, twin {c:e}, tolerance {tol:e}"
        );
    }
    assert!(booked > n / 2, "only {booked} particles booked work");
}
