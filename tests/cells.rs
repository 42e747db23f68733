//! Cell mechanics: the `delile` cell-cell force against its closed forms (its zeros, its peak
//! attraction, its energy well) and two overdamped cells relaxing to its rest distance at the
//! linearised rate.

use grains_core::kernel_types::{ContactForce, DomainParams, SphereBody};
use grains_core::kernels::laws::delile::{law_delile, DelileParams};
use grains_core::kernels::resolvers::sphere_sphere::resolve_sphere_sphere;
use grains_core::Domain;
use grains_core::{Backend, CpuBackend, World};
use grains_tests::test_world;

/// Cells of 5 and 4 um radius; `w`, `a` and the ratios of the tests.
const R1: f32 = 5e-6;
const R2: f32 = 4e-6;
const W: f32 = 1e9;
const A: f32 = 2.0;
const C_MAX: f32 = 1.2;
const C_EQ: f32 = 0.9069;

fn domain() -> DomainParams {
    Domain {
        min: [-1.0; 3],
        max: [1.0; 3],
        periodic: [false; 3],
    }
    .params()
}

fn sphere(pos: [f32; 3], radius: f32) -> SphereBody {
    SphereBody {
        pos,
        radius,
        inv_mass: 1.0,
        ..Default::default()
    }
}

/// The Delile force on two cells `r` apart: `(repulsive force, energy, area)`, the force read
/// along the normal from body 1's side (positive pushes them apart).
fn delile_at(r: f32) -> (f64, f64, f64) {
    let g = resolve_sphere_sphere(
        &sphere([0.0; 3], R1),
        &sphere([r, 0.0, 0.0], R2),
        &domain(),
        1e-3,
    );
    let p = DelileParams {
        stiffness: W,
        area_factor: A,
        max_ratio: C_MAX,
        rest_ratio: C_EQ,
    };
    let mut f = ContactForce::default();
    law_delile(&g, &p, &mut f);
    (-f.force[0] as f64, f.elastic as f64, f.area as f64)
}

/// Zero force at `r_eq` and at `r_max` (nothing beyond), the strongest attraction
/// `(4/27) w a (r_max - r_eq)^3` at `r* = (2 r_eq + r_max)/3` and nowhere stronger, the well's
/// depth `w a (r_max - r_eq)^4 / 12` at `r_eq`, and the area `a (r - r_max)^2`.
#[test]
fn the_delile_force_vanishes_at_rest_and_cut_off_and_peaks_at_four_27ths() {
    let sum = (R1 + R2) as f64;
    let (r_max, r_eq) = (C_MAX as f64 * sum, C_EQ as f64 * sum);
    let (w, a) = (W as f64, A as f64);
    let peak = 4.0 / 27.0 * w * a * (r_max - r_eq).powi(3);
    // f32 distances near 1e-5 m carry 1e-12 m: against the 2.6e-6 m between r_eq and r_max
    // that is 4e-7 of the force scale; 1e-5 of the peak.
    let (f_eq, e_eq, _) = delile_at(r_eq as f32);
    assert!(
        f_eq.abs() <= 1e-5 * peak,
        "at r_eq: {f_eq} N (peak {peak} N)"
    );
    let depth = w * a * (r_max - r_eq).powi(4) / 12.0;
    assert!(
        (e_eq + depth).abs() <= 1e-4 * depth,
        "the well at r_eq: {e_eq} J against -{depth} J"
    );
    let (f_max, e_max, area_max) = delile_at(r_max as f32);
    assert!(f_max.abs() <= 1e-5 * peak, "at r_max: {f_max} N");
    assert!(e_max.abs() <= 1e-5 * depth && area_max.abs() <= 1e-10);
    assert_eq!(delile_at(1.01 * r_max as f32), (0.0, 0.0, 0.0));
    let r_star = (2.0 * r_eq + r_max) / 3.0;
    let (f_star, _, area) = delile_at(r_star as f32);
    assert!(
        (f_star + peak).abs() <= 1e-5 * peak,
        "at r*: {f_star} N against -{peak} N"
    );
    let want_area = a * (r_star - r_max).powi(2);
    assert!((area - want_area).abs() <= 1e-5 * want_area);
    // Scanned across the well, no attraction exceeds the peak's (to the same rounding).
    let strongest = (0..=400)
        .map(|k| delile_at((r_eq + (r_max - r_eq) * k as f64 / 400.0) as f32).0)
        .fold(f64::INFINITY, f64::min);
    assert!(
        (strongest + peak).abs() <= 1e-4 * peak,
        "strongest attraction {strongest} N against -{peak} N"
    );
    // Compressed, it repels: w a (r - r_max)^2 (r_eq - r).
    let r = 0.8 * sum;
    let want = w * a * (r - r_max).powi(2) * (r_eq - r);
    let (f, _, _) = delile_at(r as f32);
    assert!(
        (f - want).abs() <= 1e-5 * want,
        "compressed: {f} N against {want} N"
    );
}

