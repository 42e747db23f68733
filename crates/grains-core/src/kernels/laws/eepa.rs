//! Edinburgh elasto-plastic adhesive model (EEPA). WGSL twin: `shaders/laws/eepa.wgsl`.
//!
//! Thakur, Morrissey, Sun, Chen & Ooi (2014), *Granular Matter* 16:383; the branch form of
//! Exudyn's sphere-sphere contact (`shared/reference/002`, impact model 0). With the loading
//! stiffness `k1`, the unloading/reloading stiffness `k2 = k1 / (1 - lambda_P)`, the exponent
//! `n`, the plastic overlap `delta_p` (history) and a constant pull-off force `f0`:
//!
//! - loading, `k2 (delta^n - delta_p^n) >= k1 delta^n`: `F = -f0 + k1 delta^n`, and the plastic
//!   overlap follows, `delta_p^n = lambda_P delta^n`;
//! - unloading and reloading, `k1 delta^n > k2 (delta^n - delta_p^n) > -k_adh delta^chi`:
//!   `F = -f0 + k2 (delta^n - delta_p^n)`;
//! - adhesive, `-k_adh delta^chi >= k2 (delta^n - delta_p^n)`: `F = -f0 - k_adh delta^chi`.
//!
//! `F` is positive when it pushes the bodies apart. The contact lasts while the surfaces
//! overlap; the plastic overlap is reset on separation. `k1` is `stiffness` when given
//! (N/m^n), otherwise Hertz's `4/3 E* sqrt(R*)` (meant for n = 3/2).
//!
//! Energy: the stored energy is the spring energy the unloading branch would return,
//! `k2 ((delta^(n+1) - delta_p^(n+1)) / (n+1) - delta_p^n (delta - delta_p))` above `delta_p`
//! (0 below), plus the pull-off potential `-f0 delta`. Everything else the contact force does
//! over a step (the trapezoid of the force over the step's approach, as `viscous.rs` explains)
//! is booked as damping dissipation: plastic work and adhesive hysteresis. Because the stored
//! energy is a function of the state, the ledger closes whatever branch the contact is on,
//! including the step on which it separates (the last force's half step and the energy still
//! stored are booked then).
//!
//! The Coulomb limit of a later tangential law sees `F + f0` (at least 0), the force beyond
//! the constant adhesion.
//!
//! Scene keys: `plasticity_ratio` (lambda_P in [0, 1), required), `stiffness` (k1, N/m^n),
//! `exponent` (n, default 1.5), `adhesion_stiffness` (k_adh, N/m^chi, default 0),
//! `adhesion_exponent` (chi, default 1), `pull_off_force` (f0, N, default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the EEPA model.
    pub struct EepaParams {
        /// Effective modulus (Pa), for Hertz's `k1` when `stiffness` is 0.
        pub e_eff: f32,
        /// Loading stiffness `k1` (N/m^n); 0: `4/3 E* sqrt(R*)`.
        pub stiffness: f32,
        /// Exponent `n` of the loading and unloading branches.
        pub exponent: f32,
        /// `lambda_P = 1 - k1 / k2`, in [0, 1).
        pub plasticity_ratio: f32,
        /// Adhesive branch stiffness `k_adh` (N/m^chi).
        pub adhesion_stiffness: f32,
        /// Adhesive branch exponent `chi`.
        pub adhesion_exponent: f32,
        /// Constant pull-off force `f0` (N).
        pub pull_off_force: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the EEPA model.
    pub struct EepaHistory {
        /// Plastic overlap `delta_p` (m); 0 while apart.
        pub plastic_overlap: f32,
        /// Contact force of the previous step (N, positive repulsive).
        pub f_prev: f32,
        /// Stored energy of the previous step (J).
        pub e_prev: f32,
    }
}

/// Scene settings of `eepa`.
#[derive(Clone, Debug, PartialEq)]
pub struct EepaSpec {
    pub plasticity_ratio: f64,
    /// Given loading stiffness (N/m^n); `None`: Hertz from the materials.
    pub stiffness: Option<f64>,
    pub exponent: f64,
    pub adhesion_stiffness: f64,
    pub adhesion_exponent: f64,
    pub pull_off_force: f64,
}

/// `x^y` for `x >= 0`, 0 at `x = 0` (WGSL's `pow` is undefined there).
#[inline]
pub fn pow_pos(x: f32, y: f32) -> f32 {
    if x > 0.0 {
        x.powf(y)
    } else {
        0.0
    }
}

