//! The implicit dynamics modes (`[simulation] dynamics`): overdamped, underdamped and static
//! solves against closed forms, their ledger, and their refusals.

use grains_core::{Backend, CpuBackend, World};
use grains_tests::test_world;

/// Scene text: the `[simulation]` lines, one material block per `(name, density, drag)`, and
/// the rest.
fn scene(sim: &str, materials: &[(&str, f64, f64)], rest: &str) -> String {
    scene_young(sim, materials, 1e7, rest)
}

/// [`scene`] with every material's Young's modulus `young` (Pa).
fn scene_young(sim: &str, materials: &[(&str, f64, f64)], young: f64, rest: &str) -> String {
    let mut s = format!(
        "[simulation]\n{sim}\n\n[domain]\nmin = [-0.1, -0.1, -0.1]\nmax = [0.1, 0.1, 0.1]\n"
    );
    for (name, density, drag) in materials {
        s += &format!(
            "\n[[material]]\nname = \"{name}\"\ndensity = {density:e}\nyoung = {young:e}\n\
             poisson = 0.3\nsubstrate_friction = {drag:e}\nsubstrate_rotational_friction = 1.0e-6\n"
        );
    }
    s + "\n" + rest
}

fn cpu(w: World) -> CpuBackend {
    CpuBackend::new(w).expect("cpu backend")
}