/// Two overdamped cells of 5 um radius with drag `g0`, `delta0` beyond the rest distance.
fn two_cells(g0: f64, dt: f64, offset: f64) -> World {
    let sum = 1e-5;
    let r0 = C_EQ as f64 * sum + offset;
    let text = format!(
        "[simulation]\nsteps = 1\ndt = {dt:e}\ndynamics = \"overdamped\"\nimplicitness = 1.0\n\n\
         [domain]\nmin = [-1e-4, -1e-4, -1e-4]\nmax = [1e-4, 1e-4, 1e-4]\n\n\
         [[material]]\nname = \"cell\"\ndensity = 1000.0\nyoung = 1.0e3\npoisson = 0.4\n\
         substrate_friction = {g0:e}\nsubstrate_rotational_friction = 1.0e-12\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = 5e-6\n\
         positions = [[{:e}, 0.0, 0.0], [{:e}, 0.0, 0.0]]\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\n\
         normal = {{ law = \"delile\", stiffness = {W:e}, area_factor = {A:?}, \
         max_distance_ratio = {C_MAX:?}, rest_distance_ratio = {C_EQ:?} }}\n",
        -r0 / 2.0,
        r0 / 2.0
    );
    test_world(&text)
}

/// Each backend: the CPU, and the GPU where there is an adapter (under CI one is required).
fn backends(w: World) -> Vec<Box<dyn Backend>> {
    let mut out: Vec<Box<dyn Backend>> = vec![Box::new(CpuBackend::new(w.clone()).expect("cpu"))];
    if let Some(ctx) = crate::gpu::gpu_context() {
        out.push(Box::new(
            grains_gpu::GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}")),
        ));
    }
    out
}

/// Two overdamped cells near `r_eq` relax on the linearised spring `k = w a (r_max - r_eq)^2`:
/// each moves at `F / g0`, so the gap to `r_eq` closes as `exp(-2 k t / g0)`, and the implicit
/// step (lambda = 1) takes it by `1 / (1 + 2 k dt / g0)` a step.
#[test]
fn two_overdamped_delile_cells_relax_to_the_rest_distance_at_the_linearised_rate() {
    let sum = 1e-5;
    let k = W as f64 * A as f64 * ((C_MAX - C_EQ) as f64 * sum).powi(2);
    let g0 = 1e-6;
    let dt = 0.1 * g0 / k;
    let factor = 1.0 / (1.0 + 2.0 * k * dt / g0);
    // 1e-3 of the rest distance: the spring's curvature changes k by 2 offset / (r_max -
    // r_eq) = 6e-3, the factor by 1e-3 of itself; f32 positions near 5e-6 m hold the 9e-9 m
    // offset to 5e-5, and after ten steps its 1.5e-9 m to 3e-4.
    let offset = 1e-3 * C_EQ as f64 * sum;
    for mut b in backends(two_cells(g0, dt, offset)) {
        let gap = |b: &mut dyn Backend| {
            let s = b.snapshot();
            (s.pos[1][0] as f64 - s.pos[0][0] as f64) - C_EQ as f64 * sum
        };
        let e0 = gap(b.as_mut());
        let mut e = e0;
        for step in 1..=10 {
            b.step();
            let e2 = gap(b.as_mut());
            assert!(
                (e2 / e - factor).abs() <= 2e-3,
                "{}, step {step}: the gap shrank by {} against {factor}",
                b.name(),
                e2 / e
            );
            e = e2;
        }
        let want = e0 * factor.powi(10);
        assert!(
            (e - want).abs() <= 0.02 * want,
            "{}: after 10 steps {e} m from r_eq against {want} m",
            b.name()
        );
    }
}

