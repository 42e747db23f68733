//! Tangential laws beyond `cundall_strack` (CPU): the viscous Coulomb pair `haff_werner` and
//! `regularized_coulomb`, against the closed-form slip-to-roll transition, with the energy
//! ledger closed over the slide.

use grains_core::kernels::laws::haff_werner::ViscousCoulombSpec;
use grains_core::{Backend, CpuBackend, LawSpec};
use grains_tests::worlds::*;

/// A sphere launched at `v0` without spin on a plane, resting at its Hertz overlap: friction
/// spins it up while it slides (deceleration `mu g`), and it rolls from `t = 2 v0 / (7 mu g)` at
/// `v = 5 v0 / 7` (any Coulomb law in the sliding regime). Returns the time slip fell below
/// 1e-3 v0, the speed at the end (twice that time), the friction dissipation and the worst
/// ledger drift, both relative to the initial kinetic energy.
fn slide(tangential: LawSpec, mu: f64) -> (f64, f64, f64, f64) {
    let (r, g, v0) = (0.01, 9.81, 0.5);
    let dt = 2e-6;
    let laws = vec![hertz(), viscous(0.3), tangential];
    let (w, _) = sphere_on_floor(r, 1e8, [v0, 0.0, 0.0], [0.0; 3], laws, dt);
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    let e0 = b.energy();
    let t_roll = 2.0 * v0 / (7.0 * mu * g);
    let mut t_seen = None;
    let mut drift = 0.0f64;
    for step in 1..=(2.0 * t_roll / dt) as u64 {
        b.step();
        let slip = b.vel[0][0] as f64 - b.omega[0][1] as f64 * r;
        if t_seen.is_none() && slip < 1e-3 * v0 {
            t_seen = Some(step as f64 * dt);
        }
        if step % 100 == 0 {
            drift = drift.max((b.energy().total - e0.total).abs() / e0.kinetic);
        }
    }
    let end = b.energy();
    (
        t_seen.expect("never started rolling"),
        b.vel[0][0] as f64,
        end.friction_dissipated / e0.kinetic,
        drift,
    )
}

/// Both viscous Coulomb laws: rolling starts at `2 v0 / (7 mu g)` and goes on at `5 v0 / 7`
/// (1 %: the transition is resolved to the dashpot's time constant, under 1e-5 s here), and
/// the friction's booked dissipation is what the slide lost, `2/7` of the initial kinetic
/// energy (`1/2 m v0^2 - 1/2 m v^2 - 1/2 I w^2` at `v = w r = 5 v0 / 7`), to 1 %. The ledger's
/// total stays within 2e-3 of the initial kinetic energy: `cundall_strack` drifts the same
/// 1.09e-3 in this scene, and the drift grows as dt shrinks (3.7e-3 at dt = 1e-6 for all three
/// laws), so it is f32 rounding accumulated over the steps of a long resting contact, not the
/// friction's booking.
#[test]
fn viscous_coulomb_laws_roll_at_the_closed_form_time() {
    let (mu, v0, g) = (0.3, 0.5, 9.81);
    let laws = [
        LawSpec::HaffWerner(ViscousCoulombSpec {
            friction: mu,
            damping: 1e3,
            regularization_velocity: 0.0,
        }),
        LawSpec::RegularizedCoulomb(ViscousCoulombSpec {
            friction: mu,
            damping: 0.0,
            regularization_velocity: 1e-4,
        }),
    ];
    for law in laws {
        let name = law.kind().keyword();
        let (t, v, dissipated, drift) = slide(law, mu);
        let t_roll = 2.0 * v0 / (7.0 * mu * g);
        eprintln!(
            "{name}: rolls at {t:.6} s ({t_roll:.6}), v = {v:.6} ({:.6}), friction dissipated {dissipated:.5} of the kinetic energy (2/7 = {:.5}), ledger drift {drift:e}",
            5.0 * v0 / 7.0,
            2.0 / 7.0
        );
        assert!((t - t_roll).abs() / t_roll < 0.01, "{name}: rolling at {t}");
        assert!(
            (v - 5.0 * v0 / 7.0).abs() / (5.0 * v0 / 7.0) < 0.01,
            "{name}: v = {v}"
        );
        assert!(
            (dissipated - 2.0 / 7.0).abs() < 0.01 * 2.0 / 7.0,
            "{name}: friction dissipated {dissipated}"
        );
        assert!(drift < 2e-3, "{name}: ledger drift {drift:e}");
    }
}

