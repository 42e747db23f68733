//! Torsional Coulomb friction. WGSL twin: `shaders/laws/torsional_coulomb.wgsl`.
//!
//! A torque about the normal against the relative spin `w_n = (w1 - w2) . n` (Mpacts
//! TorsionalCoulombFriction, `shared/reference/000`): viscous while it sticks, capped by the
//! Coulomb torque of a circular contact under uniform pressure while it slides,
//!
//! `M = -min(c_t |w_n| A_c / (2 pi), 2/3 mu_t F_n a) sign(w_n) n`,
//!
//! with the contact radius `a = sqrt(R* delta)` and area `A_c = pi a^2` of a Hertzian contact,
//! `F_n` the normal force of the chain's earlier laws. Body 2 receives the opposite torque.
//!
//! Energy: the torque's work over the step, `(M_prev + M) / 2 w_n dt` (trapezoid, as
//! `viscous.rs` explains), is all dissipated, booked as friction.
//!
//! Scene keys: `torsional_friction` (mu_t, required), `damping` (c_t, N s/m: torque per unit
//! spin and area over 2 pi; required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of torsional Coulomb friction.
    pub struct TorsionalCoulombParams {
        /// Torsional friction coefficient `mu_t`.
        pub torsional_friction: f32,
        /// Viscous coefficient `c_t` of the sticking regime (N s/m).
        pub damping: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of torsional Coulomb friction.
    pub struct TorsionalCoulombHistory {
        /// Torque magnitude about the normal at the previous step, signed with the spin it
        /// opposed (N m).
        pub m_prev: f32,
    }
}

/// Scene settings of `torsional_coulomb`.
#[derive(Clone, Debug, PartialEq)]
pub struct TorsionalCoulombSpec {
    pub torsional_friction: f64,
    /// `c_t` (N s/m).
    pub damping: f64,
}

/// Torsional friction torque.
pub fn law_torsional_coulomb(
    geom: &ContactGeom,
    params: &TorsionalCoulombParams,
    history: &mut TorsionalCoulombHistory,
    force: &mut ContactForce,
) {
    let n = v3(geom.normal);
    let wn = v3(geom.wrel).dot(n);
    if geom.delta <= 0.0 {
        force.friction_dissipated += 0.5 * history.m_prev * wn * geom.dt;
        history.m_prev = 0.0;
        return;
    }
    let a2 = geom.r_eff * geom.delta;
    let viscous = params.damping * wn.abs() * 0.5 * a2;
    let coulomb = 2.0 / 3.0 * params.torsional_friction * force.normal_force * a2.sqrt();
    let m = viscous.min(coulomb) * wn.signum();
    let m = if wn == 0.0 { 0.0 } else { m };
    force.torque1 = (v3(force.torque1) - n * m).to_array();
    force.torque2 = (v3(force.torque2) + n * m).to_array();
    force.friction_dissipated += 0.5 * (history.m_prev + m) * wn * geom.dt;
    history.m_prev = m;
}

/// The `torsional_coulomb` law.
pub struct TorsionalCoulomb;

impl Law for TorsionalCoulomb {
    const KEYWORD: &'static str = "torsional_coulomb";
    const SLOT: Slot = Slot::Twisting;
    const KEYS: &'static [&'static str] = &["torsional_friction", "damping"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Moment];
    const ENERGY: &'static [&'static str] = &["friction"];
    type Params = TorsionalCoulombParams;
    type History = TorsionalCoulombHistory;
    type Spec = TorsionalCoulombSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<TorsionalCoulombSpec, K::Error> {
        let mu = keys.non_negative("torsional_friction", "(dimensionless)")?;
        let mu = required(keys, "torsional_friction", "a number >= 0", mu)?;
        let c = keys.positive("damping", "N s/m")?;
        Ok(TorsionalCoulombSpec {
            torsional_friction: mu,
            damping: required(keys, "damping", "a positive number (N s/m)", c)?,
        })
    }

    fn spring(_: &TorsionalCoulombSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &TorsionalCoulombSpec, _: &PairContext<'_>) -> TorsionalCoulombParams {
        TorsionalCoulombParams {
            torsional_friction: spec.torsional_friction as f32,
            damping: spec.damping as f32,
        }
    }

    fn range(_: &TorsionalCoulombSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &TorsionalCoulombSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &TorsionalCoulombParams,
        h: &mut TorsionalCoulombHistory,
        f: &mut ContactForce,
    ) {
        law_torsional_coulomb(g, p, h, f)
    }
}

impl LawTwin for TorsionalCoulomb {
    // Products and a square root: a few ulps; 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<TorsionalCoulombParams, TorsionalCoulombHistory> {
        let geom = random_geom(rng, i);
        let force = random_prior_force(rng, &geom);
        ParityCase {
            geom,
            params: TorsionalCoulombParams {
                torsional_friction: rng.range(0.0, 1.0) as f32,
                damping: rng.log_uniform(1e-3, 1e5),
            },
            history: TorsionalCoulombHistory {
                m_prev: force.normal_force * geom.r_eff * rng.range(-0.1, 0.1) as f32,
            },
            force,
        }
    }
}
