//! The `extra` slot's laws (CPU): linear adhesion, a preset force, a constant force and
//! lubrication, each against the closed-form motion it produces.

use grains_core::kernels::laws::constant_force::ConstantForceSpec;
use grains_core::kernels::laws::linear_adhesion::LinearAdhesionSpec;
use grains_core::kernels::laws::lubrication::LubricationSpec;
use grains_core::kernels::laws::preset_force::PresetForceSpec;
use grains_core::material::effective_young;
use grains_core::materials::Interaction;
use grains_core::{Backend, CpuBackend, LawSpec, Particles};
use grains_tests::worlds::*;

const PI: f64 = std::f64::consts::PI;

/// Two spheres of radius `r`, density 2500, centres `gap` apart beyond touching (negative:
/// overlapping), moving apart at relative speed `v0` (negative: approaching), under `laws`.
fn pair(laws: Vec<LawSpec>, r: f64, gap: f64, v0: f64, dt: f64) -> CpuBackend {
    let mut p = Particles::default();
    let x = r + 0.5 * gap;
    p.push_sphere(
        [-x, 0.0, 0.0],
        r,
        [-0.5 * v0, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    p.push_sphere(
        [x, 0.0, 0.0],
        r,
        [0.5 * v0, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let w = world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        Interaction::new(0, 0, laws),
        open_domain(0.1),
        [0.0; 3],
        dt,
        1e-4,
    );
    CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"))
}

fn m_eff(r: f64) -> f64 {
    0.5 * 2500.0 * 4.0 / 3.0 * PI * r * r * r
}

/// Spheres touching (1e-9 m overlap) and flying apart at `v0`: the linear attraction costs the
/// adhesion energy `W = f_d d_d / 2`, so they leave at `sqrt(v0^2 - f_d d_d / m*)`, and `W` is
/// booked as dissipation when the contact breaks at `d_d`. 1e-3. (Slower than
/// `sqrt(f_d d_d / m*)` they stay bound and oscillate, in and out of Hertz contact.)
#[test]
fn linear_adhesion_costs_its_adhesion_energy() {
    let (r, v0, f_d, d_d) = (1e-3, 0.03, 1e-4, 1e-5);
    let w_adh = 0.5 * f_d * d_d;
    let law = LawSpec::LinearAdhesion(LinearAdhesionSpec {
        detach_force: f_d,
        detach_length: d_d,
    });
    let mut b = pair(vec![hertz(), law], r, -1e-9, v0, 1e-6);
    let e0 = b.energy();
    b.run(3000);
    let v = (b.vel[1][0] - b.vel[0][0]) as f64;
    let want = (v0 * v0 - f_d * d_d / m_eff(r)).sqrt();
    let e = b.energy();
    eprintln!(
        "leaves at {v:.6e} m/s (closed form {want:.6e}); dissipated {:.6e} J (W = {w_adh:.6e} J)",
        e.damping_dissipated
    );
    assert!((v - want).abs() < 1e-3 * want, "{v} vs {want}");
    assert!((e.damping_dissipated - w_adh).abs() < 1e-3 * w_adh);
    assert!((e.total - e0.total).abs() < 1e-3 * w_adh, "ledger");
}

/// Spheres meeting at `v0`: a preset attraction `f` from the touch until `d_r` apart costs
/// `f d_r` on the way out (a constant force, conservative while it acts), so they leave at
/// `sqrt(v0^2 - 2 f d_r / m*)`. 1e-3.
#[test]
fn preset_force_acts_from_touch_to_release() {
    let (r, v0, f, d_r) = (1e-3, 0.02, 5e-5, 1e-5);
    let law = LawSpec::PresetForce(PresetForceSpec {
        force: -f,
        release_distance: d_r,
    });
    let mut b = pair(vec![hertz(), law], r, 2e-6, -v0, 1e-7);
    let e0 = b.energy();
    b.run(40_000);
    let v = (b.vel[1][0] - b.vel[0][0]) as f64;
    let want = (v0 * v0 - 2.0 * f * d_r / m_eff(r)).sqrt();
    let e = b.energy();
    eprintln!(
        "leaves at {v:.6e} m/s (closed form {want:.6e}); dissipated {:.6e} J (f d_r = {:.6e} J)",
        e.damping_dissipated,
        f * d_r
    );
    assert!((v - want).abs() < 1e-3 * want, "{v} vs {want}");
    assert!((e.total - e0.total).abs() < 1e-3 * f * d_r, "ledger");
}

/// A sphere resting on a floor, also pulled onto it by a constant attraction `F` while they
/// touch, settles where Hertz balances `m g + F`: `delta = ((m g + F) / (4/3 E* sqrt(R)))^(2/3)`.
/// 0.1 %.
#[test]
fn constant_force_adds_to_the_weight() {
    let (r, g) = (0.01, 9.81);
    let mat = material("m", 1e8, 2500.0);
    let m = 2500.0 * 4.0 / 3.0 * PI * r * r * r;
    let pull = 2.0 * m * g;
    let k = 4.0 / 3.0 * effective_young(&mat, &mat) * r.sqrt();
    let want = ((m * g + pull) / k).powf(2.0 / 3.0);
    let law = LawSpec::ConstantForce(ConstantForceSpec {
        force: -pull,
        always: false,
    });
    let laws = vec![hertz(), viscous(0.3), law];
    let (w, _) = sphere_on_floor(r, 1e8, [0.0; 3], [0.0; 3], laws, 2e-6);
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    b.run(100_000);
    let delta = r - b.pos[0][2] as f64;
    eprintln!("rests at overlap {delta:.6e} m (closed form {want:.6e})");
    assert!((delta - want).abs() < 1e-3 * want, "{delta} vs {want}");
}

/// Two spheres approaching through a fluid film slow down as
/// `v(h) = v0 - 6 pi mu R*^2 / m* ln(h0 / h)` (from `m* dv = 6 pi mu R*^2 dh / h`): at a
/// quarter of the starting gap the speed is the closed form's to 1e-3 of v0.
#[test]
fn lubrication_slows_an_approach_as_the_film_predicts() {
    let (r, v0) = (1e-3, 0.01);
    let h0 = 1e-4;
    let c_over_v = 0.5 * v0 / 4f64.ln();
    let mu = c_over_v * m_eff(r) / (6.0 * PI * (0.5 * r) * (0.5 * r));
    let law = LawSpec::Lubrication(LubricationSpec {
        viscosity: mu,
        min_gap: 1e-7,
        max_gap: 2.0 * h0,
    });
    let mut b = pair(vec![hertz(), law], r, h0, -v0, 1e-6);
    let r_eff = 0.5 * r;
    let c = 6.0 * PI * mu * r_eff * r_eff / m_eff(r);
    loop {
        b.step();
        let gap = (b.pos[1][0] - b.pos[0][0]) as f64 - 2.0 * r;
        if gap <= 0.25 * h0 {
            let v = -(b.vel[1][0] - b.vel[0][0]) as f64;
            let want = v0 - c * (h0 / gap).ln();
            eprintln!("at gap {gap:.4e} m: approach {v:.6e} m/s (closed form {want:.6e})");
            assert!((v - want).abs() < 1e-3 * v0, "{v} vs {want}");
            break;
        }
        assert!(b.counters().steps < 200_000, "never reached the gap");
    }
}

/// `linear_pressure` (a normal law): a sphere resting on a floor settles where
/// `pi R k delta^2 = m g`, `delta = sqrt(m g / (pi R k))`. 0.1 %.
#[test]
fn linear_pressure_rests_where_the_pressure_carries_the_weight() {
    use grains_core::kernels::laws::linear_pressure::LinearPressureSpec;
    let (r, g, k) = (0.01, 9.81, 1e12);
    let m = 2500.0 * 4.0 / 3.0 * PI * r * r * r;
    let want = (m * g / (PI * r * k)).sqrt();
    let law = LawSpec::LinearPressure(LinearPressureSpec {
        stiffness: k,
        damping: 1e9,
    });
    let (w, _) = sphere_on_floor(r, 1e8, [0.0; 3], [0.0; 3], vec![law], 2e-6);
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    b.run(100_000);
    let delta = r - b.pos[0][2] as f64;
    eprintln!("rests at overlap {delta:.6e} m (closed form {want:.6e})");
    assert!((delta - want).abs() < 1e-3 * want, "{delta} vs {want}");
}
