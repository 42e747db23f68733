//! Spring-dashpot-slider rolling resistance. WGSL twin: `shaders/laws/rolling_spring.wgsl`.
//!
//! The elastic-plastic spring-dashpot model of Ai, Chen, Rotter & Ooi (2011, model C; after
//! Iwashita & Oda 1998): a rolling spring torque `M_k`, incremented by `-k_r w_r dt` with the
//! relative rolling velocity `w_r` (the tangent-plane part of `w1 - w2`) and kept in the
//! history, capped at `mu_r R* F_n` (the slider); a dashpot `M_d = -C_r w_r` damps the
//! rocking, `C_r = 2 eta_r sqrt(I_r k_r)` with `I_r = m* R*^2`, the two together also capped at
//! `mu_r R* F_n`, so that at full mobilisation the dashpot adds nothing along the spring.
//! `k_r` is `rolling_stiffness` when given, otherwise `2.25 k_n mu_r^2 R*^2` (Ai et al.), with
//! `k_n` the normal law's tangent stiffness. Before each increment the spring torque is turned
//! into the current tangent plane, its size kept. Body 2 receives the opposite torque. A
//! rolling sphere saturates the spring within a few steps and then decelerates as the
//! constant-torque model does (`rolling_constant_torque.rs`), but it comes to rest instead of
//! creeping, held by the spring.
//!
//! Energy: as `cundall_strack`'s spring (which explains why): the work done on the spring over
//! the step (trapezoid) is accumulated as stored energy; on a slip, whatever exceeds the energy
//! the capped spring keeps, `M_max^2 / 2 k_r`, is friction dissipation; the dashpot's trapezoid
//! work is dissipated; when the overlap opens the stored energy is lost.
//!
//! Scene keys: `rolling_friction` (mu_r, required), `rolling_stiffness` (k_r, N m/rad),
//! `rolling_damping` (eta_r, default 0.3).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of spring-dashpot-slider rolling resistance.
    pub struct RollingSpringParams {
        /// Rolling friction coefficient `mu_r`.
        pub rolling_friction: f32,
        /// Rolling stiffness `k_r` (N m/rad); 0: `2.25 k_n mu_r^2 R*^2`.
        pub rolling_stiffness: f32,
        /// Damping ratio `eta_r` of the rolling dashpot.
        pub rolling_damping: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of spring-dashpot-slider rolling resistance.
    pub struct RollingSpringHistory {
        /// Spring torque on body 1 (N m).
        pub spring: [f32; 3],
        /// Energy the spring holds (J).
        pub stored: f32,
        /// Dashpot torque on body 1 at the previous step (N m).
        pub dashpot: [f32; 3],
    }
}

/// Scene settings of `rolling_spring`.
#[derive(Clone, Debug, PartialEq)]
pub struct RollingSpringSpec {
    pub rolling_friction: f64,
    pub rolling_stiffness: Option<f64>,
    pub rolling_damping: f64,
}

