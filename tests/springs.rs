//! Springs on bonds (fixed pairs): `spring`, `spring_damper` and `serial_dashpot` against
//! their closed forms, the `[[bond]]` scene block and its errors, rupture logging, and the
//! hanging-chain scene on both backends.

use grains_core::kernels::laws::spring::{SpringSpec, SPRING_BROKEN};
use grains_core::kernels::sources::fixed::broken_fixed_pairs;
use grains_core::materials::Interaction;
use grains_core::{Backend, CpuBackend, LawSpec, Particles, World};
use grains_tests::scenes::SceneText;
use grains_tests::worlds::{hertz_only, material, open_domain, world};
use grains_tests::{csv_rows, run_scene, scene_backends, workspace_root};

const DENSITY: f64 = 2500.0;
const R: f64 = 1e-3;

fn mass() -> f64 {
    DENSITY * 4.0 / 3.0 * std::f64::consts::PI * R.powi(3)
}

fn spring(k: f64, rest: Option<f64>, rupture: Option<f64>) -> SpringSpec {
    SpringSpec {
        stiffness: k,
        compression_stiffness: k,
        rest_length: rest,
        rupture_length: rupture,
        damping: 0.0,
        relaxation_time: 0.0,
        slip_threshold: 0.0,
    }
}

/// Particles at `xs` (m, along x), with velocities `vs` and the `fixed` flags, joined in a
/// chain by bonds of `law`; contacts are Hertz.
fn bonded(
    xs: &[[f64; 3]],
    vs: &[[f64; 3]],
    fixed: &[bool],
    law: LawSpec,
    gravity: [f64; 3],
    dt: f64,
) -> World {
    let mut p = Particles::default();
    for ((x, v), &f) in xs.iter().zip(vs).zip(fixed) {
        p.push_sphere(*x, R, *v, [0.0; 3], 0, DENSITY, f);
    }
    let pairs: Vec<[u32; 2]> = (1..xs.len() as u32).map(|k| [k - 1, k]).collect();
    world(
        p,
        vec![],
        material("glass", 1e7, DENSITY),
        hertz_only(),
        open_domain(0.2),
        gravity,
        dt,
        0.2 * R,
    )
    .with_fixed_pairs(pairs, vec![Interaction::new(0, 0, vec![law])])
    .expect("bonded world")
}

/// Two free beads on a spring of k = 1 N/m, stretched by 1 mm and let go, oscillate with
/// period `2 pi sqrt(m* / k)`, m* = m / 2. Measured between the first and the eleventh upward
/// crossing of the rest length (linear interpolation). Tolerance 1e-3: velocity Verlet's
/// period error is (omega dt)^2 / 24 = 4e-6 here, the crossings' interpolation a few 1e-5.
#[test]
fn two_masses_on_a_spring_oscillate_with_the_closed_form_period() {
    let k = 1.0;
    let rest = 0.005;
    let omega = (k / (0.5 * mass())).sqrt();
    let period = 2.0 * std::f64::consts::PI / omega;
    let dt = period / 1000.0;
    let w = bonded(
        &[[-0.003, 0.0, 0.0], [0.003, 0.0, 0.0]],
        &[[0.0; 3], [0.0; 3]],
        &[false, false],
        LawSpec::Spring(spring(k, Some(rest), None)),
        [0.0; 3],
        dt,
    );
    let mut b = CpuBackend::new(w).expect("backend");
    let mut crossings = Vec::new();
    let mut prev = 0.006 - rest;
    let mut step = 0u64;
    while crossings.len() < 11 && step < 20_000 {
        b.step();
        step += 1;
        let s = (b.pos[1][0] - b.pos[0][0]) as f64 - rest;
        if prev < 0.0 && s >= 0.0 {
            crossings.push(step as f64 - 1.0 + prev / (prev - s));
        }
        prev = s;
    }
    assert_eq!(crossings.len(), 11, "oscillates");
    let measured = (crossings[10] - crossings[0]) / 10.0 * dt;
    assert!(
        (measured / period - 1.0).abs() < 1e-3,
        "period {measured:e} s vs 2 pi sqrt(m*/k) = {period:e} s"
    );
}

