//! The linear dashpots (CPU): `linear_damper_overlap` with a linear spring is the damped
//! oscillator, `linear_damper` on a fixed pair damps two separated particles exponentially.

use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::kernels::laws::linear_damper::NormalDashpotSpec;
use grains_core::materials::Interaction;
use grains_core::{Backend, CpuBackend, LawSpec, Particles};
use grains_tests::worlds::*;

const PI: f64 = std::f64::consts::PI;

/// A linear spring with an unclipped dashpot of damping ratio `zeta` is a linear oscillator
/// until the overlap returns to zero, half a damped period later: the restitution is
/// `exp(-pi zeta / sqrt(1 - zeta^2))`. 1e-3 at dt = t_c / 20000.
#[test]
fn linear_damper_overlap_gives_the_damped_oscillator_restitution() {
    let (r, v, k) = (0.01, 1.0, 5e4);
    let m_eff = 0.5 * 2500.0 * 4.0 / 3.0 * PI * r * r * r;
    for zeta in [0.1, 0.3, 0.5] {
        let c = 2.0 * zeta * (m_eff * k).sqrt();
        let t_c = PI / ((k / m_eff).sqrt() * (1.0 - zeta * zeta).sqrt());
        let damper = LawSpec::LinearDamperOverlap(NormalDashpotSpec { damping: c });
        let inter = Interaction::new(0, 0, vec![linear(Some(k)), damper]);
        let w = head_on_world(inter, r, v, 1e7, t_c / 2e4);
        let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
        let e0 = b.energy().total;
        assert!(through_contact(&mut b, 200_000) > 0, "the spheres met");
        let e = restitution_of(&b, v);
        let want = (-PI * zeta / (1.0 - zeta * zeta).sqrt()).exp();
        let drift = (b.energy().total - e0).abs() / e0;
        eprintln!("zeta = {zeta}: restitution {e:.6}, damped oscillator {want:.6}, ledger drift {drift:e}");
        assert!((e - want).abs() < 1e-3, "zeta = {zeta}: {e} vs {want}");
        assert!(drift < 1e-4, "ledger drift {drift:e}");
    }
}

/// Two particles 1 mm apart, joined by a fixed pair whose chain is a `linear_damper` alone,
/// moving apart at `v0`: the fixed source evaluates them at any distance, so the relative speed
/// decays as `v0 exp(-t c / m*)` (1e-3 of v0 at t = tau and 2 tau) and the dashpot books the
/// kinetic energy lost (measured: 1.0e-4 of the initial kinetic energy after 20,000 steps of
/// f32 accumulation; 3e-4 allowed).
#[test]
fn linear_damper_on_a_fixed_pair_damps_at_a_distance() {
    let (r, v0, c) = (1e-3, 0.1, 1e-3);
    let m_eff = 0.5 * 2500.0 * 4.0 / 3.0 * PI * r * r * r;
    let tau = m_eff / c;
    let dt = tau / 1e4;
    let mut p = Particles::default();
    p.push_sphere(
        [-1.5e-3, 0.0, 0.0],
        r,
        [-0.5 * v0, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    p.push_sphere(
        [1.5e-3, 0.0, 0.0],
        r,
        [0.5 * v0, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let contact = self_interaction(hertz(), None, None, TangentialStiffness::Mindlin);
    let damper = Interaction::new(
        0,
        0,
        vec![LawSpec::LinearDamper(NormalDashpotSpec { damping: c })],
    );
    let w = world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        contact,
        open_domain(1.0),
        [0.0; 3],
        dt,
        1e-4,
    )
    .with_fixed_pairs(vec![[0, 1]], vec![damper])
    .unwrap_or_else(|e| panic!("{e}"));
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    let e0 = b.energy();
    for k in 1..=2 {
        b.run(10_000);
        let vrel = (b.vel[1][0] - b.vel[0][0]) as f64;
        let want = v0 * (-(k as f64)).exp();
        eprintln!("t = {k} tau: relative speed {vrel:.6e}, v0 exp(-t/tau) = {want:.6e}");
        assert!(
            (vrel - want).abs() < 1e-3 * v0,
            "t = {k} tau: {vrel} vs {want}"
        );
    }
    let e = b.energy();
    let lost = e0.kinetic - e.kinetic;
    eprintln!(
        "kinetic energy lost {lost:.6e} J, damping booked {:.6e} J",
        e.damping_dissipated
    );
    assert!((e.damping_dissipated - lost).abs() < 3e-4 * e0.kinetic);
}
