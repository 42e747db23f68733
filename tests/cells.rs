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

/// Two overdamped beads (radii `r1`, `r2`, drag `g0` each) `s_start` apart on a `[[bond]]`
/// whose chain is a stiff spring of rest length 2 mm and the division law `law`; as found
/// pairs, a spring of 1e-9 N/m (1e-7 of the controller: the budding pair overlaps).
fn dividing_pair(law: &str, (r1, r2): (f64, f64), s_start: f64, g0: f64, dt: f64) -> World {
    let text = format!(
        "[simulation]\nsteps = 1\ndt = {dt:e}\ndynamics = \"overdamped\"\nimplicitness = 1.0\n\n\
         [domain]\nmin = [-0.05, -0.05, -0.05]\nmax = [0.05, 0.05, 0.05]\n\n\
         [[material]]\nname = \"cell\"\ndensity = 1000.0\nyoung = 1.0e7\npoisson = 0.3\n\
         substrate_friction = {g0:e}\nsubstrate_rotational_friction = 1.0e-6\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = {r1:e}\npositions = [[0.0, 0.0, 0.0]]\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = {r2:e}\npositions = [[{s_start:e}, 0.0, 0.0]]\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\n\
         normal = {{ law = \"linear\", stiffness = 1e-9 }}\n\n\
         [[bond]]\npairs = [[0, 1]]\n\
         normal = {{ law = \"spring\", stiffness = 10.0, rest_length = 0.002 }}\n\
         extra = [{law}]\n"
    );
    test_world(&text)
}

/// Under a target separation ramping at speed v, two overdamped halves of drag `g0` separate at
/// v, lagging the target by `g0 v / (2 k_rep)`, the bond's stiff spring (100 times the
/// controller, pulling towards 2 mm) contributing nothing while the division law acts; once
/// the cytokinesis is over the law lets go and the spring pulls the pair to its rest length.
/// `dividing` ramps from `c0 (R1 + R2)` to `c1 (R1 + R2)`, `budding` from `|R1 - R2|` to
/// `R1 + R2`.
#[test]
fn a_dividing_pair_lags_its_ramping_target_by_g0_v_over_2k() {
    let (g0, dt, steps) = (1e-2, 1e-3, 1000u32);
    let k = 2e-3 * g0 / dt;
    let duration = steps as f64 * dt;
    let dividing = format!(
        "{{ law = \"dividing\", repulsive_stiffness = {k:e}, attractive_stiffness = {:e}, \
         duration = {duration:e}, start_separation_ratio = 2.0, end_separation_ratio = 4.0 }}",
        3.0 * k
    );
    let budding =
        format!("{{ law = \"budding\", repulsive_stiffness = {k:e}, duration = {duration:e} }}");
    // (law, radii, the target's start and end).
    let cases = [
        (dividing, (1e-3, 1e-3), 4e-3, 8e-3),
        (budding, (4e-3, 1e-3), 3e-3, 5e-3),
    ];
    for (law, radii, s0, s1) in cases {
        let v = (s1 - s0) / duration;
        let lag = g0 * v / (2.0 * k);
        for mut b in backends(dividing_pair(&law, radii, s0 - lag, g0, dt)) {
            let gap = |b: &mut dyn Backend| {
                let s = b.snapshot();
                s.pos[1][0] as f64 - s.pos[0][0] as f64
            };
            b.run(900);
            let target = s0 + v * 900.0 * dt;
            let got = target - gap(b.as_mut());
            // The discrete step moves the lag by a step's travel or two (v dt, 1/250 of it).
            assert!(
                (got - lag).abs() <= 0.015 * lag,
                "{} {law}: lag {got} m against g0 v / (2 k) = {lag} m",
                b.name()
            );
            b.run(150);
            let rest = gap(b.as_mut());
            assert!(
                (rest - 0.002).abs() <= 1e-6,
                "{} {law}: after the cytokinesis the spring holds the pair at {rest} m, not 2 mm",
                b.name()
            );
        }
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
