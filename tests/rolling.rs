//! Rolling resistance and torsional friction (CPU) against the closed-form motion of a sphere
//! on a plane.

use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::kernels::laws::rolling_constant_torque::RollingConstantTorqueSpec;
use grains_core::kernels::laws::rolling_spring::RollingSpringSpec;
use grains_core::kernels::laws::torsional_coulomb::TorsionalCoulombSpec;
use grains_core::{Backend, CpuBackend, LawSpec, World};
use grains_tests::worlds::*;

const PI: f64 = std::f64::consts::PI;
const R: f64 = 0.01;
const G: f64 = 9.81;
const YOUNG: f64 = 1e8;

/// A sphere resting on a floor at its Hertz overlap, with velocity `v` and spin `w`, under the
/// laws `extra` after Hertz, a viscous dashpot and Cundall-Strack friction.
fn on_floor(v: [f64; 3], w: [f64; 3], extra: LawSpec, dt: f64) -> (World, f64) {
    let laws = vec![
        hertz(),
        viscous(0.3),
        cundall_strack(0.5, 0.5, TangentialStiffness::Mindlin),
        extra,
    ];
    sphere_on_floor(R, YOUNG, v, w, laws, dt)
}

/// A sphere rolling at `v0` on a plane under constant-torque rolling resistance decelerates at
/// `5/7 mu_r g` (the torque `mu_r R m g` acts on the rolling inertia `7/5 m R^2`) and stops
/// after `7 v0^2 / (10 mu_r g)`; all of its kinetic energy, `7/10 m v0^2`, is dissipated.
/// 1 % on the distance and the energy booked; at the end it is at rest but for the tangential
/// spring's undamped rocking (under 1 % of v0).
#[test]
fn rolling_resistance_stops_a_sphere_where_the_torque_predicts() {
    let law = LawSpec::RollingConstantTorque(RollingConstantTorqueSpec {
        rolling_friction: 0.1,
        regularization_velocity: 1e-3,
    });
    roll_to_a_stop(law, 0.1, 1e-2);
}

/// The spring-dashpot-slider model saturates within a few steps of rolling and then stops the
/// sphere as the constant torque does (1 % on the distance and the energy); what speed is left
/// is the tangential spring's undamped rocking, as with the constant torque (under 1 % of v0).
#[test]
fn rolling_spring_stops_a_sphere_where_the_torque_predicts() {
    let law = LawSpec::RollingSpring(RollingSpringSpec {
        rolling_friction: 0.1,
        rolling_stiffness: None,
        rolling_damping: 0.3,
    });
    roll_to_a_stop(law, 0.1, 1e-2);
}

/// Roll a sphere at 0.1 m/s under rolling law `law` of coefficient `mu_r`; at 1.3 times the
/// stopping time its speed must be below `rest` v0.
fn roll_to_a_stop(law: LawSpec, mu_r: f64, rest: f64) {
    let v0 = 0.1;
    let name = law.kind().keyword();
    let dt = 2e-6;
    let (w, _) = on_floor([v0, 0.0, 0.0], [0.0, v0 / R, 0.0], law, dt);
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    let e0 = b.energy();
    let t_stop = 7.0 * v0 / (5.0 * mu_r * G);
    b.run((1.3 * t_stop / dt) as u64);
    let x = b.pos[0][0] as f64;
    let want = 7.0 * v0 * v0 / (10.0 * mu_r * G);
    let e = b.energy();
    let booked = e.friction_dissipated + e.damping_dissipated;
    let ke0 = e0.kinetic + e0.rotational;
    eprintln!(
        "{name}: rolled {x:.6e} m (7 v0^2 / (10 mu_r g) = {want:.6e}), speed now {:.2e} m/s, dissipated {booked:.6e} of {ke0:.6e} J",
        b.vel[0][0]
    );
    assert!(
        (x - want).abs() < 0.01 * want,
        "{name}: stopped at {x}, expected {want}"
    );
    assert!(
        (b.vel[0][0] as f64).abs() < rest * v0,
        "{name}: still rolling"
    );
    assert!(
        (booked - ke0).abs() < 0.01 * ke0,
        "{name}: dissipated {booked} of {ke0}"
    );
}

/// A sphere resting on a plane and spinning about the vertical at `w0` slides on its contact:
/// the torsional Coulomb torque `2/3 mu_t m g a` (`a = sqrt(R delta)`) decelerates it
/// uniformly, so at half the stopping time `w0 I / M` it spins at `w0 / 2`, and then stops.
/// 1 %. The spin's f32 increments must be many ulps of the spin: at w0 = 20 rad/s and
/// dt = 2e-6 s each half-step adds 6.2 ulps, which round to 6 every time and decelerate 3.3 %
/// too slowly; at w0 = 2 rad/s and dt = 2e-5 s it is 490 ulps.
#[test]
fn torsional_friction_decelerates_a_spinning_sphere_at_the_predicted_rate() {
    let (w0, mu_t) = (2.0, 0.3);
    let law = LawSpec::TorsionalCoulomb(TorsionalCoulombSpec {
        torsional_friction: mu_t,
        damping: 1e5,
    });
    let dt = 2e-5;
    let (w, delta) = on_floor([0.0; 3], [0.0, 0.0, w0], law, dt);
    let m = 2500.0 * 4.0 / 3.0 * PI * R * R * R;
    let torque = 2.0 / 3.0 * mu_t * m * G * (R * delta).sqrt();
    let inertia = 0.4 * m * R * R;
    let t_stop = w0 * inertia / torque;
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    b.run((0.5 * t_stop / dt) as u64);
    let half = b.omega[0][2] as f64;
    b.run((0.6 * t_stop / dt) as u64);
    let end = b.omega[0][2] as f64;
    eprintln!(
        "spin at t_stop / 2 = {:.4e} s: {half:.5} rad/s (w0 / 2 = {:.5}); after t_stop: {end:.2e}",
        0.5 * t_stop,
        0.5 * w0
    );
    assert!((half - 0.5 * w0).abs() < 0.01 * w0, "spin {half}");
    assert!(end.abs() < 1e-3 * w0, "still spinning at {end}");
}