fn refusal(text: &str) -> String {
    match grains_scene::parse_scene(text, std::path::Path::new("<test>")) {
        Ok(_) => panic!("the scene parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Bad cell-law settings are refused at their key, saying what would be right: a rest distance
/// at or past the cut-off, a division law followed by another in its slot, a target that does
/// not move apart, a missing duration.
#[test]
fn bad_cell_law_settings_are_refused_where_they_are_written() {
    let delile = |keys: &str| {
        format!(
            "[simulation]\nsteps = 1\ndt = 1e-3\n\n[domain]\nmin = [-1, -1, -1]\nmax = [1, 1, 1]\n\n\
             [[material]]\nname = \"cell\"\ndensity = 1000.0\nyoung = 1.0e3\npoisson = 0.4\n\n\
             [[particles]]\nmaterial = \"cell\"\nradius = 0.01\npositions = [[0.0, 0.0, 0.0]]\n\n\
             [[interaction]]\nbetween = [\"cell\", \"cell\"]\n{keys}\n"
        )
    };
    let cases = [
        (
            "normal = { law = \"delile\", stiffness = 1.0, area_factor = 1.0, \
             max_distance_ratio = 0.9 }",
            "max_distance_ratio",
            "must be below the maximum distance ratio (0.9)",
        ),
        (
            "normal = { law = \"delile\", area_factor = 1.0 }",
            "stiffness",
            "",
        ),
        (
            "normal = { law = \"hertz\" }\nextra = [{ law = \"dividing\", \
             repulsive_stiffness = 1.0, duration = 1.0 }, { law = \"constant_force\", force = 1.0 }]",
            "extra[1]",
            "\"dividing\" sets the extra slot's result and must be its last law",
        ),
        (
            "normal = { law = \"hertz\" }\nextra = { law = \"dividing\", repulsive_stiffness = 1.0, \
             duration = 1.0, start_separation_ratio = 0.5, end_separation_ratio = 0.5 }",
            "end_separation_ratio",
            "must exceed the start's (0.5)",
        ),
        (
            "normal = { law = \"hertz\" }\nextra = { law = \"budding\", repulsive_stiffness = 1.0 }",
            "extra",
            "duration",
        ),
    ];
    for (keys, at, says) in cases {
        let e = refusal(&delile(keys));
        assert!(
            e.starts_with("<test>:") && e.contains(at) && e.contains(says),
            "{keys}\n gave: {e}"
        );
    }
}

/// Settings of a colony scene.
struct Colony<'a> {
    /// Cells of radius 10 um at these centres (m).
    cells: &'a [[f64; 3]],
    cycle_time: f64,
    spread: f64,
    max_cells: u32,
    /// The `extra` table of the division pairs.
    division: String,
    /// `target` and the rest of the block's keys.
    more: &'a str,
    dt: f64,
    steps: u64,
}

/// An overdamped colony (drag 1e-2 N s/m) of `delile` cells (k = 1 N/m about the rest distance)
/// in a box of 2 mm.
fn colony_scene(c: &Colony<'_>) -> String {
    let positions: Vec<String> = c
        .cells
        .iter()
        .map(|x| format!("[{:e}, {:e}, {:e}]", x[0], x[1], x[2]))
        .collect();
    // w a (r_max - r_eq)^2 = 1 N/m for two cells of 10 um.
    let wa = 1.0 / ((C_MAX - C_EQ) as f64 * 2e-5).powi(2);
    format!(
        "[simulation]\nsteps = {}\ndt = {:e}\ndynamics = \"overdamped\"\nimplicitness = 1.0\n\n\
         [domain]\nmin = [-1e-3, -1e-3, -1e-3]\nmax = [1e-3, 1e-3, 1e-3]\n\n\
         [output]\nevery = 1000000\nformats = []\n\n\
         [[material]]\nname = \"cell\"\ndensity = 1000.0\nyoung = 1.0e3\npoisson = 0.4\n\
         substrate_friction = 1e-2\nsubstrate_rotational_friction = 1.0e-12\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = 1e-5\npositions = [{}]\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\n\
         normal = {{ law = \"delile\", stiffness = {wa:e}, area_factor = 1.0, \
         max_distance_ratio = {C_MAX:?}, rest_distance_ratio = {C_EQ:?} }}\n\n\
         [[cells]]\nmaterial = \"cell\"\ncycle_time = {:e}\ncycle_spread = {:?}\n\
         max_cells = {}\nseed = 7\nextra = {}\n{}\n",
        c.steps,
        c.dt,
        positions.join(", "),
        c.cycle_time,
        c.spread,
        c.max_cells,
        c.division,
        c.more
    )
}

/// A runner of scene text `text` on `backend` ("cpu" or "gpu"), without output.
fn colony_runner(text: &str, backend: &str) -> grains_cli::runner::Runner {
    let scene = grains_scene::parse_scene(text, std::path::Path::new("<test>"))
        .unwrap_or_else(|e| panic!("{e}"));
    let choice = match backend {
        "gpu" => grains_cli::BackendArg::Gpu,
        _ => grains_cli::BackendArg::Cpu,
    };
    grains_cli::run::open_runner(scene, choice, None, (None, true))
        .unwrap_or_else(|e| panic!("{e:#}"))
}

/// The particles in the run: `(id, radius, mass)`.
fn live(r: &mut grains_cli::runner::Runner) -> Vec<(u32, f32, f64)> {
    let snap = r.backend.snapshot();
    snap.pos
        .iter()
        .zip(snap.vel.iter())
        .enumerate()
        .filter(|(_, (p, _))| p[3] != grains_core::backend::REMOVED_RADIUS)
        .map(|(i, (p, v))| (i as u32, p[3], 1.0 / v[3] as f64))
        .collect()
}

const DIVIDING: &str = "{ law = \"dividing\", repulsive_stiffness = 1.0, duration = 0.03 }";

/// With a fixed cycle and no spread, one cell becomes exactly `2^n` after n cycles (here 16
/// after 4), on every backend: each division at its cycle's step, each daughter of half her
/// mother's mass and `2^(-1/3)` her radius, so the colony's mass is the first cell's to f32
/// rounding; `cells.csv`'s births are 2, 4, 8, 16 at steps 200, 400, 600, 800.
#[test]
fn a_colony_without_spread_doubles_every_cycle_and_keeps_its_mass() {
    let text = colony_scene(&Colony {
        cells: &[[0.0; 3]],
        cycle_time: 0.1,
        spread: 0.0,
        max_cells: 16,
        division: DIVIDING.into(),
        more: "",
        dt: 5e-4,
        steps: 850,
    });
    for backend in grains_tests::scene_backends() {
        let mut r = colony_runner(&text, backend);
        let m0 = live(&mut r)[0].2;
        for (n, step) in [(1u32, 199u64), (2, 200), (4, 400), (8, 600), (16, 800)] {
            r.step_to(step).unwrap_or_else(|e| panic!("{e:#}"));
            let cells = live(&mut r);
            assert_eq!(cells.len() as u32, n, "{backend}: cells at step {step}");
            assert_eq!(r.colony.as_ref().map(|c| c.count), Some(n));
            let mass: f64 = cells.iter().map(|c| c.2).sum();
            // Each mass is f32, read back as an inverse: a few ulps each.
            assert!(
                (mass - m0).abs() <= 1e-6 * m0,
                "{backend}: the colony's mass at step {step} is {mass} kg, the cell's {m0} kg"
            );
            let g = n.trailing_zeros();
            let r_want = 1e-5 * 2f64.powf(-(g as f64) / 3.0);
            for c in &cells {
                assert!(
                    ((c.1 as f64) - r_want).abs() <= 1e-6 * r_want,
                    "{backend}: radius {}",
                    c.1
                );
            }
        }
        let births = &r.colony.as_ref().expect("a colony").births;
        assert_eq!(
            births,
            &[(200, 2), (400, 4), (600, 8), (800, 16)],
            "{backend}"
        );
    }
}

/// With a spread, the division steps are the cycle's hash of seed, cell and generation: the
/// same births at the same steps on the CPU and the GPU.
#[test]
fn a_colony_with_spread_divides_at_the_same_steps_on_every_backend() {
    let text = colony_scene(&Colony {
        cells: &[[0.0; 3], [1e-4, 0.0, 0.0], [0.0, 1e-4, 0.0]],
        cycle_time: 0.1,
        spread: 0.3,
        max_cells: 64,
        division: DIVIDING.into(),
        more: "",
        dt: 5e-4,
        steps: 700,
    });
    let runs: Vec<_> = grains_tests::scene_backends()
        .into_iter()
        .map(|backend| {
            let mut r = colony_runner(&text, backend);
            r.step_to(700).unwrap_or_else(|e| panic!("{e:#}"));
            let colony = r.colony.take().expect("a colony");
            (backend, colony.births, colony.count, live(&mut r).len())
        })
        .collect();
    let (_, births, count, alive) = &runs[0];
    assert!(
        births.len() > 6,
        "divisions spread over several steps: {births:?}"
    );
    assert_eq!(*count as usize, *alive);
    for (backend, b, c, _) in &runs[1..] {
        assert_eq!((b, c), (births, count), "{backend} against the cpu");
    }
}

/// A colony that would outgrow `max_cells` stops the run at the division that does not fit,
/// saying how many cells would be needed.
#[test]
fn a_colony_past_max_cells_stops_the_run_with_the_count_that_would_fit() {
    let text = colony_scene(&Colony {
        cells: &[[0.0; 3]],
        cycle_time: 0.1,
        spread: 0.0,
        max_cells: 3,
        division: DIVIDING.into(),
        more: "",
        dt: 5e-4,
        steps: 500,
    });
    let mut r = colony_runner(&text, "cpu");
    let e = match r.step_to(500) {
        Ok(_) => panic!("the colony outgrew max_cells = 3 without a word"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        e.contains("max_cells = 3 is reached") && e.contains("raise max_cells to at least 4"),
        "{e}"
    );
}

/// Under a target separation ramping at speed v, the two halves of a dividing cell (drag `g0`
/// each) separate at v, lagging the target by `g0 v / (2 k_rep)`; the `delile` contact of the
/// two (100 times stiffer, which would push them straight to its rest distance) contributes
/// nothing while they divide. `dividing` ramps from `c0 (R1 + R2)` to `R1 + R2`, `budding`
/// from `|R1 - R2|` to `R1 + R2`. The lag is read once it is steady (nine relaxation times
/// `g0 / (2 k)` after the split) against the law's own clock, which starts at the step after
/// the split.
#[test]
fn a_dividing_cell_lags_its_ramping_target_by_g0_v_over_2k() {
    let (g0, dt, tau) = (1e-2f64, 1e-3f64, 50.0f64);
    let k = g0 / (2.0 * tau * dt);
    let (duration, cycle) = (500.0 * dt, 501.0 * dt);
    let law = |name: &str, more: &str| {
        format!(
            "{{ law = \"{name}\", repulsive_stiffness = {k:e}, attractive_stiffness = {:e}, \
             duration = {duration:e}{more} }}",
            3.0 * k
        )
    };
    let r_half = 1e-5 * 0.5f64.cbrt();
    let (r_mother, r_bud) = (1e-5 * 0.8f64.cbrt(), 1e-5 * 0.2f64.cbrt());
    let cases = [
        (
            "\n",
            law("dividing", ", start_separation_ratio = 0.2"),
            0.4 * r_half,
            2.0 * r_half,
        ),
        (
            "target = \"bud\"\n",
            law("budding", ""),
            r_mother - r_bud,
            r_mother + r_bud,
        ),
    ];
    // The GPU runs `dividing`; `budding` is the same kernel with another target (its twin's
    // parity is `gpu::twins`), so the CPU alone runs it.
    let backends = |more: &str| {
        let mut b = grains_tests::scene_backends();
        if more != "\n" {
            b.truncate(1);
        }
        b
    };
    let split = (cycle / dt).round() as u64;
    let m = 450u64;
    for (more, division, s0, s1) in cases {
        let text = colony_scene(&Colony {
            cells: &[[0.0; 3]],
            cycle_time: cycle,
            spread: 0.0,
            max_cells: 2,
            division,
            more,
            dt,
            steps: split + m,
        });
        let v = (s1 - s0) / duration;
        let lag = g0 * v / (2.0 * k);
        for backend in backends(more) {
            let mut r = colony_runner(&text, backend);
            r.step_to(split + m).unwrap_or_else(|e| panic!("{e:#}"));
            let cells = live(&mut r);
            let snap = r.backend.snapshot();
            let [a, b] = [cells[0].0, cells[1].0].map(|i| snap.pos[i as usize]);
            let s = ((0..3)
                .map(|k| (b[k] as f64 - a[k] as f64).powi(2))
                .sum::<f64>())
            .sqrt();
            let target = s0 + v * (m - 1) as f64 * dt;
            let got = target - s;
            // The implicit step adds a step's travel, v dt, to the lag (1/50 of it here).
            assert!(
                (got - lag).abs() <= 1.5 * v * dt,
                "{backend}, {more:?}: lag {got:e} m against g0 v / (2 k) = {lag:e} m"
            );
        }
    }
}

/// Bad `[[cells]]` settings and division laws out of place are refused where they are written:
/// a division law in an `[[interaction]]` or a `[[bond]]`, a cycle of zero, a cycle no longer
/// than the cytokinesis, the wrong division law for the target, a `max_cells` of no more than
/// the first cells, a bond between two cells, an unknown target.
#[test]
fn bad_colony_settings_are_refused_where_they_are_written() {
    let base = |cycle: f64, max_cells: u32, division: &str, more: &str| {
        colony_scene(&Colony {
            cells: &[[0.0; 3], [1e-4, 0.0, 0.0]],
            cycle_time: cycle,
            spread: 0.0,
            max_cells,
            division: division.into(),
            more,
            dt: 5e-4,
            steps: 10,
        })
    };
    let inter = base(0.1, 8, DIVIDING, "").replace(
        "rest_distance_ratio = 0.9069 }",
        &format!("rest_distance_ratio = 0.9069 }}\nextra = {DIVIDING}"),
    );
    let bond = base(0.1, 8, DIVIDING, "")
        + "\n[[bond]]\npairs = [[0, 1]]\nnormal = { law = \"spring\", stiffness = 1.0 }\n";
    let cases = [
        (
            inter,
            "interaction[0].extra",
            "only a [[cells]] block makes",
        ),
        (
            base(0.1, 8, DIVIDING, "")
                + "\n[[bond]]\npairs = [[0, 1]]\nnormal = { law = \"spring\", stiffness = 1.0 }\n\
                   extra = { law = \"dividing\", repulsive_stiffness = 1.0, duration = 0.01 }\n",
            "bond[0].extra",
            "only a [[cells]] block makes",
        ),
        (
            base(0.0, 8, DIVIDING, ""),
            "cells[0].cycle_time",
            "expected a positive number",
        ),
        (
            base(0.02, 8, DIVIDING, ""),
            "cells[0].cycle_time",
            "is not longer than the cytokinesis",
        ),
        (
            base(0.1, 8, DIVIDING, "target = \"bud\""),
            "cells[0].extra",
            "law = \"budding\"",
        ),
        (base(0.1, 2, DIVIDING, ""), "cells[0].max_cells", ">= 3"),
        (
            bond,
            "cells",
            "a [[bond]] joins two particles of the cells' material",
        ),
        (
            base(0.1, 8, DIVIDING, "target = \"split\""),
            "cells[0].target",
            "\"divide\" or \"bud\"",
        ),
    ];
    for (text, at, says) in cases {
        let e = refusal(&text);
        assert!(
            e.starts_with("<test>:") && e.contains(at) && e.contains(says),
            "expected {at}: ...{says}... gave: {e}"
        );
    }
}

/// `grains run` of a colony writes each particle's generation and parent in `particles.csv`
/// and the `.vtu` frames, and the births of each division step in `cells.csv`.
#[test]
fn a_colony_run_writes_generations_parents_and_births() {
    let text = colony_scene(&Colony {
        cells: &[[0.0; 3]],
        cycle_time: 0.1,
        spread: 0.0,
        max_cells: 4,
        division: DIVIDING.into(),
        more: "",
        dt: 5e-4,
        steps: 450,
    })
    .replace(
        "every = 1000000\nformats = []",
        "every = 450\nformats = [\"csv\", \"vtk\"]",
    );
    let dir = std::env::temp_dir().join(format!("grains-colony-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let scene = dir.join("colony.toml");
    std::fs::write(&scene, text).expect("the scene written");
    grains_tests::run_scene_file(&scene, "cpu", &dir.join("out"));
    let out = dir.join("out");
    let cells = std::fs::read_to_string(out.join("cells.csv")).expect("cells.csv");
    assert_eq!(cells, "step,time,births,cells\n200,0.1,2,2\n400,0.2,4,4\n");
    let particles = std::fs::read_to_string(out.join("particles.csv")).expect("particles.csv");
    let header = particles.lines().next().unwrap_or("");
    assert!(header.ends_with(",radius,generation,parent"), "{header}");
    // The last frame: the first cell gone, her daughters 1 and 2 gone, four granddaughters
    // (generation 2) of mothers 1 and 2, the rest of the pool dormant.
    let last: Vec<(i64, i64, i64)> = particles
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("450,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let n = f.len();
            (
                f[2].parse().unwrap(),
                f[n - 2].parse().unwrap(),
                f[n - 1].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        last,
        [
            (0, 0, -1),
            (1, 1, 0),
            (2, 1, 0),
            (3, 2, 1),
            (4, 2, 1),
            (5, 2, 2),
            (6, 2, 2)
        ]
    );
    let vtu = std::fs::read(out.join("frame_00000450.vtu")).expect("the last frame");
    let text = String::from_utf8_lossy(&vtu);
    assert!(text.contains("Name=\"generation\"") && text.contains("Name=\"parent\""));
    let _ = std::fs::remove_dir_all(&dir);
}