/// `contacts.csv`'s tangential force vector (`ContactRecord::tangential`): a sphere sliding
/// along +x and +y on a floor, Cundall-Strack at mu = 0.3 in its sliding regime, feels
/// friction `mu N` against its slip: the vector lies in the floor's plane, opposes the slip
/// direction (1, 1, 0)/sqrt 2 to 1e-3 rad, and has the record's magnitude and `mu` times the
/// normal force (1e-3: the slide is Coulomb's once the spring has reached its limit).
#[test]
fn contact_records_carry_the_tangential_force_vector() {
    use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
    let (r, mu, dt) = (0.01, 0.3, 2e-6);
    let laws = vec![
        hertz(),
        viscous(0.3),
        cundall_strack(mu, mu, TangentialStiffness::Mindlin),
    ];
    let (w, _) = sphere_on_floor(r, 1e8, [0.3, 0.3, 0.0], [0.0; 3], laws, dt);
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    b.run(200);
    let records = b.contact_records();
    let c = records.iter().find(|c| c.j < 0).expect("a floor contact");
    let t = c.tangential.map(|x| x as f64);
    let mag = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
    assert!(
        (mag - c.tangential_force as f64).abs() <= 1e-6 * mag,
        "{t:?} vs {}",
        c.tangential_force
    );
    assert!(t[2].abs() <= 1e-6 * mag, "in the floor's plane: {t:?}");
    let along = -(t[0] + t[1]) / (2f64.sqrt() * mag);
    assert!(along > 1.0 - 5e-7, "against the slip: cos {along}");
    let want = mu * c.normal_force as f64;
    assert!((mag - want).abs() <= 1e-3 * want, "{mag} vs mu N = {want}");
}

/// `contacts.csv`'s whole force, relative velocity and moment (Exudyn's per-contact outputs),
/// on both backends: a sphere resting on a floor at its Hertz overlap, moving at `v` along x
/// and spinning at `w` about y. Its surface at the contact point moves at `v - w a` along x
/// (`a = r - delta/2`, the arm to the contact point), so the floor's surface moves at
/// `-(v - w a)` relative to it; the force is `ContactRecord::force`, and its moment about the
/// centre is `arm x F`. Tolerances: f32 velocities and positions, 1e-6 relative.
#[test]
fn contact_records_carry_the_relative_velocity_and_the_moment() {
    use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
    let (r, v, w, dt) = (0.01, 0.4, 10.0, 2e-6);
    let laws = vec![
        hertz(),
        cundall_strack(0.3, 0.3, TangentialStiffness::Mindlin),
    ];
    let (world, _) = sphere_on_floor(r, 1e8, [v, 0.0, 0.0], [0.0, w, 0.0], laws, dt);
    let mut all: Vec<Box<dyn Backend>> = vec![Box::new(
        CpuBackend::new(world.clone()).unwrap_or_else(|e| panic!("{e}")),
    )];
    if let Some(ctx) = crate::gpu::gpu_context() {
        let g = grains_gpu::GpuBackend::new(world, &ctx).unwrap_or_else(|e| panic!("{e}"));
        all.push(Box::new(g));
    }
    for mut b in all {
        let name = b.name();
        b.run(1);
        let s = b.snapshot().into_owned();
        let records = b.contact_records();
        let c = records.iter().find(|c| c.j < 0).expect("a floor contact");
        let a = (c.point[2] - s.pos[0][2]) as f64;
        assert!(a < 0.0 && (a + r).abs() < 1e-3 * r, "{name}: arm {a}");
        let (vx, wy) = (s.vel[0][0] as f64, s.omega[0][1] as f64);
        // The surface velocity at the contact, whose arm is (0, 0, a): v + w x arm.
        let surface = vx + wy * a;
        let rel = c.relative_velocity.map(|x| x as f64);
        assert!(
            (rel[0] + surface).abs() <= 1e-6 * surface.abs()
                && rel[1] == 0.0
                && rel[2].abs() <= 1e-6 * surface.abs(),
            "{name}: {rel:?} against {}",
            -surface
        );
        let f = c.force().map(|x| x as f64);
        let t = c.torque.map(|x| x as f64);
        let want = [-a * f[1], a * f[0], 0.0];
        for k in 0..3 {
            assert!(
                (t[k] - want[k]).abs() <= 1e-6 * (a * f[2]).abs(),
                "{name}: moment {t:?} against {want:?}"
            );
        }
        assert!(f[2] > 0.0, "{name}: the floor pushes up: {f:?}");
    }
}
