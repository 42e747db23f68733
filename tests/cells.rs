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
