//! Gonthier / Carvalho-Martins restitution model. WGSL twin: `shaders/laws/gonthier.wgsl`.
//!
//! The Hunt-Crossley force (`hunt_crossley.rs`, whose kernel it shares) with a restitution
//! factor valid over the whole range of `e`, switching at `e = 1/3` where the two agree
//! (Exudyn's sphere-sphere contact, `shared/reference/002`, impact model 2):
//!
//! - `e > 1/3`: Carvalho & Martins (2019), `chi v0 / k = 3/2 (1 - e) (11 - e) / (1 + 9 e)`;
//! - `e <= 1/3`: Gonthier et al. (2004), `chi v0 / k = (1 - e^2) / e`.
//!
//! Scene keys: those of `hunt_crossley`.

use crate::gpu_types::{ContactForce, ContactGeom};
use crate::kernels::laws::hunt_crossley::{
    impact_collision_time, impact_parity_case, impact_spring, law_impact, mix_impact,
    parse_impact, ImpactHistory, ImpactParams, ImpactSpec,
};
use crate::law::{CollisionContext, FieldOffsets, Law, LawKeys, PairContext, ParityCase, Word};
use crate::parity::SplitMix;
use crate::registry::Slot;

/// The restitution factor `chi v0 / k` of the mixed model for restitution `e`.
pub fn gonthier_factor(e: f64) -> f64 {
    if e > 1.0 / 3.0 {
        1.5 * (1.0 - e) * (11.0 - e) / (1.0 + 9.0 * e)
    } else {
        (1.0 - e * e) / e
    }
}

/// Gonthier / Carvalho-Martins contact.
pub fn law_gonthier(
    geom: &ContactGeom,
    params: &ImpactParams,
    history: &mut ImpactHistory,
    force: &mut ContactForce,
) {
    law_impact(geom, params, history, force)
}

/// The `gonthier` law.
pub struct Gonthier;

impl Law for Gonthier {
    const KEYWORD: &'static str = "gonthier";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &[
        "restitution",
        "exponent",
        "stiffness",
        "min_impact_velocity",
        "damping",
    ];
    // As `hunt_crossley`: `pow` and a dashpot that nearly cancels the spring, 1e-4.
    const PARITY_TOLERANCE: f32 = 1e-4;
    const PARAMS_STRUCT: &'static str = "ImpactParams";
    const HISTORY_STRUCT: Option<&'static str> = Some("ImpactHistory");
    const HISTORY_WORDS: &'static [Word] = &[Word::Own, Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = ImpactParams;
    type History = ImpactHistory;
    type Spec = ImpactSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ImpactSpec, K::Error> {
        parse_impact(keys)
    }

    fn spring(spec: &ImpactSpec) -> Option<crate::law::SpringShape> {
        impact_spring(spec)
    }

    fn mix(spec: &ImpactSpec, pair: &PairContext<'_>) -> ImpactParams {
        mix_impact(spec, pair, gonthier_factor(spec.restitution))
    }

    fn range(_: &ImpactSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(spec: &ImpactSpec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(impact_collision_time(spec, c))
    }

    fn apply(g: &ContactGeom, p: &ImpactParams, h: &mut ImpactHistory, f: &mut ContactForce) {
        law_gonthier(g, p, h, f)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<ImpactParams, ImpactHistory> {
        let e = rng.range(0.05, 1.0);
        impact_parity_case(rng, i, gonthier_factor(e))
    }

    fn layouts() -> Vec<(&'static str, u32, FieldOffsets)> {
        crate::kernels::laws::hunt_crossley::HuntCrossley::layouts()
    }
}