/// A chain of N = 10 springs hanging from a fixed bead comes to rest stretched by
/// `m g N (N + 1) / (2 k)` in all (spring n from the bottom carries n beads). Critically
/// damped slowest mode (c = 0.05 N s/m); 0.4 s of settling. Tolerance 2e-3 of the stretch:
/// the residual of the decay (exp(-6) of the slowest mode) and f32 positions.
#[test]
fn a_hanging_chain_stretches_by_the_closed_form() {
    let (n, k, g) = (10usize, 1.0, 9.81);
    let xs: Vec<[f64; 3]> = (0..=n).map(|i| [0.0, 0.0, -0.005 * i as f64]).collect();
    let mut fixed = vec![false; n + 1];
    fixed[0] = true;
    let mut law = spring(k, Some(0.005), None);
    law.damping = 0.05;
    let dt = 5e-6;
    let w = bonded(
        &xs,
        &vec![[0.0; 3]; n + 1],
        &fixed,
        LawSpec::SpringDamper(law),
        [0.0, 0.0, -g],
        dt,
    );
    let mut b = CpuBackend::new(w).expect("backend");
    b.run((0.4 / dt) as u64);
    let stretch = -(b.pos[n][2] as f64) - 0.005 * n as f64;
    let want = mass() * g * (n * (n + 1)) as f64 / (2.0 * k);
    assert!(
        (stretch / want - 1.0).abs() < 2e-3,
        "stretch {stretch:e} m vs m g N (N + 1) / (2k) = {want:e} m"
    );
}

/// The undamped chain conserves the ledger's total up to velocity Verlet's error, which falls
/// as dt^2: halving dt divides the largest departure over the same 0.05 s by 4 (3 to 5 allowed;
/// the departures, 1e-6 and 2.6e-7 of the total here, sit well above the f32 floor).
#[test]
fn an_undamped_chain_conserves_energy_to_second_order_in_dt() {
    let n = 5usize;
    let xs: Vec<[f64; 3]> = (0..=n).map(|i| [0.0, 0.0, -0.005 * i as f64]).collect();
    let mut fixed = vec![false; n + 1];
    fixed[0] = true;
    let drift = |dt: f64| -> f64 {
        let w = bonded(
            &xs,
            &vec![[0.0; 3]; n + 1],
            &fixed,
            LawSpec::Spring(spring(1.0, Some(0.005), None)),
            [0.0, 0.0, -9.81],
            dt,
        );
        let mut b = CpuBackend::new(w).expect("backend");
        let e0 = b.energy();
        let scale = e0.kinetic + e0.elastic + e0.gravitational.abs();
        let mut worst = 0.0f64;
        for _ in 0..(0.05 / dt).round() as u64 {
            b.step();
            worst = worst.max((b.energy().total - e0.total).abs() / scale);
        }
        worst
    };
    let (coarse, fine) = (drift(4e-4), drift(2e-4));
    let ratio = coarse / fine;
    assert!(
        coarse > 5e-7 && (3.0..5.0).contains(&ratio),
        "energy departures {coarse:e} at dt and {fine:e} at dt/2: ratio {ratio}"
    );
}

/// Two kinematic beads moving apart at 0.5 m/s each stretch their bond past its rupture length
/// at step ceil((d_rupture - d0) / (v dt)): it breaks there, once; its history says so with the
/// step; and brought back to its rest length it never pulls again.
#[test]
fn a_spring_breaks_once_at_its_rupture_length_and_stays_broken() {
    let dt = 1e-5;
    let w = bonded(
        &[[-0.003, 0.0, 0.0], [0.003, 0.0, 0.0]],
        &[[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]],
        &[true, true],
        LawSpec::Spring(spring(1.0, None, Some(0.00800005))),
        [0.0; 3],
        dt,
    );
    // d(s) = 0.006 + 1.0 * s * dt > 0.00800005 first at s = 201 (200.005 steps).
    let expect = 201u64;
    let mut b = CpuBackend::new(w.clone()).expect("backend");
    let mut seen = Vec::new();
    for _ in 0..400 {
        b.step();
        let broken = broken_fixed_pairs(
            &w.table,
            &w.fixed_pairs,
            &w.particles.material,
            &b.fixed_history,
        );
        if !broken.is_empty() && seen.is_empty() {
            seen = broken;
            assert_eq!(
                b.counters().steps,
                expect,
                "breaks at the step it passes the length"
            );
        }
        if b.counters().steps < expect {
            assert!(b.fixed_slots[0].force[0] != 0.0, "pulls until it breaks");
        } else {
            assert_eq!(b.fixed_slots[0].force, [0.0; 3], "nothing after the break");
        }
    }
    assert_eq!(seen, vec![(0, expect)]);
    // Back to the rest length: still broken, still no force.
    b.pos[0][0] = -0.003;
    b.pos[1][0] = 0.003;
    b.vel[0] = [0.0, 0.0, 0.0, 0.0];
    b.vel[1] = [0.0, 0.0, 0.0, 0.0];
    b.run(10);
    assert_eq!(b.fixed_slots[0].force, [0.0; 3]);
    assert_eq!(b.fixed_history[1].to_bits(), SPRING_BROKEN);
}

