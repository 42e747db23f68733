//! Maugis-Dugdale adhesive contact (Maugis 1992; in the form of Johnson & Greenwood 1997, "An
//! adhesion map for the contact of elastic spheres", J. Colloid Interface Sci. 192:326). WGSL
//! twin: `shaders/laws/maugis_dugdale.wgsl`.
//!
//! A Dugdale cohesive zone of constant stress `sigma0` acts over `a < r < c` around the contact
//! radius `a`; its width sets Maugis' parameter `lambda = 2 sigma0 (R* / (pi W K^2))^(1/3)`,
//! `K = 4 E*/3`, which spans DMT (`lambda -> 0`, pull-off `-2 pi W R*`) to JKR
//! (`lambda -> infinity`, `-3/2 pi W R*`). In units `a_s = (pi W R*^2 / K)^(1/3)`,
//! `delta_s = a_s^2 / R*`, `P_s = pi W R*`, with `m = c/a` and `u = sqrt(m^2 - 1)`:
//!
//! - `lambda A^2 / 2 [u + (m^2 - 2) atan u] + 4 lambda^2 A / 3 [u atan u - m + 1] = 1`,
//! - `P = A^3 - lambda A^2 [u + m^2 atan u]`,
//! - `Delta = A^2 - 4/3 A lambda u`.
//!
//! The first equation is a quadratic in `A` for a given `u`, so the curve is parametrised by
//! `u` alone (`A` from the stable root `2 / (b + sqrt(b^2 + 2 lambda X))`, with the small-`u`
//! cancellations of `X` and `Y` taken by series): the coupled `(a, c)` solve becomes a 1-D
//! search. Along `t = ln u` the overlap falls from the loaded contact (`u -> 0`, Hertz/JKR-like)
//! to the end of the displacement-stable branch `Delta_min`, found by a golden-section search
//! on `t in [-14, 9]` (40 steps); the overlap's `t` then by bisection (32 steps). Both use fixed
//! iteration counts, so the GPU twin does the same operations.
//!
//! Hysteresis as in `jkr`: the contact forms at touch and breaks where the branch ends (or, in
//! the DMT-like regime where it runs down to `a -> 0`, where `A` reaches `u = e^9`); the
//! attraction between separated surfaces inside the Dugdale zone (`a = 0`) is not modelled.
//! Energy: the work the force does on the contact is accumulated (trapezoid, previous overlap
//! and force in the history, the overlap kept while apart so the step of the snap-in counts
//! too) and booked as elastic; what is left when it breaks is the
//! hysteresis loss, booked as damping dissipation. Coulomb limits see `F + 4 pi W R*` (the DMT
//! pull-off bounds every curve, so it is never negative); damping laws see `2 E* a`.
//!
//! Scene keys: `work_of_adhesion` (J/m^2, required), and `lambda` (dimensionless) or
//! `cohesive_stress` (`sigma0`, Pa), exactly one.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

/// Search interval of `t = ln u`.
pub const MD_T_LO: f32 = -14.0;
/// Upper end: `u = e^9`, where `a` is a ten-thousandth of `c`.
pub const MD_T_HI: f32 = 9.0;
/// Golden-section steps for the end of the stable branch.
pub const MD_GOLDEN_STEPS: u32 = 40;
/// Bisection steps for the overlap.
pub const MD_BISECTION_STEPS: u32 = 32;

