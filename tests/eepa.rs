//! The Edinburgh elasto-plastic adhesive model (`eepa`) against its branch formulas, its
//! closed-form restitution, and the energy ledger (CPU; the GPU runs it through the parity
//! harness in `gpu`).

use grains_core::kernel_types::{ContactForce, ContactGeom};
use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::kernels::laws::eepa::{law_eepa, EepaHistory, EepaParams, EepaSpec};
use grains_core::{Backend, CpuBackend, LawSpec, Particles};
use grains_tests::worlds::*;

const PI: f64 = std::f64::consts::PI;

/// The branch force of the model in f64, with the plastic overlap it leaves: the formulas of
/// the law's documentation, written out again independently.
fn branch_force(p: &EepaParams, d: f64, dp: f64) -> (f64, f64, &'static str) {
    let (k1, n, l) = (
        p.stiffness as f64,
        p.exponent as f64,
        p.plasticity_ratio as f64,
    );
    let k2 = k1 / (1.0 - l);
    let (kadh, chi, f0) = (
        p.adhesion_stiffness as f64,
        p.adhesion_exponent as f64,
        p.pull_off_force as f64,
    );
    let unload = k2 * (d.powf(n) - dp.powf(n));
    if unload >= k1 * d.powf(n) {
        (-f0 + k1 * d.powf(n), d * l.powf(1.0 / n), "loading")
    } else if unload > -kadh * d.powf(chi) {
        (-f0 + unload, dp, "unloading")
    } else {
        (-f0 - kadh * d.powf(chi), dp, "adhesive")
    }
}

/// A prescribed overlap history, loading to 10 um, unloading into the adhesive branch,
/// reloading past the old maximum (back on the loading branch) and unloading again: the law's
/// force is the branch formula's at every point (to 1e-5 of the peak force: f32 `powf`), and
/// every branch is visited.
#[test]
fn eepa_loading_unloading_reloading_follows_its_branches() {
    let p = EepaParams {
        e_eff: 0.0,
        stiffness: 1e7,
        exponent: 1.5,
        plasticity_ratio: 0.6,
        adhesion_stiffness: 2e5,
        adhesion_exponent: 1.2,
        pull_off_force: 1e-3,
    };
    let mut path = Vec::new();
    let ramp = |a: f64, b: f64, path: &mut Vec<f64>| {
        for k in 1..=200 {
            path.push(a + (b - a) * k as f64 / 200.0);
        }
    };
    ramp(0.0, 10e-6, &mut path);
    ramp(10e-6, 0.5e-6, &mut path);
    ramp(0.5e-6, 14e-6, &mut path);
    ramp(14e-6, 0.2e-6, &mut path);
    let mut h = EepaHistory::default();
    let mut dp = 0.0f64;
    let scale = 1e7 * (14e-6f64).powf(1.5);
    let mut seen = std::collections::BTreeSet::new();
    for &d in &path {
        let g = ContactGeom {
            normal: [1.0, 0.0, 0.0],
            delta: d as f32,
            r_eff: 5e-4,
            dt: 1e-6,
            ..Default::default()
        };
        let mut f = ContactForce::default();
        law_eepa(&g, &p, &mut h, &mut f);
        // The law pushes body 1 along -n with F.
        let got = -f.force[0] as f64;
        let (want, new_dp, branch) = branch_force(&p, g.delta as f64, dp);
        dp = new_dp;
        seen.insert(branch);
        assert!(
            (got - want).abs() <= 1e-5 * scale,
            "delta {d:e} ({branch}): force {got:e}, formula {want:e}"
        );
        assert!(
            (h.plastic_overlap as f64 - dp).abs() <= 1e-5 * 14e-6,
            "delta {d:e}: plastic overlap {} vs {dp:e}",
            h.plastic_overlap
        );
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["adhesive", "loading", "unloading"],
        "every branch visited"
    );
}

fn eepa(l: f64, k1: f64, n: f64, kadh: f64, f0: f64) -> LawSpec {
    LawSpec::Eepa(EepaSpec {
        plasticity_ratio: l,
        stiffness: Some(k1),
        exponent: n,
        adhesion_stiffness: kadh,
        adhesion_exponent: 1.0,
        pull_off_force: f0,
    })
}

/// Two spheres of radius `r` meeting head on at `v` under `normal` alone: the backend after
/// the impact and the energy ledger's initial total.
fn impact(normal: LawSpec, r: f64, v: f64, dt: f64) -> (CpuBackend, f64) {
    let inter = self_interaction(normal, None, None, TangentialStiffness::Mindlin);
    let mut b =
        CpuBackend::new(head_on_world(inter, r, v, 1e7, dt)).unwrap_or_else(|e| panic!("{e}"));
    let e0 = b.energy().total;
    assert!(
        through_contact(&mut b, 2_000_000) > 0,
        "the spheres never met"
    );
    (b, e0)
}