/// `1 - r^n` for `r >= 0`, accurate when `r` is near 1: there `r^n` (a `log2` and an `exp2` on
/// the GPU) carries an absolute error of about 1e-7 that the difference would expose, so the
/// binomial series `n u (1 - (n-1)/2 u (1 - (n-2)/3 u))`, `u = 1 - r`, is used for
/// `|u| < 1e-3` (truncation ~u^4).
#[inline]
pub fn one_minus_pow(r: f32, n: f32) -> f32 {
    let u = 1.0 - r;
    if u.abs() < 1e-3 {
        n * u * (1.0 - (n - 1.0) * 0.5 * u * (1.0 - (n - 2.0) / 3.0 * u))
    } else {
        1.0 - pow_pos(r, n)
    }
}

/// EEPA contact.
pub fn law_eepa(
    geom: &ContactGeom,
    params: &EepaParams,
    history: &mut EepaHistory,
    force: &mut ContactForce,
) {
    let nrm = v3(geom.normal);
    // Approach rate d(delta)/dt: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(nrm);
    if geom.delta <= 0.0 {
        // Separation: the last force's half step, and what was stored, are lost.
        force.damping_dissipated += 0.5 * history.f_prev * vn * geom.dt + history.e_prev;
        *history = EepaHistory::default();
        return;
    }
    let n = params.exponent;
    let k1 = if params.stiffness > 0.0 {
        params.stiffness
    } else {
        4.0 / 3.0 * params.e_eff * geom.r_eff.sqrt()
    };
    let k2 = k1 / (1.0 - params.plasticity_ratio);
    let d = geom.delta;
    let dn = pow_pos(d, n);
    let mut dp = history.plastic_overlap;
    // `delta^n - delta_p^n` as `delta^n (1 - (delta_p / delta)^n)`: near the end of loading
    // the two powers are close, and [`one_minus_pow`] is accurate there where their difference
    // would not be.
    let one_minus_rn = one_minus_pow(dp / d, n);
    let mut dpn = dn * (1.0 - one_minus_rn);
    let f0 = params.pull_off_force;
    let (f, kt);
    if k2 * dn * one_minus_rn >= k1 * dn {
        dp = d * pow_pos(params.plasticity_ratio, 1.0 / n);
        dpn = params.plasticity_ratio * dn;
        f = -f0 + k1 * dn;
        kt = n * k1 * dn / d;
    } else {
        let fu = k2 * dn * one_minus_rn;
        let da = pow_pos(d, params.adhesion_exponent);
        let fa = -params.adhesion_stiffness * da;
        if fu > fa {
            f = -f0 + fu;
            kt = n * k2 * dn / d;
        } else {
            f = -f0 + fa;
            kt = params.adhesion_exponent * params.adhesion_stiffness * da / d;
        }
    }
    let stored = if d > dp {
        k2 * ((dn * d - dpn * dp) / (n + 1.0) - dpn * (d - dp))
    } else {
        0.0
    };
    let e_now = stored - f0 * d;
    force.force = (v3(force.force) - nrm * f).to_array();
    force.normal_force += (f + f0).max(0.0);
    force.stiffness += kt;
    force.elastic += e_now;
    force.damping_dissipated +=
        0.5 * (history.f_prev + f) * vn * geom.dt - (e_now - history.e_prev);
    history.plastic_overlap = dp;
    history.f_prev = f;
    history.e_prev = e_now;
}

/// The `eepa` law.
pub struct Eepa;

