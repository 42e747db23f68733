//! Viscous normal dashpot tuned to a restitution coefficient. WGSL twin:
//! `shaders/laws/viscous.wgsl`.
//!
//! `F_d = c v_n` with `c = 2 zeta sqrt(m* k)`, `k` the tangent stiffness the normal law reported.
//! On a linear spring this is the classic constant dashpot; on Hertz, `k ~ delta^(1/2)` makes
//! `c ~ delta^(1/4)`, Tsuji et al.'s (1992) form, whose restitution does not depend on the
//! impact speed. The dashpot may not make the total normal force attractive (clipped at zero),
//! which changes the restitution a given `zeta` achieves (Schwager & Pöschel 2007, Granular
//! Matter 9:465); [`crate::restitution`] solves for the `zeta` that achieves the requested one,
//! for the spring shape of the chain's normal law.
//!
//! The dissipated energy is the trapezoid of the dashpot force over the step's displacement,
//! `(F_prev + F) / 2 * v_n dt` (the previous force is kept in the history): velocity Verlet
//! applies each force half before and half after its instant, so booking `F v_n dt` alone would
//! lag by half a step and the ledger would drift by O(dt).
//!
//! `form = "tsuji"` instead takes the damping ratio LIGGGHTS' `model hertz` uses,
//! `zeta = sqrt(5/6) |beta|` with `beta = ln e / sqrt(ln^2 e + pi^2)` (so `c = 2 sqrt(5/6) |beta|
//! sqrt(S_n m*)`, `S_n = 2 Y* sqrt(R* delta)` the Hertz tangent stiffness; LIGGGHTS 3.8
//! documentation of `gran model hertz`, spelled out in shared/peers/README.md), and does not
//! clip: the total normal force may pull slightly at the end of a contact, as there. Its
//! restitution is near, not exactly, `e`; it is the form for comparing with LIGGGHTS.
//!
//! Scene keys: `restitution` (in (0, 1], required), `form` (`"exact"`, the default, or
//! `"tsuji"`).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required_restitution, CollisionContext, DampingContext, Law, LawKeys, LawTwin, PairContext,
    ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;
use crate::restitution::zeta_for_restitution;

crate::gpu_struct! {
    /// Per-pair parameters of the viscous dashpot.
    pub struct ViscousParams {
        /// Damping ratio, solved at set-up so the achieved restitution is the requested one (or
        /// LIGGGHTS' for `form = "tsuji"`).
        pub zeta: f32,
        /// 1: the dashpot never pulls harder than the springs push (`exact`); 0: not clipped
        /// (`tsuji`).
        pub clip: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the viscous dashpot.
    pub struct ViscousHistory {
        /// Dashpot force applied at the previous step (N).
        pub f_damp_prev: f32,
    }
}

/// Scene settings of `viscous`.
#[derive(Clone, Debug, PartialEq)]
pub struct ViscousSpec {
    /// Requested coefficient of restitution of a head-on impact.
    pub restitution: f64,
    /// LIGGGHTS' coefficient, unclipped (`form = "tsuji"`), instead of the exact restitution.
    pub tsuji: bool,
}

/// LIGGGHTS' damping ratio for restitution `e`: `sqrt(5/6) |ln e| / sqrt(ln^2 e + pi^2)`.
pub fn tsuji_zeta(e: f64) -> f64 {
    let l = e.ln();
    (5.0f64 / 6.0).sqrt() * l.abs() / (l * l + std::f64::consts::PI.powi(2)).sqrt()
}

/// Restitution-tuned dashpot.
pub fn law_viscous(
    geom: &ContactGeom,
    params: &ViscousParams,
    history: &mut ViscousHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.f_damp_prev = 0.0;
        return;
    }
    let n = v3(geom.normal);
    let vn = v3(geom.vrel).dot(n);
    let c = 2.0 * params.zeta * (geom.m_eff * force.stiffness).sqrt();
    // Never let the dashpot pull harder than the springs push (unless told not to clip).
    let f_damp = if params.clip != 0.0 {
        (c * vn).max(-force.normal_force)
    } else {
        c * vn
    };
    force.force = (v3(force.force) - n * f_damp).to_array();
    force.normal_force += f_damp;
    force.damping_dissipated += 0.5 * (history.f_damp_prev + f_damp) * vn * geom.dt;
    history.f_damp_prev = f_damp;
}

/// The `viscous` law.
pub struct Viscous;

impl Law for Viscous {
    const KEYWORD: &'static str = "viscous";
    const SLOT: Slot = Slot::Damping;
    const KEYS: &'static [&'static str] = &["restitution", "form"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Force];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = ViscousParams;
    type History = ViscousHistory;
    type Spec = ViscousSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ViscousSpec, K::Error> {
        let e = required_restitution(keys)?;
        let tsuji = match keys.string("form", "\"exact\" or \"tsuji\"")?.as_deref() {
            None | Some("exact") => false,
            Some("tsuji") => true,
            Some(other) => {
                return Err(keys.error(
                    "form",
                    format!("expected \"exact\" or \"tsuji\", found \"{other}\""),
                ))
            }
        };
        Ok(ViscousSpec {
            restitution: e,
            tsuji,
        })
    }

    fn spring(_: &ViscousSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &ViscousSpec, pair: &PairContext<'_>) -> ViscousParams {
        if spec.tsuji {
            return ViscousParams {
                zeta: tsuji_zeta(spec.restitution) as f32,
                clip: 0.0,
            };
        }
        ViscousParams {
            zeta: zeta_for_restitution(pair.spring, spec.restitution) as f32,
            clip: 1.0,
        }
    }

    fn range(_: &ViscousSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &ViscousSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    /// `m*/c = sqrt(m*/k) / (2 zeta)` at the normal spring's stiffest
    /// ([`crate::law::stiffest_time`]): at restitution 1e-3 on Hertz, zeta is about 2 and this is
    /// a fortieth of the collision time.
    fn damping_time(spec: &ViscousSpec, c: &DampingContext<'_>) -> Option<f64> {
        let zeta = if spec.tsuji {
            tsuji_zeta(spec.restitution)
        } else {
            zeta_for_restitution(c.spring, spec.restitution)
        };
        (zeta > 0.0).then(|| crate::law::stiffest_time(c.spring, c.collision_time) / (2.0 * zeta))
    }

    fn apply(g: &ContactGeom, p: &ViscousParams, h: &mut ViscousHistory, f: &mut ContactForce) {
        law_viscous(g, p, h, f)
    }
}

impl LawTwin for Viscous {
    // Closed form with one square root: a few f32 ulps.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<ViscousParams, ViscousHistory> {
        let geom = random_geom(rng, i);
        let force = random_prior_force(rng, &geom);
        ParityCase {
            geom,
            params: ViscousParams {
                zeta: rng.range(0.0, 1.0) as f32,
                clip: (i % 2) as f32,
            },
            history: ViscousHistory {
                f_damp_prev: rng.range(-1e-3, 1e-3) as f32,
            },
            force,
        }
    }
}
