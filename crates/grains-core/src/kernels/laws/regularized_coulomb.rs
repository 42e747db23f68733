//! Regularised Coulomb friction. WGSL twin: `shaders/laws/regularized_coulomb.wgsl`.
//!
//! `F_t = -mu F_n v_t / max(|v_t|, v_reg)`: Coulomb sliding friction whose proportional zone
//! below the regularisation velocity `v_reg` avoids chattering at small slip (Exudyn's
//! sphere-sphere contact, `shared/reference/002`, `frictionProportionalZone`). It is the
//! Haff-Werner force with `c_t = mu F_n / v_reg` and shares its kernel and energy booking
//! (`haff_werner.rs`).
//!
//! Scene keys: `friction` (mu, required), `regularization_velocity` (m/s, default 1e-3, as
//! Exudyn).

use crate::gpu_types::{ContactForce, ContactGeom};
use crate::kernels::laws::haff_werner::{
    law_viscous_coulomb, parse_friction, viscous_coulomb_case, viscous_coulomb_layouts,
    ViscousCoulombHistory, ViscousCoulombParams,
};
use crate::law::{
    CollisionContext, FieldOffsets, Law, LawKeys, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::SplitMix;
use crate::registry::Slot;

/// Scene settings of `regularized_coulomb`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegularizedCoulombSpec {
    pub friction: f64,
    /// `v_reg` (m/s).
    pub regularization_velocity: f64,
}

/// Regularised Coulomb friction.
pub fn law_regularized_coulomb(
    geom: &ContactGeom,
    params: &ViscousCoulombParams,
    history: &mut ViscousCoulombHistory,
    force: &mut ContactForce,
) {
    law_viscous_coulomb(geom, params, history, force)
}

/// The `regularized_coulomb` law.
pub struct RegularizedCoulomb;

impl Law for RegularizedCoulomb {
    const KEYWORD: &'static str = "regularized_coulomb";
    const SLOT: Slot = Slot::Tangential;
    const KEYS: &'static [&'static str] = &["friction", "regularization_velocity"];
    // As `haff_werner`, with one more division: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const PARAMS_STRUCT: &'static str = "ViscousCoulombParams";
    const HISTORY_STRUCT: Option<&'static str> = Some("ViscousCoulombHistory");
    const HISTORY_WORDS: &'static [Word] = &[Word::Force, Word::Force, Word::Force];
    const ENERGY: &'static [&'static str] = &["friction"];
    type Params = ViscousCoulombParams;
    type History = ViscousCoulombHistory;
    type Spec = RegularizedCoulombSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<RegularizedCoulombSpec, K::Error> {
        Ok(RegularizedCoulombSpec {
            friction: parse_friction(keys)?,
            regularization_velocity: keys
                .positive("regularization_velocity", "m/s")?
                .unwrap_or(1e-3),
        })
    }

    fn spring(_: &RegularizedCoulombSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &RegularizedCoulombSpec, _: &PairContext<'_>) -> ViscousCoulombParams {
        ViscousCoulombParams {
            friction: spec.friction as f32,
            damping: 0.0,
            regularization_velocity: spec.regularization_velocity as f32,
        }
    }

    fn range(_: &RegularizedCoulombSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &RegularizedCoulombSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &ViscousCoulombParams,
        h: &mut ViscousCoulombHistory,
        f: &mut ContactForce,
    ) {
        law_regularized_coulomb(g, p, h, f)
    }

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<ViscousCoulombParams, ViscousCoulombHistory> {
        viscous_coulomb_case(rng, i, true)
    }

    fn layouts() -> Vec<(&'static str, u32, FieldOffsets)> {
        viscous_coulomb_layouts()
    }
}
