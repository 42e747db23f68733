//! The aligning moment of adhesive capsules (Mpacts DMT_Capsule, `shared/reference/000`).
//! WGSL twin: `shaders/laws/dmt_capsule.wgsl`.
//!
//! Two capsules in contact across their segments do not touch in a circle, so the DMT
//! tractions of their contact "ellipse" exert a net moment. The reference's heuristic takes the
//! DMT adhesive force `F = 2 pi R* W` at the mean lever arm `L = (2/3) sqrt(R* delta)` of the
//! contact circle:
//!
//! `M = -2 f F L (t1 . t2) (t1 x t2) / ((t1 . t1) (t2 . t2))`
//!
//! on body 1, the opposite on body 2, with `t1`, `t2` the capsules' axes and `f` the
//! `torque_factor`. The resolver gives the axes' term as `ContactGeom::alignment` (`cos sin` of
//! their angle about their common normal, so `M ~ -f F L sin(2 theta)`), zero where the contact
//! reaches an end sphere of either capsule (a symmetric contact with no moment), so the moment
//! vanishes for parallel and for crossed axes and at the caps. As the reference gives it, on
//! body 1 it points along `-(t1 x t2)` for an acute angle: it turns the axes apart, towards a
//! right angle. It adds no force. Meant after `dmt` in the same chain (the same `W`); with no
//! overlap it is zero.
//!
//! Energy: the moment has no potential; its work on the pair over the step (the trapezoid of
//! the moment against `w1 - w2`, the previous moment kept in the history) is booked with the
//! damping column, so the ledger closes.
//!
//! Scene keys (in the `extra` slot): `work_of_adhesion` (W, J/m^2, required), `torque_factor`
//! (f, dimensionless, default 1).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the capsules' DMT moment.
    pub struct DmtCapsuleParams {
        /// Work of adhesion `W` (J/m^2).
        pub work: f32,
        /// Weight `f` of the moment.
        pub torque_factor: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the capsules' DMT moment.
    pub struct DmtCapsuleHistory {
        /// Moment on body 1 at the previous step (N m).
        pub m_prev: [f32; 3],
    }
}

/// Scene settings of `dmt_capsule`.
#[derive(Clone, Debug, PartialEq)]
pub struct DmtCapsuleSpec {
    pub work_of_adhesion: f64,
    pub torque_factor: f64,
}

/// The aligning moment of two adhesive capsules.
pub fn law_dmt_capsule(
    geom: &ContactGeom,
    params: &DmtCapsuleParams,
    history: &mut DmtCapsuleHistory,
    force: &mut ContactForce,
) {
    let w = v3(geom.wrel);
    let m = if geom.delta > 0.0 {
        let f = 2.0 * std::f32::consts::PI * geom.r_eff * params.work;
        let lever = 2.0 / 3.0 * (geom.r_eff * geom.delta).sqrt();
        v3(geom.alignment) * (-2.0 * params.torque_factor * f * lever)
    } else {
        glam::Vec3::ZERO
    };
    force.torque1 = (v3(force.torque1) + m).to_array();
    force.torque2 = (v3(force.torque2) - m).to_array();
    force.damping_dissipated -= 0.5 * (v3(history.m_prev) + m).dot(w) * geom.dt;
    history.m_prev = m.to_array();
}

/// The `dmt_capsule` law.
pub struct DmtCapsule;

impl Law for DmtCapsule {
    const KEYWORD: &'static str = "dmt_capsule";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = &["work_of_adhesion", "torque_factor"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Moment, Word::Moment, Word::Moment];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = DmtCapsuleParams;
    type History = DmtCapsuleHistory;
    type Spec = DmtCapsuleSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DmtCapsuleSpec, K::Error> {
        let w = keys.non_negative("work_of_adhesion", "J/m^2")?;
        Ok(DmtCapsuleSpec {
            work_of_adhesion: required(keys, "work_of_adhesion", "a number >= 0 (J/m^2)", w)?,
            torque_factor: keys
                .non_negative("torque_factor", "(dimensionless)")?
                .unwrap_or(1.0),
        })
    }

    fn spring(_: &DmtCapsuleSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &DmtCapsuleSpec, _: &PairContext<'_>) -> DmtCapsuleParams {
        DmtCapsuleParams {
            work: spec.work_of_adhesion as f32,
            torque_factor: spec.torque_factor as f32,
        }
    }

    fn range(_: &DmtCapsuleSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &DmtCapsuleSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &DmtCapsuleParams,
        h: &mut DmtCapsuleHistory,
        f: &mut ContactForce,
    ) {
        law_dmt_capsule(g, p, h, f)
    }
}

impl LawTwin for DmtCapsule {
    // A square root and a few products: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DmtCapsuleParams, DmtCapsuleHistory> {
        let mut geom = random_geom(rng, i);
        // Random axes' term, of size cos sin <= 1/2; none at the caps (every fifth case).
        geom.alignment = if i % 5 == 4 {
            [0.0; 3]
        } else {
            rng.vec3(0.5)
        };
        let force = random_prior_force(rng, &geom);
        let work = rng.log_uniform(1e-3, 1e1);
        let scale = 2.0 * std::f64::consts::PI * (geom.r_eff * work) as f64 * geom.r_eff as f64;
        ParityCase {
            geom,
            params: DmtCapsuleParams {
                work,
                torque_factor: rng.range(0.0, 2.0) as f32,
            },
            history: DmtCapsuleHistory {
                m_prev: rng.vec3(0.01 * scale),
            },
            force,
        }
    }
}
