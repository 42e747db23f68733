//! The implicit dynamics modes (`[simulation] dynamics`): overdamped, underdamped and static
//! solves against closed forms, their ledger, and their refusals.

use grains_core::{Backend, CpuBackend, World};
use grains_tests::test_world;

/// Scene text: the `[simulation]` lines, one material block per `(name, density, drag)`, and
/// the rest.
fn scene(sim: &str, materials: &[(&str, f64, f64)], rest: &str) -> String {
    let mut s = format!(
        "[simulation]\n{sim}\n\n[domain]\nmin = [-0.1, -0.1, -0.1]\nmax = [0.1, 0.1, 0.1]\n"
    );
    for (name, density, drag) in materials {
        s += &format!(
            "\n[[material]]\nname = \"{name}\"\ndensity = {density:e}\nyoung = 1.0e7\n\
             poisson = 0.3\nsubstrate_friction = {drag:e}\nsubstrate_rotational_friction = 1.0e-6\n"
        );
    }
    s + "\n" + rest
}

fn cpu(w: World) -> CpuBackend {
    CpuBackend::new(w).expect("cpu backend")
}

/// One sphere under gravity with drag `gamma_0` moves at `m g / gamma_0` from the first step,
/// and its position by that times dt each step.
#[test]
fn a_sphere_with_drag_sinks_at_its_terminal_velocity_from_the_first_step() {
    let (r, rho, g0) = (0.001, 2500.0, 1e-3);
    let text = scene(
        "steps = 10\ndt = 1e-3\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"overdamped\"",
        &[("cell", rho, g0)],
        "[[particles]]\nmaterial = \"cell\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n",
    );
    let w = test_world(&text);
    let m = rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let v = -m * 9.81 / g0;
    let mut b = cpu(w);
    for step in 1..=3 {
        b.step();
        let s = b.snapshot();
        let (vz, z) = (s.vel[0][2] as f64, s.pos[0][2] as f64);
        assert!(
            (vz - v).abs() <= 1e-6 * v.abs(),
            "step {step}: v {vz} against {v}"
        );
        let z_expected = v * 1e-3 * step as f64;
        assert!(
            (z - z_expected).abs() <= 1e-5 * z_expected.abs(),
            "step {step}: z {z} against {z_expected}"
        );
    }
}

/// Two touching spheres joined by `constant_resistance` (gamma_n along the line of centres), of
/// different masses, under gravity along that line: the step-one velocities solve the 2x2
/// system `(gamma_0 + gamma_n) v1 - gamma_n v2 = m1 g` and its mirror.
#[test]
fn two_spheres_joined_by_a_resistance_solve_the_two_by_two_system() {
    let (g0, gn) = (2e-3, 5e-3);
    let text = scene(
        "steps = 1\ndt = 1e-3\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"overdamped\"\nimplicitness = 0.0",
        &[("light", 1000.0, g0), ("heavy", 3000.0, g0)],
        "[[particles]]\nmaterial = \"light\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n\n\
         [[particles]]\nmaterial = \"heavy\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0020001]]\n\n\
         [[interaction]]\nbetween = [\"light\", \"heavy\"]\nnormal = { law = \"hertz\" }\n\n\
         [[bond]]\npairs = [[0, 1]]\nnormal = { law = \"spring\", stiffness = 1.0 }\n\
         resistance = { law = \"constant_resistance\", normal = 5.0e-3 }\n",
    );
    let w = test_world(&text);
    let vol = 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    let (m1, m2, g) = (1000.0 * vol, 3000.0 * vol, -9.81);
    let det = g0 * (g0 + 2.0 * gn);
    let v1 = g * (m1 * (g0 + gn) + gn * m2) / det;
    let v2 = g * (m2 * (g0 + gn) + gn * m1) / det;
    // The velocities step one moves by are solved from the starting state.
    let mut b = cpu(w);
    let s = b.snapshot();
    for (i, want) in [(0, v1), (1, v2)] {
        let got = s.vel[i][2] as f64;
        assert!(
            (got - want).abs() <= 1e-6 * want.abs(),
            "sphere {i}: v {got} against {want}"
        );
        assert_eq!(s.vel[i][0], 0.0);
        assert_eq!(s.vel[i][1], 0.0);
    }
    let z0 = [s.pos[0][2] as f64, s.pos[1][2] as f64];
    b.step();
    let s = b.snapshot();
    for (i, want) in [(0, v1), (1, v2)] {
        let moved = s.pos[i][2] as f64 - z0[i];
        assert!(
            (moved - want * 1e-3).abs() <= 1e-4 * (want * 1e-3).abs(),
            "sphere {i} moved {moved}"
        );
    }
}