/// Free beads flying apart break their bond; the energy the spring held at the break goes to
/// the dissipated column, so the ledger's total holds through it. Tolerance 1e-4: what remains
/// is the half step of spring work the leapfrog splits across the break, `F v dt / 2`, 4e-5 of
/// the total here.
#[test]
fn the_ledger_closes_through_a_break() {
    let w = bonded(
        &[[-0.003, 0.0, 0.0], [0.003, 0.0, 0.0]],
        &[[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]],
        &[false, false],
        LawSpec::Spring(spring(0.01, None, Some(0.008))),
        [0.0; 3],
        1e-5,
    );
    let mut b = CpuBackend::new(w).expect("backend");
    let e0 = b.energy().total;
    b.run(1000);
    let e = b.energy();
    assert_eq!(b.fixed_history[1].to_bits(), SPRING_BROKEN, "it broke");
    assert!(e.damping_dissipated > 0.0, "the release is booked");
    assert!((e.total - e0).abs() <= 1e-4 * e0, "{} vs {e0}", e.total);
}

/// A Maxwell element under a held stretch (two kinematic beads at rest, 6 mm apart, rest
/// length 5 mm) relaxes: its tension decays as exp(-t / tau), and the ledger's elastic plus
/// dissipated energy stays what the spring held at the start. Tolerance 1e-4: the update is
/// the exact exponential per step, so only f32 rounding remains.
#[test]
fn a_maxwell_element_relaxes_with_its_time_constant() {
    let (k, tau, dt) = (2.0, 1e-3, 1e-5);
    let mut law = spring(k, Some(0.005), None);
    law.relaxation_time = tau;
    let w = bonded(
        &[[-0.003, 0.0, 0.0], [0.003, 0.0, 0.0]],
        &[[0.0; 3], [0.0; 3]],
        &[true, true],
        LawSpec::SerialDashpot(law),
        [0.0; 3],
        dt,
    );
    let mut b = CpuBackend::new(w).expect("backend");
    let f0 = k * 0.001;
    let e0 = 0.5 * k * 0.001 * 0.001;
    for _ in 0..5 {
        b.run(100);
        let t = b.counters().steps as f64 * dt;
        // Step s's force uses the rest length after s relaxations (the first at step 0): the
        // pull on bead 0 (+x) is the tension.
        let tension = b.fixed_slots[0].force[0] as f64;
        let want = f0 * (-t / tau).exp();
        assert!(
            (tension / want - 1.0).abs() < 1e-4,
            "t = {t:e}: tension {tension:e} N vs {want:e} N"
        );
        let e = b.energy();
        assert!(
            ((e.elastic + e.damping_dissipated) / e0 - 1.0).abs() < 1e-4,
            "{e:?}"
        );
    }
}

/// Three glass beads in a row, then `bond` (the bond blocks' lines start at line 19).
fn scene_text(bond: &str) -> String {
    SceneText::new()
        .simulation(&["steps = 10"])
        .domain([-0.05; 3], [0.05; 3])
        .material("glass", 2500.0, 1.0e7, 0.3)
        .particles(
            "glass",
            0.001,
            &["positions = [[0.0, 0.0, 0.0], [0.0025, 0.0, 0.0], [0.006, 0.0, 0.0]]"],
        )
        .hertz("glass", "glass", &[])
        .block(bond)
        .build()
}