impl Law for Eepa {
    const KEYWORD: &'static str = "eepa";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &[
        "plasticity_ratio",
        "stiffness",
        "exponent",
        "adhesion_stiffness",
        "adhesion_exponent",
        "pull_off_force",
    ];
    const HISTORY_WORDS: &'static [Word] = &[Word::Length, Word::Force, Word::Energy];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = EepaParams;
    type History = EepaHistory;
    type Spec = EepaSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<EepaSpec, K::Error> {
        let what = "a number in [0, 1): 1 - k1/k2";
        let l = keys.number("plasticity_ratio", what)?;
        let l = required(keys, "plasticity_ratio", what, l)?;
        if !(0.0..1.0).contains(&l) {
            let found = keys.found("plasticity_ratio");
            return Err(keys.error(
                "plasticity_ratio",
                format!("expected {what}, found {found}"),
            ));
        }
        Ok(EepaSpec {
            plasticity_ratio: l,
            stiffness: keys.positive("stiffness", "N/m^exponent")?,
            exponent: keys.positive("exponent", "(dimensionless)")?.unwrap_or(1.5),
            adhesion_stiffness: keys
                .non_negative("adhesion_stiffness", "N/m^adhesion_exponent")?
                .unwrap_or(0.0),
            adhesion_exponent: keys
                .positive("adhesion_exponent", "(dimensionless)")?
                .unwrap_or(1.0),
            pull_off_force: keys.non_negative("pull_off_force", "N")?.unwrap_or(0.0),
        })
    }

    fn spring(spec: &EepaSpec) -> Option<SpringShape> {
        Some(if spec.exponent >= 1.25 {
            SpringShape::Hertz
        } else {
            SpringShape::Linear
        })
    }

    fn mix(spec: &EepaSpec, pair: &PairContext<'_>) -> EepaParams {
        EepaParams {
            e_eff: effective_young(pair.a, pair.b) as f32,
            stiffness: spec.stiffness.unwrap_or(0.0) as f32,
            exponent: spec.exponent as f32,
            plasticity_ratio: spec.plasticity_ratio as f32,
            adhesion_stiffness: spec.adhesion_stiffness as f32,
            adhesion_exponent: spec.adhesion_exponent as f32,
            pull_off_force: spec.pull_off_force as f32,
        }
    }

    fn range(_: &EepaSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    /// The loading spring's collision time (`k1 delta^n`, a power law);
    /// the stiffer unloading branch is shorter by `sqrt(1 - lambda_P)` for n = 1, so that
    /// factor is applied.
    fn collision_time(spec: &EepaSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let k1 = spec.stiffness.unwrap_or_else(|| c.hertz_stiffness());
        Some(c.power_law_time(k1, spec.exponent) * (1.0 - spec.plasticity_ratio).sqrt())
    }

    fn apply(g: &ContactGeom, p: &EepaParams, h: &mut EepaHistory, f: &mut ContactForce) {
        law_eepa(g, p, h, f)
    }
}

impl LawTwin for Eepa {
    // `pow` on both sides (exp2 of a log2 on most GPUs) and a dissipation that is a small
    // difference of work and stored energy: 2e-4 (branch choices are exact except at the
    // boundaries, where both branches give the same force).
    const PARITY_TOLERANCE: f32 = 2e-4;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<EepaParams, EepaHistory> {
        let geom = random_geom(rng, i);
        let given = rng.chance(0.5);
        let k1 = if given {
            rng.log_uniform(1e2, 1e8)
        } else {
            0.0
        };
        let e_eff = rng.log_uniform(1e6, 1e11);
        let exponent = if given {
            rng.range(1.0, 2.0) as f32
        } else {
            1.5
        };
        let plasticity_ratio = if i.is_multiple_of(4) {
            0.0
        } else {
            rng.range(0.0, 0.95) as f32
        };
        // A plastic overlap below, near or above the overlap, so that every branch is met.
        let d = geom.delta.max(0.0);
        let plastic_overlap = match i % 3 {
            0 => 0.0,
            1 => d * rng.range(0.0, 1.0) as f32,
            _ => d * rng.range(1.0, 2.0) as f32,
        };
        let k_scale = if given {
            k1
        } else {
            4.0 / 3.0 * e_eff * geom.r_eff.sqrt()
        };
        let f_scale = k_scale * pow_pos(geom.r_eff * 0.01, exponent);
        let mut params = EepaParams {
            e_eff,
            stiffness: k1,
            exponent,
            plasticity_ratio,
            adhesion_stiffness: if rng.chance(0.5) {
                k_scale * rng.log_uniform(1e-3, 1.0)
            } else {
                0.0
            },
            adhesion_exponent: rng.range(1.0, 2.0) as f32,
            pull_off_force: 0.0,
        };
        let history = EepaHistory {
            plastic_overlap,
            f_prev: f_scale * rng.range(-1.0, 1.0) as f32,
            e_prev: f_scale * geom.r_eff * 1e-3 * rng.range(-1.0, 1.0) as f32,
        };
        // A pull-off force that nearly cancels the branch force leaves a total whose rounding
        // is relative to the terms, not to itself: keep cases at least 10 % away from that.
        let mut branch = ContactForce::default();
        law_eepa(&geom, &params, &mut history.clone(), &mut branch);
        let b = -v3(branch.force).dot(v3(geom.normal));
        if rng.chance(0.5) {
            let f0 = f_scale.max(b.abs()) * rng.log_uniform(1e-3, 1.0);
            if (b - f0).abs() >= 0.1 * (b.abs() + f0) {
                params.pull_off_force = f0;
            }
        }
        ParityCase {
            geom,
            params,
            history,
            force: ContactForce::default(),
        }
    }
}