/// Two overdamped beads on a bond spring, stretched by `s0`, no gravity.
fn beads(k_dt_over_gamma: f64, lambda: f64) -> World {
    let (g0, dt) = (1e-2, 1e-3);
    let k = k_dt_over_gamma * g0 / dt;
    let text = scene(
        &format!("steps = 1\ndt = {dt:e}\ndynamics = \"overdamped\"\nimplicitness = {lambda:?}"),
        &[("bead", 1000.0, g0)],
        &format!(
            "[[particles]]\nmaterial = \"bead\"\nradius = 0.001\n\
             positions = [[0.0, 0.0, 0.0], [0.0051, 0.0, 0.0]]\n\n\
             [[interaction]]\nbetween = [\"bead\", \"bead\"]\nnormal = {{ law = \"hertz\" }}\n\n\
             [[bond]]\npairs = [[0, 1]]\n\
             normal = {{ law = \"spring\", stiffness = {k:e}, rest_length = 0.005 }}\n"
        ),
    );
    test_world(&text)
}

fn stretch(b: &mut CpuBackend) -> f64 {
    let s = b.snapshot();
    (s.pos[1][0] as f64 - s.pos[0][0] as f64) - 0.005
}

/// A bond spring of stiffness k between two overdamped beads relaxes by `1/(1 + 2 k dt/g0)` a
/// step at lambda = 1, `(1 - k dt/g0)/(1 + k dt/g0)` at 0.5 and `1 - 2 k dt/g0` at 0.
#[test]
fn a_bond_spring_relaxes_by_the_factor_of_its_implicitness() {
    let a = 0.1;
    for (lambda, factor) in [
        (1.0, 1.0 / (1.0 + 2.0 * a)),
        (0.5, (1.0 - a) / (1.0 + a)),
        (0.0, 1.0 - 2.0 * a),
    ] {
        let mut b = cpu(beads(a, lambda));
        let mut s = stretch(&mut b);
        for step in 1..=5 {
            b.step();
            let s2 = stretch(&mut b);
            // Positions are f32 near 5 mm: the stretch of 0.1 mm and less is known to a few
            // 1e-10 m, so the ratio to 1e-4 while the stretch stays above 1e-6 m.
            assert!(
                (s2 / s - factor).abs() <= 1e-4,
                "lambda {lambda}, step {step}: ratio {} against {factor}",
                s2 / s
            );
            s = s2;
        }
    }
}

/// At `k dt / gamma_0 = 100`, lambda = 1 stays stable and monotone, and the time-step guard
/// lets it run; lambda = 0 would not be stable there, and the guard says so.
#[test]
fn a_stiff_implicit_spring_is_stable_and_the_guard_lets_it_run() {
    let mut b = cpu(beads(100.0, 1.0));
    let mut s = stretch(&mut b);
    // Within the rounding of f32 positions near 5 mm (an ulp is 4.7e-10 m).
    let ulps = 1e-9;
    for step in 1..=20 {
        b.step();
        let s2 = stretch(&mut b);
        assert!(
            s2 >= -ulps && s2 <= s + ulps,
            "step {step}: the stretch went from {s} to {s2}"
        );
        s = s2;
    }
    let dt = 1e-3;
    for (lambda, refused) in [(1.0, false), (0.5, false), (0.0, true)] {
        let report = grains_core::timestep::timestep_report(&beads(100.0, lambda));
        assert_eq!(
            report.warning(dt).is_some(),
            refused,
            "lambda {lambda}: {:?}",
            report.warning(dt)
        );
    }
}