fn parse(bond: &str) -> Result<grains_scene::Scene, String> {
    grains_scene::parse_scene(&scene_text(bond), std::path::Path::new("s.toml"))
        .map_err(|e| e.to_string())
}

/// The `[[bond]]` block: pairs given or found touching (within a tolerance), and its errors,
/// each with its message.
#[test]
fn bond_blocks_build_fixed_pairs_and_refuse_mistakes() {
    let s = parse(
        "[[bond]]\npairs = [[0, 1], [1, 2]]\nnormal = { law = \"spring\", stiffness = 10.0 }\n",
    )
    .expect("valid");
    assert_eq!(s.world.fixed_pairs, vec![[0, 1], [1, 2]]);
    assert!(s.summary().contains("bonds       2"), "{}", s.summary());
    assert!(s
        .world
        .table
        .chains
        .iter()
        .any(|c| c.name() == "fixed__sphere_sphere__spring"));
    // Beads 0 and 1 are 0.5 mm apart (surfaces), 1 and 2 are 1.5 mm apart.
    let touching = |tol: &str| {
        parse(&format!(
            "[[bond]]\ntouching = true\n{tol}normal = {{ law = \"spring\", stiffness = 10.0 }}\n"
        ))
    };
    assert_eq!(
        touching("tolerance = 0.001\n")
            .expect("valid")
            .world
            .fixed_pairs,
        vec![[0, 1]]
    );
    assert_eq!(
        touching("tolerance = 0.002\n")
            .expect("valid")
            .world
            .fixed_pairs,
        vec![[0, 1], [1, 2]]
    );
    assert_eq!(
        touching("").expect_err("none touch"),
        "s.toml:19:12: bond[0].touching: no two particles are within 0 m of touching at the \
         start; place them closer or raise `tolerance` (m)"
    );
    let spring = "normal = { law = \"spring\", stiffness = 10.0 }\n";
    assert_eq!(
        parse(&format!("[[bond]]\npairs = [[0, 3]]\n{spring}")).expect_err("no such particle"),
        "s.toml:19:14: bond[0].pairs[0][1]: particle 3 does not exist: the scene has 3 \
         particles (ids 0 to 2)"
    );
    assert_eq!(
        parse(&format!("[[bond]]\npairs = [[0, 1], [1, 0]]\n{spring}")).expect_err("twice"),
        "s.toml:19:9: bond[0].pairs: particles 0 and 1 are bonded twice; a pair takes one bond \
         (give its chain all the laws it needs)"
    );
    assert_eq!(
        parse(&format!(
            "[[bond]]\npairs = [[0, 1]]\ntouching = true\n{spring}"
        ))
        .expect_err("both"),
        "s.toml:20:1: bond[0].touching: give either `pairs = [[i, j], ...]` or `touching = \
         true`, not both"
    );
    assert_eq!(
        parse(&format!(
            "[[bond]]\npairs = [[0, 1]]\n{spring}[[bond]]\npairs = [[1, 2]]\n{spring}"
        ))
        .expect_err("two blocks"),
        "s.toml:21:1: bond[1]: bond[0] already bonds particles of \"glass\" and \"glass\"; the \
         bonds of one pair of materials share one chain, so give them one [[bond]] block"
    );
    assert_eq!(
        parse("[[bond]]\npairs = [[0, 1]]\nnormal = { law = \"spring\", stiffness = 10.0, rest_length = 0.004, rupture_length = 0.003 }\n")
            .expect_err("rupture below rest"),
        "s.toml:20:67: bond[0].normal.rupture_length: rupture_length (3.000e-3 m) must be \
         longer than rest_length (4.000e-3 m)"
    );
}