/// With no adhesion and n = 1, loading at k1 and unloading at k2 = k1 / (1 - lambda_P) give
/// the restitution `sqrt(k1 / k2) = sqrt(1 - lambda_P)` (the compression's kinetic energy is
/// returned along the stiffer branch over a shorter distance). 1e-3 at dt = t_c / 20000.
#[test]
fn eepa_linear_restitution_is_sqrt_k1_over_k2() {
    let (r, v, k1) = (0.01, 1.0, 5e4);
    let m_eff = 0.5 * 2500.0 * 4.0 / 3.0 * PI * r * r * r;
    let t_c = PI * (m_eff / k1).sqrt();
    for l in [0.2, 0.5, 0.8] {
        let (mut b, e0) = impact(eepa(l, k1, 1.0, 0.0, 0.0), r, v, t_c / 2e4);
        let e = restitution_of(&b, v);
        let want = (1.0 - l).sqrt();
        eprintln!("lambda_P = {l}: restitution {e:.6}, sqrt(k1/k2) = {want:.6}");
        assert!((e - want).abs() < 1e-3, "lambda_P = {l}: {e} vs {want}");
        let end = b.energy();
        let drift = (end.total - e0).abs() / e0;
        assert!(drift < 1e-4, "ledger drift {drift:e}");
    }
}

/// An adhesive, plastic Hertz-type impact (n = 3/2, pull-off force and adhesive branch): the
/// ledger's total stays within 2e-4 of the impact energy at every step, and the plastic work is
/// booked as damping dissipation.
#[test]
fn eepa_adhesive_impact_closes_the_ledger() {
    let (r, v) = (0.01f64, 0.5);
    let k1 = 4.0 / 3.0 * 1.1e7 * (0.5 * r).sqrt();
    let spec = eepa(0.5, k1, 1.5, 2e3, 2e-3);
    let mut p = Particles::default();
    p.push_sphere(
        [-(r + 1e-6), 0.0, 0.0],
        r,
        [0.5 * v, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    p.push_sphere(
        [r + 1e-6, 0.0, 0.0],
        r,
        [-0.5 * v, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let inter = self_interaction(spec, None, None, TangentialStiffness::Mindlin);
    let w = world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        inter,
        open_domain(10.0 * r),
        [0.0; 3],
        5e-8,
        0.1 * r,
    );
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    let e0 = b.energy().total;
    let mut worst = 0.0f64;
    let mut touched = false;
    for _ in 0..400_000 {
        b.step();
        let e = b.energy();
        worst = worst.max((e.total - e0).abs() / e0);
        if b.force[0][0] != 0.0 {
            touched = true;
        } else if touched {
            break;
        }
    }
    let end = b.energy();
    eprintln!(
        "EEPA adhesive impact: worst ledger drift {worst:e}, dissipated {:.4e} J of {e0:.4e} J, rebound {:.4}",
        end.damping_dissipated,
        (b.vel[1][0] - b.vel[0][0]) as f64 / v
    );
    assert!(touched, "the spheres met");
    assert!(worst < 2e-4, "ledger drift {worst:e}");
    assert!(end.damping_dissipated > 0.3 * e0, "plastic work booked");
}

/// `scenes/eepa.toml` end to end: contacts.csv's loop starts on the loading branch
/// (`k1 delta^1.5 - f0` at every row up to the largest overlap, to 1e-4 of the peak force),
/// comes back below it (plastic: the force at a given overlap is lower on the way out), and the
/// energy ledger's total stays within 1e-5 of the start; on both backends.
#[test]
fn the_eepa_scene_writes_its_loop() {
    for backend in grains_tests::scene_backends() {
        eepa_loop(backend);
    }
}

fn eepa_loop(backend: &str) {
    let dir = grains_tests::run_scene("eepa.toml", backend);
    let read = |name: &str| grains_tests::csv_rows(&dir.join(name));
    let contacts = read("contacts.csv");
    let (k1, f0) = (1.0e6, 2.0e-3);
    let peak = contacts
        .iter()
        .enumerate()
        .max_by(|a, b| a.1[4].total_cmp(&b.1[4]))
        .map(|(k, _)| k)
        .expect("rows");
    let fmax = contacts[peak][5];
    for row in &contacts[..=peak] {
        let want = k1 * row[4].powf(1.5) - f0;
        assert!(
            (row[5] - want).abs() < 1e-4 * fmax,
            "loading: {row:?} vs {want}"
        );
    }
    let out = &contacts[peak + 1..];
    assert!(!out.is_empty(), "unloading rows");
    for row in out {
        let loading = k1 * row[4].powf(1.5) - f0;
        assert!(row[5] < loading, "unloading below loading: {row:?}");
    }
    let energy = read("energy.csv");
    let e0 = energy[0][8];
    for row in &energy {
        assert!((row[8] - e0).abs() < 1e-5 * e0, "ledger: {row:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