crate::gpu_struct! {
    /// Per-pair parameters of Maugis-Dugdale contact.
    pub struct MaugisDugdaleParams {
        /// Effective modulus `E*` (Pa).
        pub e_eff: f32,
        /// Work of adhesion `W` (J/m^2).
        pub work: f32,
        /// Maugis' parameter when given (> 0); 0 to derive it per pair from `cohesive_stress`.
        pub lambda: f32,
        /// Dugdale stress `sigma0` (Pa), used when `lambda` is 0.
        pub cohesive_stress: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of Maugis-Dugdale contact.
    pub struct MaugisDugdaleHistory {
        /// 1 once the surfaces have touched, until the contact breaks.
        pub established: f32,
        /// Work done on the contact since it formed (J).
        pub stored: f32,
        /// Overlap at the previous step (m).
        pub delta_prev: f32,
        /// Repulsive force at the previous step (N).
        pub f_prev: f32,
    }
}

/// How Maugis' parameter is set.
#[derive(Clone, Debug, PartialEq)]
pub enum Cohesion {
    /// `lambda` given.
    Lambda(f64),
    /// `sigma0` (Pa) given; `lambda` follows per pair from `R*`.
    Stress(f64),
}

/// Scene settings of `maugis_dugdale`.
#[derive(Clone, Debug, PartialEq)]
pub struct MaugisDugdaleSpec {
    /// Work of adhesion (J/m^2).
    pub work_of_adhesion: f64,
    pub cohesion: Cohesion,
}

/// `(A, P, Delta)` of the curve at `u` for Maugis' parameter `lambda` (dimensionless).
pub fn md_curve(lambda: f32, u: f32) -> [f32; 3] {
    let at = u.atan();
    let u2 = u * u;
    // X = u + (u^2 - 1) atan u = (u - atan u) + u^2 atan u; u - atan u by its series when small.
    let u_minus_at = if u < 0.25 {
        let u3 = u2 * u;
        u3 * (1.0 / 3.0
            - u2 * (1.0 / 5.0
                - u2 * (1.0 / 7.0 - u2 * (1.0 / 9.0 - u2 * (1.0 / 11.0 - u2 / 13.0)))))
    } else {
        u - at
    };
    let x = u_minus_at + u2 * at;
    // Y = u atan u - (sqrt(1 + u^2) - 1), the second term in its cancellation-free form.
    let y = u * at - u2 / ((1.0 + u2).sqrt() + 1.0);
    let b = 4.0 / 3.0 * lambda * lambda * y;
    let a = 2.0 / (b + (b * b + 2.0 * lambda * x).sqrt());
    let p = a * a * a - lambda * a * a * (u + (1.0 + u2) * at);
    let d = a * a - 4.0 / 3.0 * a * lambda * u;
    [a, p, d]
}

/// `t = ln u` at the end of the displacement-stable branch (the minimum of `Delta`).
pub fn md_branch_end(lambda: f32) -> f32 {
    let g = 0.618_034;
    let (mut lo, mut hi) = (MD_T_LO, MD_T_HI);
    for _ in 0..MD_GOLDEN_STEPS {
        let t1 = hi - g * (hi - lo);
        let t2 = lo + g * (hi - lo);
        if md_curve(lambda, t1.exp())[2] < md_curve(lambda, t2.exp())[2] {
            hi = t2;
        } else {
            lo = t1;
        }
    }
    0.5 * (lo + hi)
}

/// `t` on `[MD_T_LO, t_end]` where `Delta(t) = d` (`Delta` falls with `t` there).
pub fn md_solve(lambda: f32, d: f32, t_end: f32) -> f32 {
    let (mut lo, mut hi) = (MD_T_LO, t_end);
    for _ in 0..MD_BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        if md_curve(lambda, mid.exp())[2] > d {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Maugis-Dugdale spring with hysteresis.
pub fn law_maugis_dugdale(
    geom: &ContactGeom,
    params: &MaugisDugdaleParams,
    history: &mut MaugisDugdaleHistory,
    force: &mut ContactForce,
) {
    if history.established == 0.0 && geom.delta < 0.0 {
        // Apart: remember the overlap, so the step that makes contact books its work.
        history.delta_prev = geom.delta;
        return;
    }
    let pi = std::f32::consts::PI;
    let k = 4.0 / 3.0 * params.e_eff;
    let a_s = (pi * params.work * geom.r_eff * geom.r_eff / k).powf(1.0 / 3.0);
    let delta_s = a_s * a_s / geom.r_eff;
    let lambda = if params.lambda > 0.0 {
        params.lambda
    } else {
        2.0 * params.cohesive_stress * (geom.r_eff / (pi * params.work * k * k)).powf(1.0 / 3.0)
    };
    let d = geom.delta / delta_s;
    let t_end = md_branch_end(lambda);
    if d <= md_curve(lambda, t_end.exp())[2] {
        // The step that breaks it still moved under the previous force (half of it, as the
        // integrator applies it): that work belongs to the contact too.
        let last = 0.5 * history.f_prev * (geom.delta - history.delta_prev);
        force.damping_dissipated += history.stored + last;
        *history = MaugisDugdaleHistory::default();
        return;
    }
    let t = md_solve(lambda, d, t_end);
    let c = md_curve(lambda, t.exp());
    let f = c[1] * pi * params.work * geom.r_eff;
    let stored = history.stored + 0.5 * (history.f_prev + f) * (geom.delta - history.delta_prev);
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * f).to_array();
    force.normal_force += f + 4.0 * pi * params.work * geom.r_eff;
    force.stiffness += 2.0 * params.e_eff * c[0] * a_s;
    force.elastic += stored;
    history.established = 1.0;
    history.stored = stored;
    history.delta_prev = geom.delta;
    history.f_prev = f;
}

/// Maugis' parameter (f64) of a pair of effective radius `r_eff` (m).
fn lambda_of(spec: &MaugisDugdaleSpec, e_eff: f64, r_eff: f64) -> f64 {
    match spec.cohesion {
        Cohesion::Lambda(l) => l,
        Cohesion::Stress(s) => {
            let k = 4.0 / 3.0 * e_eff;
            2.0 * s * (r_eff / (std::f64::consts::PI * spec.work_of_adhesion * k * k)).cbrt()
        }
    }
}

/// The `maugis_dugdale` law.
pub struct MaugisDugdale;

impl Law for MaugisDugdale {
    const KEYWORD: &'static str = "maugis_dugdale";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["work_of_adhesion", "lambda", "cohesive_stress"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact, Word::Energy, Word::Own, Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = MaugisDugdaleParams;
    type History = MaugisDugdaleHistory;
    type Spec = MaugisDugdaleSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<MaugisDugdaleSpec, K::Error> {
        let w = keys.positive("work_of_adhesion", "J/m^2")?;
        let work_of_adhesion = required(keys, "work_of_adhesion", "a positive number (J/m^2)", w)?;
        let cohesion = match (keys.has("lambda"), keys.has("cohesive_stress")) {
            (true, true) => {
                return Err(keys.conflict(
                    "lambda",
                    "cohesive_stress",
                    "give either `lambda` or `cohesive_stress`, not both".into(),
                ))
            }
            (false, false) => {
                return Err(keys.missing(
                    "lambda",
                    "Maugis' parameter lambda > 0, or cohesive_stress (Pa) instead",
                ))
            }
            (true, false) => keys.positive("lambda", "")?.map(Cohesion::Lambda),
            (false, true) => keys
                .positive("cohesive_stress", "Pa")?
                .map(Cohesion::Stress),
        };
        let cohesion =
            cohesion.ok_or_else(|| keys.missing("lambda", "lambda or cohesive_stress"))?;
        Ok(MaugisDugdaleSpec {
            work_of_adhesion,
            cohesion,
        })
    }

    fn spring(_: &MaugisDugdaleSpec) -> Option<SpringShape> {
        Some(SpringShape::Hertz)
    }

    fn mix(spec: &MaugisDugdaleSpec, pair: &PairContext<'_>) -> MaugisDugdaleParams {
        let (lambda, stress) = match spec.cohesion {
            Cohesion::Lambda(l) => (l as f32, 0.0),
            Cohesion::Stress(s) => (0.0, s as f32),
        };
        MaugisDugdaleParams {
            e_eff: effective_young(pair.a, pair.b) as f32,
            work: spec.work_of_adhesion as f32,
            lambda,
            cohesive_stress: stress,
        }
    }

    /// 1.25 times the overlap where the branch ends, at the largest `R*`.
    fn range(spec: &MaugisDugdaleSpec, pair: &PairContext<'_>) -> f64 {
        let e = effective_young(pair.a, pair.b);
        let r = pair.r_eff_max;
        if r <= 0.0 {
            return 0.0;
        }
        let lambda = lambda_of(spec, e, r) as f32;
        let d_end = md_curve(lambda, md_branch_end(lambda).exp())[2] as f64;
        let k = 4.0 / 3.0 * e;
        let delta_s =
            (std::f64::consts::PI.powi(2) * spec.work_of_adhesion.powi(2) * r / (k * k)).cbrt();
        1.25 * (-d_end).max(0.0) * delta_s
    }

    /// The Hertz collision time, or less: the overlap range of the contact branch (from touch
    /// to its end) must take at least 4 steps to cross at the expected impact speed, as for
    /// `jkr`.
    fn collision_time(spec: &MaugisDugdaleSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let e = effective_young(c.material, c.material);
        let lambda = lambda_of(spec, e, c.r_eff) as f32;
        let d_end = -(md_curve(lambda, md_branch_end(lambda).exp())[2] as f64);
        let k = 4.0 / 3.0 * e;
        let delta_s = (std::f64::consts::PI.powi(2) * spec.work_of_adhesion.powi(2) * c.r_eff
            / (k * k))
            .cbrt();
        let reach = d_end.max(0.1) * delta_s;
        Some(c.hertz_time().min(10.0 * reach / c.impact_speed))
    }

    fn apply(
        g: &ContactGeom,
        p: &MaugisDugdaleParams,
        h: &mut MaugisDugdaleHistory,
        f: &mut ContactForce,
    ) {
        law_maugis_dugdale(g, p, h, f)
    }
}

impl LawTwin for MaugisDugdale {
    // Iterative: a golden-section and a bisection search over `exp` and `atan`, whose f32
    // results may differ by an ulp between CPU and GPU. Next to the end of the branch the
    // overlap is stationary in `t`, so an ulp in `Delta` moves `t`, and with it `A` and the
    // force, by about sqrt(ulp) = 3e-4: 1e-3 of the force scale.
    const PARITY_TOLERANCE: f32 = 1e-3;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<MaugisDugdaleParams, MaugisDugdaleHistory> {
        let mut geom = random_geom(rng, i);
        let e_eff = rng.log_uniform(1e6, 1e11);
        let work = rng.log_uniform(1e-3, 1e1);
        let (lambda, cohesive_stress) = if rng.chance(0.5) {
            (rng.log_uniform(0.01, 100.0), 0.0)
        } else {
            (0.0, rng.log_uniform(1e5, 1e10))
        };
        let k = 4.0 / 3.0 * e_eff;
        let a_s = (std::f32::consts::PI * work * geom.r_eff * geom.r_eff / k).powf(1.0 / 3.0);
        if i > 0 {
            geom.delta = a_s * a_s / geom.r_eff * rng.range(-1.2, 20.0) as f32;
        }
        ParityCase {
            geom,
            params: MaugisDugdaleParams {
                e_eff,
                work,
                lambda,
                cohesive_stress,
            },
            history: MaugisDugdaleHistory {
                established: rng.chance(0.7) as u32 as f32,
                stored: rng.range(-1e-9, 1e-9) as f32,
                delta_prev: geom.delta * rng.range(0.99, 1.01) as f32,
                f_prev: rng.range(-1e-3, 1e-3) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