/// `scenes/springs.toml` (the hanging chain): settled to the closed-form stretch on the CPU
/// (2e-3, as above), every spring listed in `contacts.csv` as a bond under tension, and the
/// GPU within 1e-6 m of the CPU at every frame of its first 4238 steps (f32 rounding of a few
/// thousand steps of 5 cm coordinates).
#[test]
fn the_hanging_chain_scene_on_both_backends() {
    let want = mass() * 9.81 * 55.0;
    let out = run_scene("springs.toml", "cpu");
    let rows = csv_rows(&out.join("particles.csv"));
    let last = rows.iter().map(|r| r[0]).fold(0.0, f64::max);
    let bottom = rows
        .iter()
        .find(|r| r[0] == last && r[2] == 10.0)
        .expect("bead 10")[5];
    let stretch = -bottom - 0.05;
    assert!(
        (stretch / want - 1.0).abs() < 2e-3,
        "stretch {stretch:e} m vs {want:e} m"
    );
    let bonds = csv_rows(&out.join("contacts.csv"));
    let at_end: Vec<_> = bonds.iter().filter(|r| r[0] == last).collect();
    assert_eq!(at_end.len(), 10, "ten springs under tension");
    assert!(at_end.iter().all(|r| r[10] == 1.0 && r[5] < 0.0));
    // The GPU against the CPU over the first 4238 steps (two output intervals): lavapipe runs
    // this tiny scene at a few hundred steps per second.
    let mut runs = Vec::new();
    for backend in scene_backends() {
        let out =
            std::env::temp_dir().join(format!("grains-springs-{backend}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let scene = workspace_root().join("scenes/springs.toml");
        grains_cli::main_with_args([
            "grains",
            "run",
            &scene.to_string_lossy(),
            "--backend",
            backend,
            "--out",
            &out.to_string_lossy(),
            "--steps",
            "4238",
            "-q",
        ])
        .expect("run");
        runs.push(csv_rows(&out.join("particles.csv")));
    }
    if let [cpu, gpu] = &runs[..] {
        assert_eq!(cpu.len(), gpu.len());
        for (a, b) in cpu.iter().zip(gpu) {
            assert_eq!((a[0], a[2]), (b[0], b[2]));
            for c in 3..6 {
                assert!(
                    (a[c] - b[c]).abs() < 1e-6,
                    "step {} bead {}: {a:?} vs {b:?}",
                    a[0],
                    a[2]
                );
            }
        }
    }
}

/// `grains run` logs a break: `broken_bonds.csv` gets one row, with the step the spring broke
/// at (from its history, whichever output step finds it), the bond's index and its particles;
/// on both backends.
#[test]
fn a_break_is_logged_once_with_its_step() {
    let text = scene_text(
        "[[bond]]\npairs = [[1, 2]]\nnormal = { law = \"spring\", stiffness = 1.0, rupture_length = 0.00600005 }\n[output]\nevery_steps = 50\nformats = [\"contacts\"]\n",
    )
    .replace("steps = 10", "steps = 400\ndt = 1e-5")
    .replace(
        "positions = [[0.0, 0.0, 0.0], [0.0025, 0.0, 0.0], [0.006, 0.0, 0.0]]",
        "positions = [[-0.02, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0035, 0.0, 0.0]]\nvelocities = [[0.0, 0.0, 0.0], [-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]]\nfixed = [false, true, true]",
    );
    let dir = std::env::temp_dir().join(format!("grains-bond-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("scene.toml");
    std::fs::write(&path, text).expect("scene");
    // d(s) = 0.0035 + 1.0 * s * 1e-5 passes 0.00600005 at s = 251 (250.005 steps).
    for backend in scene_backends() {
        let out = dir.join(backend);
        grains_cli::main_with_args([
            "grains",
            "run",
            &path.to_string_lossy(),
            "--backend",
            backend,
            "--out",
            &out.to_string_lossy(),
            "-q",
        ])
        .expect("run");
        let log = std::fs::read_to_string(out.join("broken_bonds.csv")).expect("log");
        assert_eq!(log, "step,time,bond,i,j\n251,0.00251,0,1,2\n", "{backend}");
        let rows = csv_rows(&out.join("contacts.csv"));
        assert!(
            rows.iter().filter(|r| r[10] == 1.0).all(|r| r[0] < 251.0),
            "{backend}: no bond force after the break"
        );
        assert!(
            rows.iter().any(|r| r[10] == 1.0),
            "{backend}: the bond pulled before"
        );
    }
}