/// Each backend an implicit test runs on: the CPU (its f64 solve), and the GPU (its f32 solve)
/// where there is an adapter: lavapipe counts, and under CI one is required.
fn backends(w: World) -> Vec<Box<dyn Backend>> {
    let mut out: Vec<Box<dyn Backend>> = vec![Box::new(cpu(w.clone()))];
    if let Some(ctx) = crate::gpu::gpu_context() {
        let g = grains_gpu::GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
        out.push(Box::new(g));
    }
    out
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
    for mut b in backends(w) {
        for step in 1..=3 {
            b.step();
            let s = b.snapshot();
            let (vz, z) = (s.vel[0][2] as f64, s.pos[0][2] as f64);
            assert!(
                (vz - v).abs() <= 1e-6 * v.abs(),
                "{}, step {step}: v {vz} against {v}",
                b.name()
            );
            let z_expected = v * 1e-3 * step as f64;
            assert!(
                (z - z_expected).abs() <= 1e-5 * z_expected.abs(),
                "{}, step {step}: z {z} against {z_expected}",
                b.name()
            );
        }
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
    // The velocities step one moves by are solved from the starting state. The GPU's f32 solve
    // stops at the same tolerance, 1e-8 of the right-hand side, its rounding a few 1e-8 more.
    for mut b in backends(w) {
        let name = b.name();
        let s = b.snapshot();
        for (i, want) in [(0, v1), (1, v2)] {
            let got = s.vel[i][2] as f64;
            assert!(
                (got - want).abs() <= 1e-6 * want.abs(),
                "{name}, sphere {i}: v {got} against {want}"
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
                "{name}, sphere {i} moved {moved}"
            );
        }
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

fn stretch(b: &mut dyn Backend) -> f64 {
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
        for mut b in backends(beads(a, lambda)) {
            let mut s = stretch(b.as_mut());
            for step in 1..=5 {
                b.step();
                let s2 = stretch(b.as_mut());
                // Positions are f32 near 5 mm: the stretch of 0.1 mm and less is known to a
                // few 1e-10 m, so the ratio to 1e-4 while the stretch stays above 1e-6 m.
                assert!(
                    (s2 / s - factor).abs() <= 1e-4,
                    "{}, lambda {lambda}, step {step}: ratio {} against {factor}",
                    b.name(),
                    s2 / s
                );
                s = s2;
            }
        }
    }
}

/// At `k dt / gamma_0 = 100`, lambda = 1 stays stable and monotone, and the time-step guard
/// lets it run; lambda = 0 would not be stable there, and the guard says so.
#[test]
fn a_stiff_implicit_spring_is_stable_and_the_guard_lets_it_run() {
    for mut b in backends(beads(100.0, 1.0)) {
        let mut s = stretch(b.as_mut());
        // Within the rounding of f32 positions near 5 mm (an ulp is 4.7e-10 m).
        let ulps = 1e-9;
        for step in 1..=20 {
            b.step();
            let s2 = stretch(b.as_mut());
            assert!(
                s2 >= -ulps && s2 <= s + ulps,
                "{}, step {step}: the stretch went from {s} to {s2}",
                b.name()
            );
            s = s2;
        }
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

/// The underdamped mode's semi-implicit kick: one sphere with drag gamma_0 and mass m under
/// gravity follows `v_{n+1} = v_n + dt (m g - gamma_0 v_n) / (m + lambda dt gamma_0)` exactly,
/// towards the terminal velocity `m g / gamma_0`.
#[test]
fn an_underdamped_sphere_follows_the_semi_implicit_recurrence() {
    let (r, rho, g0, dt, lambda) = (0.001, 2500.0, 1e-4, 1e-3, 1.0);
    let text = scene(
        &format!(
            "steps = 10\ndt = {dt:e}\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"underdamped\"\n\
             implicitness = {lambda:?}"
        ),
        &[("bead", rho, g0)],
        "[[particles]]\nmaterial = \"bead\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n",
    );
    let m = rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let mut v = 0.0f64;
    for mut b in backends(test_world(&text)) {
        v = 0.0;
        for step in 1..=50 {
            b.step();
            v += dt * (m * -9.81 - g0 * v) / (m + lambda * dt * g0);
            let got = b.snapshot().vel[0][2] as f64;
            assert!(
                (got - v).abs() <= 1e-5 * v.abs(),
                "{}, step {step}: v {got} against {v}",
                b.name()
            );
        }
    }
    // Fifty steps of dt against m/gamma_0 = 0.105 s: well on the way to m g / gamma_0.
    assert!(v < -0.3 * m * 9.81 / g0);
}

/// A hanging chain of `n` springs (stiffness k) whose top bead is held and whose bottom bead
/// weighs F (the others nearly nothing): one static solve stretches it by `n F / k`.
#[test]
fn a_static_chain_stretches_by_n_f_over_k_in_one_solve() {
    let (n, k) = (8usize, 2.0);
    let positions: Vec<String> = (0..=n)
        .map(|i| format!("[0.0, 0.0, {:?}]", -0.005 * i as f64))
        .collect();
    let fixed: Vec<&str> = (0..=n)
        .map(|i| if i == 0 { "true" } else { "false" })
        .collect();
    let pairs: Vec<String> = (0..n).map(|i| format!("[{i}, {}]", i + 1)).collect();
    let text = scene(
        "steps = 1\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"static\"",
        &[("light", 1e-6, 0.0), ("heavy", 1e5, 0.0)],
        &format!(
            "[[particles]]\nmaterial = \"light\"\nradius = 0.001\npositions = [{}]\nfixed = [{}]\n\n\
             [[particles]]\nmaterial = \"heavy\"\nradius = 0.001\npositions = [{}]\n\n\
             [[interaction]]\nbetween = [\"light\", \"light\"]\nnormal = {{ law = \"hertz\" }}\n\n\
             [[interaction]]\nbetween = [\"light\", \"heavy\"]\nnormal = {{ law = \"hertz\" }}\n\n\
             [[bond]]\npairs = [{}]\nnormal = {{ law = \"spring\", stiffness = {k:?}, rest_length = 0.005 }}\n\n\
             [[bond]]\npairs = [[{}, {}]]\nnormal = {{ law = \"spring\", stiffness = {k:?}, rest_length = 0.005 }}\n",
            positions[..n].join(", "),
            fixed[..n].join(", "),
            positions[n],
            pairs[..n - 1].join(", "),
            n - 1,
            n
        ),
    );
    let w = test_world(&text);
    let vol = 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    let (f_end, f_light) = (1e5 * vol * 9.81, 1e-6 * vol * 9.81);
    // The light beads' own weight, summed as each spring carries those below it: a few 1e-11
    // of the end's.
    let light: f64 = (1..n).map(|i| (n - i) as f64 * f_light).sum::<f64>() / k;
    let want = n as f64 * f_end / k + light;
    for mut b in backends(w) {
        let name = b.name();
        let z0 = b.snapshot().pos[n][2] as f64;
        b.step();
        let stretch = z0 - b.snapshot().pos[n][2] as f64;
        // f32 positions near 0.04 m + 0.16 m: an ulp is 1.5e-8 m of a 0.16 m stretch.
        assert!(
            (stretch - want).abs() <= 1e-6 * want,
            "{name}: stretch {stretch} against n F / k = {want}"
        );
        // A second solve at the stretched state finds it in balance.
        let z1 = b.snapshot().pos[n][2] as f64;
        b.step();
        let again = (z1 - b.snapshot().pos[n][2] as f64).abs();
        assert!(again <= 1e-6 * want, "{name}: moved {again} more");
    }
}

/// A string under tension T (two springs of length L from held ends, stretched past their rest
/// length) resists a transverse load F on its middle bead with stiffness `2 T / L`: one static
/// solve moves the bead by `F L / (2 T)` across.
#[test]
fn a_string_under_tension_resists_a_transverse_load_with_two_t_over_l() {
    let (k, l, l0) = (5.0, 0.01, 0.008);
    let tension = k * (l - l0);
    let text = scene(
        "steps = 1\ngravity = [0.0, -9.81, 0.0]\ndynamics = \"static\"",
        &[("bead", 1000.0, 0.0)],
        &format!(
            "[[particles]]\nmaterial = \"bead\"\nradius = 0.001\n\
             positions = [[-{l:?}, 0.0, 0.0], [0.0, 0.0, 0.0], [{l:?}, 0.0, 0.0]]\n\
             fixed = [true, false, true]\n\n\
             [[interaction]]\nbetween = [\"bead\", \"bead\"]\nnormal = {{ law = \"hertz\" }}\n\n\
             [[bond]]\npairs = [[0, 1], [1, 2]]\n\
             normal = {{ law = \"spring\", stiffness = {k:?}, rest_length = {l0:?} }}\n"
        ),
    );
    let f = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-9 * 9.81;
    let want = -f * l / (2.0 * tension);
    for mut b in backends(test_world(&text)) {
        b.step();
        let s = b.snapshot();
        let (x, y) = (s.pos[1][0] as f64, s.pos[1][1] as f64);
        assert!(
            (y - want).abs() <= 1e-5 * want.abs(),
            "{}: moved {y} across against F L / (2 T) = {want}",
            b.name()
        );
        assert!(x.abs() <= 1e-12, "{}: moved {x} along", b.name());
    }
}

/// A bed of overdamped spheres settling on a floor (Hertz contacts, drag, a constant
/// resistance between spheres): the ledger closes, the potential energy given up being the
/// drag's and the resistances' dissipation `v^T Gamma v dt` (with the implicit scheme's own
/// `(lambda - 1/2) dt^2 v^T K v`).
#[test]
fn the_overdamped_ledger_closes() {
    for b in backends(overdamped_bed()) {
        ledger_closes(b);
    }
}

fn ledger_closes(mut b: Box<dyn Backend>) {
    let name = b.name();
    let e0 = b.energy();
    let mut last = e0;
    for _ in 0..20 {
        b.run(1000);
        last = b.energy();
    }
    let given_up = e0.gravitational - last.gravitational;
    let dissipated = last.damping_dissipated - e0.damping_dissipated;
    let drift = (last.total - e0.total).abs();
    assert!(given_up > 0.0 && dissipated > 0.0, "{last:?}");
    assert_eq!((last.kinetic, last.rotational), (0.0, 0.0));
    // What stays unbooked: a contact's first step, which the solve sees only from the step
    // after it forms (its onset is explicit), and the scheme's residue, third order in the
    // step. At dt = "auto" (0.1 gamma_0 / k) it is 4.4e-4 of the energy given up.
    assert!(
        drift <= 1e-3 * given_up,
        "{name}: the total drifted {drift:e} J of {given_up:e} J given up ({e0:?} {last:?})"
    );
}

/// The error of a scene that does not parse.
fn refusal(text: &str) -> String {
    match grains_scene::parse_scene(text, std::path::Path::new("<test>")) {
        Ok(_) => panic!("the scene parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const ONE_CELL: &str =
    "[[particles]]\nmaterial = \"cell\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n";

/// Bad dynamics settings are refused at their key, saying what would be right.
#[test]
fn bad_dynamics_settings_are_refused_where_they_are_written() {
    let overdamped = "steps = 1\ndt = 1e-3\ndynamics = \"overdamped\"";
    let cases: Vec<(String, &[&str])> = vec![
        (
            scene(
                "steps = 1\ndynamics = \"viscous\"",
                &[("cell", 1000.0, 1e-3)],
                ONE_CELL,
            ),
            &[
                "<test>:3:",
                "simulation.dynamics",
                "\"overdamped\"",
                "found \"viscous\"",
            ],
        ),
        (
            scene(
                &format!("{overdamped}\nimplicitness = 1.5"),
                &[("cell", 1000.0, 1e-3)],
                ONE_CELL,
            ),
            &[
                "<test>:5:",
                "simulation.implicitness",
                "[0, 1]",
                "found 1.5",
            ],
        ),
        (
            scene(
                "steps = 1\nimplicitness = 0.5",
                &[("cell", 1000.0, 1e-3)],
                ONE_CELL,
            ),
            &["simulation.implicitness", "\"inertial\""],
        ),
        (
            scene(
                &format!("{overdamped}\nsolver = {{ tolerance = 1e-8, iterations = 5 }}"),
                &[("cell", 1000.0, 1e-3)],
                ONE_CELL,
            ),
            &["simulation.solver", "iterations", "max_iterations"],
        ),
        (
            scene(overdamped, &[("cell", 1000.0, 0.0)], ONE_CELL),
            &[
                "material[0].substrate_friction",
                "\"cell\"",
                "singular",
                "> 0",
            ],
        ),
        (
            scene(
                "steps = 1\ndt = 1e-5",
                &[("cell", 1000.0, 1e-3)],
                &format!(
                    "{ONE_CELL}\n[[interaction]]\nbetween = [\"cell\", \"cell\"]\n\
                     normal = {{ law = \"hertz\" }}\n\
                     resistance = {{ law = \"constant_resistance\", normal = 1.0 }}\n"
                ),
            ),
            &[
                "interaction[0].resistance",
                "implicit solve",
                "\"inertial\"",
                "dynamics = \"overdamped\"",
            ],
        ),
        (
            scene(
                overdamped,
                &[("cell", 1000.0, 1e-3)],
                &format!(
                    "{ONE_CELL}\n[[interaction]]\nbetween = [\"cell\", \"cell\"]\n\
                     normal = {{ law = \"hertz\" }}\n\
                     resistance = {{ law = \"constant_resistance\", normal = -1.0 }}\n"
                ),
            ),
            &["interaction[0].resistance.normal", ">= 0"],
        ),
    ];
    for (text, wanted) in cases {
        let e = refusal(&text);
        for w in wanted {
            assert!(e.contains(w), "{e}\nlacks {w:?}");
        }
    }
}

/// An implicit scene, shells and all, runs on the GPU asked for, and on the CPU asked for.
#[test]
fn an_implicit_scene_with_shells_runs_on_either_backend() {
    use grains_cli::BackendArg;
    let shell = "[[shell]]\nmaterial = \"skin\"\nthickness = 2.0e-4\n\
                 icosphere = { center = [0.0, 0.0, 0.05], radius = 0.005, subdivisions = 1 }\n\
                 stretch = { law = \"elastic_shell_spring\" }\n\
                 damping = { law = \"shell_viscosity\", viscosity = 1.0 }\n\n\
                 [[interaction]]\nbetween = [\"cell\", \"skin\"]\nnormal = { law = \"hertz\" }\n\n\
                 [[interaction]]\nbetween = [\"skin\", \"skin\"]\nnormal = { law = \"hertz\" }\n";
    let world = || {
        test_world(&scene(
            "steps = 1\ndt = 1e-3\ndynamics = \"overdamped\"",
            &[("cell", 1000.0, 1e-3), ("skin", 1000.0, 1e-3)],
            &format!("{ONE_CELL}\n{shell}"),
        ))
    };
    let (b, _) = grains_cli::make_backend_from(world(), BackendArg::Cpu, None).expect("cpu");
    assert_eq!(b.name(), "cpu");
    if crate::gpu::gpu_context().is_some() {
        let (mut b, message) = grains_cli::make_backend_from(world(), BackendArg::Gpu, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(b.name(), "cpu", "{message}");
        b.try_run(3).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// A solve that cannot reach its tolerance in `max_iterations` stops a guarded run with the
/// step, the residual reached and a likely cause, never a NaN run.
#[test]
fn a_solve_that_does_not_converge_stops_the_run() {
    let text = scene(
        "steps = 1\ndt = 1e-3\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"overdamped\"\n\
         solver = { tolerance = 1e-12, max_iterations = 1 }",
        &[("light", 1000.0, 2e-3), ("heavy", 3000.0, 2e-3)],
        "[[particles]]\nmaterial = \"light\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n\n\
         [[particles]]\nmaterial = \"heavy\"\nradius = 0.001\npositions = [[0.001, 0.0, 0.0020001]]\n\n\
         [[interaction]]\nbetween = [\"light\", \"heavy\"]\nnormal = { law = \"hertz\" }\n\n\
         [[bond]]\npairs = [[0, 1]]\nnormal = { law = \"spring\", stiffness = 1.0 }\n\
         resistance = { law = \"constant_resistance\", normal = 5.0e-3, tangential = 1.0e-3 }\n",
    );
    let mut b = cpu(test_world(&text));
    let e = match b.run_guarded(5) {
        Err(e) => e.to_string(),
        Ok(f) => panic!("the run went on ({f:?})"),
    };
    assert_converge_refusal(&e);
    let s = b.snapshot();
    assert!(s.vel.iter().all(|v| v.iter().all(|x| x.is_finite())));
    // On the GPU the starting state's solve already fails: the backend is not made.
    if let Some(ctx) = crate::gpu::gpu_context() {
        match grains_gpu::GpuBackend::new(test_world(&text), &ctx) {
            Ok(_) => panic!("the GPU backend solved a two-iteration system in one"),
            Err(e) => assert_converge_refusal(&e.to_string()),
        }
    }
}

fn assert_converge_refusal(e: &str) {
    for w in [
        "step 0",
        "did not converge",
        "1 conjugate-gradient",
        "of the right-hand side",
    ] {
        assert!(e.contains(w), "{e}\nlacks {w:?}");
    }
}

/// An overdamped 2-D scene keeps every particle in z = 0 with no z velocity.
#[test]
fn an_overdamped_planar_bed_stays_in_its_plane() {
    let text = scene_young(
        "steps = 1\ngravity = [0.0, -9.81, 0.0]\ndynamics = \"overdamped\"",
        &[("cell", 1000.0, 2e-4)],
        1e4,
        "[[particles]]\nmaterial = \"cell\"\nradius = 0.001\n\
         lattice = { origin = [-0.004, 0.0012, 0.0], spacing = 0.0021, count = [4, 4, 1], jitter = 0.02, seed = 5 }\n\n\
         [[wall]]\nmaterial = \"cell\"\nplane = { point = [0.0, 0.0, 0.0], normal = [0.0, 1.0, 0.0] }\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\nnormal = { law = \"hertz\" }\n\
         resistance = { law = \"constant_resistance\", normal = 1e-4, tangential = 5e-5 }\n",
    )
    .replace("[domain]\n", "[domain]\ndimensions = 2\n");
    for mut b in backends(test_world(&text)) {
        b.run(3000);
        let s = b.snapshot();
        assert!(s.pos.iter().all(|p| p[2] == 0.0 && p[1] > 0.0));
        assert!(s.vel.iter().all(|v| v[2] == 0.0));
        assert!(s.omega.iter().all(|o| o[0] == 0.0 && o[1] == 0.0));
        assert!(b.contacts().walls >= 4, "{}: {:?}", b.name(), b.contacts());
    }
}

/// The world of `scenes/<name>.toml`.
fn shipped(name: &str) -> World {
    let path = grains_tests::workspace_root().join(format!("scenes/{name}.toml"));
    grains_scene::load_scene(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .world
}

/// `scenes/spring_network.toml`: after its five load steps every free node of the hanging
/// sheet is in equilibrium, its springs' pull balancing its weight, and the last load step
/// moves nothing; the held row stays where it was and the whole sheet in its plane.
#[test]
fn the_shipped_spring_network_hangs_in_equilibrium() {
    let w = shipped("spring_network");
    let g = w.gravity;
    let mut b = cpu(w);
    let start = b.snapshot().pos.to_vec();
    b.run(4);
    let before_last = b.snapshot().pos.to_vec();
    b.run(1);
    let s = b.snapshot();
    let (mut worst, mut held_pull, mut weight_all) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..s.pos.len() {
        assert_eq!(s.pos[i][2], 0.0);
        if s.vel[i][3] == 0.0 {
            assert_eq!(s.pos[i], start[i], "held node {i} moved");
            held_pull += s.force[i][1] as f64;
            continue;
        }
        let m = 1.0 / s.vel[i][3] as f64;
        weight_all += m * g[1];
        let net = [
            s.force[i][0] as f64 + m * g[0],
            s.force[i][1] as f64 + m * g[1],
        ];
        worst = worst.max(net[0].hypot(net[1]));
        let moved = (s.pos[i][1] - before_last[i][1]).abs() as f64;
        assert!(moved <= 1e-8, "node {i} still moved {moved} m");
    }
    // Each spring's force is k times an f32 difference of coordinates near 0.05 m (an ulp is
    // 3.7e-9 m): six springs of 10 N/m leave a node's balance uncertain by about 6 x 10 x 2 ulp
    // = 4.5e-7 N, against a load of 1e-3 N on each bottom node.
    assert!(worst <= 5e-7, "a node's net force is {worst:e} N");
    // The held row carries the whole sheet and its load.
    assert!(
        (held_pull - weight_all).abs() <= 1e-4 * weight_all.abs(),
        "the held row pulls {held_pull} N against a weight of {weight_all} N"
    );
    let sag = start
        .iter()
        .zip(s.pos.iter())
        .map(|(a, b)| (a[1] - b[1]) as f64)
        .fold(0.0, f64::max);
    assert!(sag > 1e-3, "the sheet sagged by {sag} m only");
}

/// `scenes/tissue.toml` for its first 5 s: every cell stays in the plane, inside the walls, and
/// the moving wall, once it meets the sheet, takes a growing load.
#[test]
fn the_shipped_tissue_is_compressed_by_its_wall() {
    let w = shipped("tissue");
    let mut b = cpu(w);
    let mut loads = Vec::new();
    for _ in 0..5 {
        b.run(200);
        loads.push(b.wall_loads()[3].force[0]);
    }
    let wall_x = b.walls()[3].point[0];
    let s = b.snapshot();
    for p in s.pos.iter() {
        assert_eq!(p[2], 0.0);
        assert!(p[0] > 0.0 && p[0] < wall_x && p[1] > 0.0 && p[1] < 5.15e-4);
    }
    assert!(loads[4] > loads[2] && loads[2] > 0.0, "{loads:?}");
}

/// In an implicit world a shell's edge viscosity is a matrix element (Mpacts
/// N_T_ShellViscosity): the overdamped solve of a viscous sheet hanging from one node gives the
/// velocities of the same nodes joined along the same edges by `constant_resistance` bonds of
/// `Gamma = mu t / sqrt(3)` both along and across (to 1e-6), and the shell pass adds no explicit
/// dashpot beside it.
#[test]
fn a_shells_viscosity_is_a_matrix_element() {
    use grains_core::dynamics::{Dynamics, Mode};
    use grains_core::kernels::laws::constant_resistance::ConstantResistanceSpec;
    use grains_core::kernels::laws::spring::SpringSpec;
    use grains_core::kernels::shell::{DampingLaw, ShellLaws};
    use grains_core::materials::Interaction;
    use grains_core::shells::{Mesh, ShellSpec, Shells};
    use grains_core::LawSpec;
    let (mu, t, gamma0) = (2.0, 1e-4, 1e-6);
    let mut mat = grains_tests::worlds::material("membrane", 1e6, 1000.0);
    mat.drag.translational = gamma0;
    mat.drag.rotational = 1e-12;
    let spec = ShellSpec {
        mesh: Mesh::sheet([0.0; 3], [0.004, 0.003], [4, 3]),
        material: 0,
        thickness: t,
        contact_radius: Some(1e-4),
        velocity: [0.0; 3],
        laws: ShellLaws {
            damping: Some(DampingLaw::ShellViscosity { viscosity: mu }),
            ..Default::default()
        },
        contact: None,
    };
    let mut p = grains_core::Particles::default();
    let mut sh = Shells::default();
    sh.add(&spec, std::slice::from_ref(&mat), &mut p)
        .expect("shell");
    // The first node held: the others hang from it through the viscous edges.
    p.vel[0][3] = 0.0;
    let dynamics = Dynamics {
        mode: Mode::Overdamped,
        implicitness: 0.0,
        ..Dynamics::default()
    };
    let hertz = || Interaction::new(0, 0, vec![grains_tests::worlds::hertz()]);
    let world = |p: grains_core::Particles| {
        World::new(
            p,
            Vec::new(),
            vec![mat.clone()],
            vec![hertz()],
            grains_tests::worlds::open_domain(0.02),
            [0.0, -9.81, 0.0],
            1e-3,
            1e-4,
        )
        .expect("world")
    };
    let edges: Vec<[u32; 2]> = sh.edges.iter().map(|e| [e[0], e[1]]).collect();
    let shell = world(p.clone())
        .with_shells(sh)
        .and_then(|w| w.with_dynamics(dynamics))
        .expect("shell world");
    let g = grains_core::kernels::shell::shell_viscosity::coefficient(mu, t);
    let bonds = vec![Interaction::new(
        0,
        0,
        vec![
            LawSpec::Spring(SpringSpec {
                stiffness: 1e-12,
                compression_stiffness: 1e-12,
                rest_length: None,
                rupture_length: None,
                damping: 0.0,
                relaxation_time: 0.0,
                slip_threshold: 0.0,
            }),
            LawSpec::ConstantResistance(ConstantResistanceSpec {
                normal: g,
                tangential: g,
            }),
        ],
    )];
    let bonded = world(p)
        .with_fixed_pairs(edges, bonds)
        .and_then(|w| w.with_dynamics(dynamics))
        .expect("bonded world");
    for (mut a, mut b) in backends(shell).into_iter().zip(backends(bonded)) {
        shell_against_bonds(a.as_mut(), b.as_mut(), gamma0);
    }
}

/// The sheet of viscous edges `a` against the same nodes bonded by resistances `b` (both on
/// one backend; drag `gamma0`).
fn shell_against_bonds(a: &mut dyn Backend, b: &mut dyn Backend, gamma0: f64) {
    let name = a.name();
    let (va, vb) = (a.snapshot().vel.to_vec(), b.snapshot().vel.to_vec());
    let scale = va.iter().map(|v| v[1].abs()).fold(0.0f32, f32::max);
    assert!(scale > 0.0);
    let same = |va: &[[f32; 4]], vb: &[[f32; 4]], when: &str| {
        for (i, (x, y)) in va.iter().zip(vb).enumerate() {
            for k in 0..3 {
                assert!(
                    (x[k] - y[k]).abs() <= 1e-6 * scale,
                    "{name}, {when}, node {i}: {x:?} against {y:?}"
                );
            }
        }
    };
    same(&va, &vb, "at the start");
    // Moving, an explicit dashpot beside the matrix element would now differ.
    a.run(3);
    b.run(3);
    same(&a.snapshot().vel, &b.snapshot().vel, "after 3 steps");
    // The edges hold the hanging nodes back: slower than their free fall at m g / gamma_0.
    let free = 9.81 / (va[1][3] as f64 * gamma0);
    assert!(
        (va[1][1].abs() as f64) < 0.9 * free,
        "{} against {free}",
        va[1][1]
    );
}

/// A bed of 48 overdamped spheres above a floor (Hertz of 10 kPa, drag, a constant resistance
/// between spheres), at dt = "auto".
fn overdamped_bed() -> World {
    test_world(&scene_young(
        "steps = 1\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"overdamped\"",
        &[("cell", 1000.0, 2e-4)],
        1e4,
        "[[particles]]\nmaterial = \"cell\"\nradius = 0.001\n\
         lattice = { origin = [-0.004, -0.004, 0.0012], spacing = 0.0021, count = [4, 4, 3], jitter = 0.02, seed = 3 }\n\n\
         [[wall]]\nmaterial = \"cell\"\nplane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\nnormal = { law = \"hertz\" }\n\
         resistance = { law = \"constant_resistance\", normal = 1e-4, tangential = 5e-5 }\n",
    ))
}

/// An overdamped run gives the same bits on one thread as on two, and resumed from its state
/// halfway (the pairs' contact-matrix records travel with the history) as in one go.
#[test]
fn an_overdamped_run_is_bitwise_repeatable_and_resumable() {
    let w = overdamped_bed();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut b = cpu(w.clone());
            b.run(3000);
            b.snapshot().into_owned()
        })
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(one.pos, two.pos, "positions on 1 and 2 threads");
    assert_eq!(one.vel, two.vel, "velocities on 1 and 2 threads");
    let mut first = cpu(w.clone());
    first.run(1500);
    assert!(first.contacts().pairs > 0, "nothing touched yet");
    let mut resumed = CpuBackend::from_state(w.clone(), first.state()).expect("resume");
    resumed.run(1500);
    let r = resumed.snapshot().into_owned();
    assert_eq!(r.pos, two.pos, "positions after resuming");
    assert_eq!(r.vel, two.vel, "velocities after resuming");
}

/// `grains bench --scene tissue` times the overdamped tissue in 2-D and in 3-D beside the
/// inertial settle of the same size.
#[test]
fn the_tissue_bench_builds_two_overdamped_tissues_and_the_settle() {
    use grains_core::dynamics::Mode;
    let worlds = grains_cli::bench::bench_worlds("tissue", 400);
    let labels: Vec<&str> = worlds.iter().map(|(l, _)| *l).collect();
    assert_eq!(labels, ["tissue 2-D", "tissue 3-D", "settle"]);
    let w: Vec<World> = worlds
        .into_iter()
        .map(|(l, w)| w.unwrap_or_else(|e| panic!("{l}: {e:#}")))
        .collect();
    assert_eq!(w[0].dynamics.mode, Mode::Overdamped);
    assert!(w[0].planar && w[0].particles.len() == 400);
    assert_eq!(w[1].dynamics.mode, Mode::Overdamped);
    assert!(!w[1].planar && w[1].particles.len() == 343);
    assert_eq!(w[2].dynamics.mode, Mode::Inertial);
    let mut b = cpu(w[0].clone());
    b.run(5);
    assert!(b.counters().solves == 6 && b.counters().solve_iterations > 0);
}