/// Rolling resistance torque.
pub fn law_rolling_spring(
    geom: &ContactGeom,
    params: &RollingSpringParams,
    history: &mut RollingSpringHistory,
    force: &mut ContactForce,
) {
    let w = v3(geom.wrel);
    if geom.delta <= 0.0 {
        force.friction_dissipated += history.stored - 0.5 * v3(history.dashpot).dot(w) * geom.dt;
        *history = RollingSpringHistory::default();
        return;
    }
    let n = v3(geom.normal);
    let wr = w - n * w.dot(n);
    let dtheta = wr * geom.dt;
    // The spring torque, turned into the current tangent plane with its size kept.
    let mut m = v3(history.spring);
    let len = m.length();
    m -= n * m.dot(n);
    let plane = m.length();
    if plane > 0.0 {
        m *= len / plane;
    }
    let m_prev = m;
    let kr = if params.rolling_stiffness > 0.0 {
        params.rolling_stiffness
    } else {
        2.25 * force.stiffness
            * params.rolling_friction
            * params.rolling_friction
            * geom.r_eff
            * geom.r_eff
    };
    m -= dtheta * kr;
    let trial = m.length();
    let limit = params.rolling_friction * geom.r_eff * force.normal_force;
    let worked = history.stored - 0.5 * (m_prev + m).dot(dtheta);
    if trial > limit {
        m *= limit / trial;
        let kept = if kr > 0.0 {
            0.5 * limit * limit / kr
        } else {
            0.0
        };
        force.friction_dissipated += worked - kept;
        history.stored = kept;
    } else {
        history.stored = worked;
    }
    // The dashpot, and the slider capping spring and dashpot together: at full mobilisation a
    // dashpot along the spring adds nothing (Ai et al.'s model C switches it off there), and the
    // torque stays continuous across the switch, which an on/off dashpot is not.
    let ir = geom.m_eff * geom.r_eff * geom.r_eff;
    let mut md = wr * (-2.0 * params.rolling_damping * (ir * kr).sqrt());
    let both = (m + md).length();
    if both > limit {
        md = (m + md) * (limit / both) - m;
    }
    force.friction_dissipated -= 0.5 * (v3(history.dashpot) + md).dot(w) * geom.dt;
    let total = m + md;
    force.torque1 = (v3(force.torque1) + total).to_array();
    force.torque2 = (v3(force.torque2) - total).to_array();
    history.spring = m.to_array();
    history.dashpot = md.to_array();
}

/// The `rolling_spring` law.
pub struct RollingSpring;

impl Law for RollingSpring {
    const KEYWORD: &'static str = "rolling_spring";
    const SLOT: Slot = Slot::Rolling;
    const KEYS: &'static [&'static str] =
        &["rolling_friction", "rolling_stiffness", "rolling_damping"];
    const HISTORY_WORDS: &'static [Word] = &[
        Word::Moment,
        Word::Moment,
        Word::Moment,
        Word::Energy,
        Word::Moment,
        Word::Moment,
        Word::Moment,
    ];
    const ENERGY: &'static [&'static str] = &["friction"];
    type Params = RollingSpringParams;
    type History = RollingSpringHistory;
    type Spec = RollingSpringSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<RollingSpringSpec, K::Error> {
        let mu = keys.non_negative("rolling_friction", "(dimensionless)")?;
        Ok(RollingSpringSpec {
            rolling_friction: required(keys, "rolling_friction", "a number >= 0", mu)?,
            rolling_stiffness: keys.positive("rolling_stiffness", "N m/rad")?,
            rolling_damping: keys
                .non_negative("rolling_damping", "(dimensionless)")?
                .unwrap_or(0.3),
        })
    }

    fn spring(_: &RollingSpringSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &RollingSpringSpec, _: &PairContext<'_>) -> RollingSpringParams {
        RollingSpringParams {
            rolling_friction: spec.rolling_friction as f32,
            rolling_stiffness: spec.rolling_stiffness.unwrap_or(0.0) as f32,
            rolling_damping: spec.rolling_damping as f32,
        }
    }

    fn range(_: &RollingSpringSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &RollingSpringSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &RollingSpringParams,
        h: &mut RollingSpringHistory,
        f: &mut ContactForce,
    ) {
        law_rolling_spring(g, p, h, f)
    }
}

impl LawTwin for RollingSpring {
    // A projection with a rescale, a length and a square root: 2e-5.
    const PARITY_TOLERANCE: f32 = 2e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<RollingSpringParams, RollingSpringHistory> {
        let geom = random_geom(rng, i);
        let force = random_prior_force(rng, &geom);
        let mu = rng.range(0.0, 0.5) as f32;
        let scale = (mu * force.normal_force * geom.r_eff) as f64;
        ParityCase {
            geom,
            params: RollingSpringParams {
                rolling_friction: mu,
                rolling_stiffness: if rng.chance(0.5) {
                    rng.log_uniform(1e-6, 1e2)
                } else {
                    0.0
                },
                rolling_damping: rng.range(0.0, 1.0) as f32,
            },
            history: RollingSpringHistory {
                spring: rng.vec3(1.5 * scale),
                stored: (scale * rng.range(0.0, 1e-3)) as f32,
                dashpot: rng.vec3(0.1 * scale),
            },
            force,
        }
    }
}
