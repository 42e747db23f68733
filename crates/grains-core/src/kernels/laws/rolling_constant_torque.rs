//! Constant-torque rolling resistance. WGSL twin: `shaders/laws/rolling_constant_torque.wgsl`.
//!
//! A torque against the relative rolling velocity `w_r` (the part of `w1 - w2` in the tangent
//! plane), of magnitude `mu_r R* F_n` (Zhou et al. 1999; Ai, Chen, Rotter & Ooi 2011, model A):
//!
//! `M_r = -mu_r R* F_n w_r / max(|w_r|, w_reg)`,
//!
//! regularised below `w_reg` as `regularized_coulomb` is, so that a sphere at rest does not
//! chatter. A sphere rolling on a plane then decelerates at `5/7 mu_r g` and stops after
//! `7 v0^2 / (10 mu_r g)`. Body 2 receives the opposite torque.
//!
//! Energy: the torque's work over the step (trapezoid of the torque against `w1 - w2`, the
//! previous torque kept in the history) is all dissipated, booked as friction.
//!
//! Scene keys: `rolling_friction` (mu_r, dimensionless, required),
//! `regularization_velocity` (w_reg, rad/s, default 1e-3).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of constant-torque rolling resistance.
    pub struct RollingConstantTorqueParams {
        /// Rolling friction coefficient `mu_r`.
        pub rolling_friction: f32,
        /// Regularisation angular velocity `w_reg` (rad/s).
        pub regularization_velocity: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of constant-torque rolling resistance.
    pub struct RollingConstantTorqueHistory {
        /// Torque on body 1 at the previous step (N m).
        pub m_prev: [f32; 3],
    }
}

/// Scene settings of `rolling_constant_torque`.
#[derive(Clone, Debug, PartialEq)]
pub struct RollingConstantTorqueSpec {
    pub rolling_friction: f64,
    /// `w_reg` (rad/s).
    pub regularization_velocity: f64,
}

/// Rolling resistance torque.
pub fn law_rolling_constant_torque(
    geom: &ContactGeom,
    params: &RollingConstantTorqueParams,
    history: &mut RollingConstantTorqueHistory,
    force: &mut ContactForce,
) {
    let w = v3(geom.wrel);
    if geom.delta <= 0.0 {
        force.friction_dissipated -= 0.5 * v3(history.m_prev).dot(w) * geom.dt;
        *history = RollingConstantTorqueHistory::default();
        return;
    }
    let n = v3(geom.normal);
    let wr = w - n * w.dot(n);
    let speed = wr.length();
    let limit = params.rolling_friction * geom.r_eff * force.normal_force;
    let m = wr * (-limit / speed.max(params.regularization_velocity));
    force.torque1 = (v3(force.torque1) + m).to_array();
    force.torque2 = (v3(force.torque2) - m).to_array();
    force.friction_dissipated -= 0.5 * (v3(history.m_prev) + m).dot(w) * geom.dt;
    history.m_prev = m.to_array();
}

/// The `rolling_constant_torque` law.
pub struct RollingConstantTorque;

impl Law for RollingConstantTorque {
    const KEYWORD: &'static str = "rolling_constant_torque";
    const SLOT: Slot = Slot::Rolling;
    const KEYS: &'static [&'static str] = &["rolling_friction", "regularization_velocity"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Moment, Word::Moment, Word::Moment];
    const ENERGY: &'static [&'static str] = &["friction"];
    type Params = RollingConstantTorqueParams;
    type History = RollingConstantTorqueHistory;
    type Spec = RollingConstantTorqueSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<RollingConstantTorqueSpec, K::Error> {
        let mu = keys.non_negative("rolling_friction", "(dimensionless)")?;
        Ok(RollingConstantTorqueSpec {
            rolling_friction: required(keys, "rolling_friction", "a number >= 0", mu)?,
            regularization_velocity: keys
                .positive("regularization_velocity", "rad/s")?
                .unwrap_or(1e-3),
        })
    }

    fn spring(_: &RollingConstantTorqueSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &RollingConstantTorqueSpec, _: &PairContext<'_>) -> RollingConstantTorqueParams {
        RollingConstantTorqueParams {
            rolling_friction: spec.rolling_friction as f32,
            regularization_velocity: spec.regularization_velocity as f32,
        }
    }

    fn range(_: &RollingConstantTorqueSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &RollingConstantTorqueSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &RollingConstantTorqueParams,
        h: &mut RollingConstantTorqueHistory,
        f: &mut ContactForce,
    ) {
        law_rolling_constant_torque(g, p, h, f)
    }
}

impl LawTwin for RollingConstantTorque {
    // A projection, a length and a division: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<RollingConstantTorqueParams, RollingConstantTorqueHistory> {
        let geom = random_geom(rng, i);
        let force = random_prior_force(rng, &geom);
        let scale = force.normal_force as f64 * geom.r_eff as f64;
        ParityCase {
            geom,
            params: RollingConstantTorqueParams {
                rolling_friction: rng.range(0.0, 0.5) as f32,
                regularization_velocity: rng.log_uniform(1e-4, 1e3),
            },
            history: RollingConstantTorqueHistory {
                m_prev: rng.vec3(0.1 * scale),
            },
            force,
        }
    }
}
