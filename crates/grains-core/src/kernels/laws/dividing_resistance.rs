//! The friction between the two halves of a dividing cell. WGSL twin:
//! `shaders/laws/dividing_resistance.wgsl`.
//!
//! `Gamma = gamma_dividing I` (Mpacts N_DividingResistance, `shared/reference/000`): a diagonal
//! block, `gamma_n = gamma_t = friction`, which SETS the chain's block rather than adding to it,
//! so that the pair of daughter cells feels this friction alone whatever the laws before it
//! declared. It must therefore be the last law of the `resistance` slot (`Law::OVERWRITES`:
//! the scene refuses a law after it, as a later law would add to what it set). In Mpacts it acts
//! on division partners only; in grains it acts on every pair its chain evaluates, so it belongs
//! on the fixed pair that joins the two halves (a `[[bond]]`, with `dividing` or `budding`).
//!
//! Scene keys (in the `resistance` slot): `friction` (N s/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the dividing resistance.
    pub struct DividingResistanceParams {
        /// The block's diagonal (N s/m).
        pub friction: f32,
    }
}

/// Scene settings of `dividing_resistance`.
#[derive(Clone, Debug, PartialEq)]
pub struct DividingResistanceSpec {
    pub friction: f64,
}

/// The dividing resistance: sets the chain's block to `friction I`.
pub fn law_dividing_resistance(
    _geom: &ContactGeom,
    params: &DividingResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.gamma_n = params.friction;
    force.gamma_t = params.friction;
}

/// The `dividing_resistance` law.
pub struct DividingResistance;

impl Law for DividingResistance {
    const KEYWORD: &'static str = "dividing_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["friction"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    const OVERWRITES: bool = true;
    type Params = DividingResistanceParams;
    type History = ();
    type Spec = DividingResistanceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DividingResistanceSpec, K::Error> {
        let f = keys.non_negative("friction", "N s/m")?;
        let friction = required(keys, "friction", "a number >= 0 (N s/m)", f)?;
        Ok(DividingResistanceSpec { friction })
    }

    fn spring(_: &DividingResistanceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &DividingResistanceSpec, _: &PairContext<'_>) -> DividingResistanceParams {
        DividingResistanceParams {
            friction: spec.friction as f32,
        }
    }

    fn range(_: &DividingResistanceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &DividingResistanceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(g: &ContactGeom, p: &DividingResistanceParams, h: &mut (), f: &mut ContactForce) {
        law_dividing_resistance(g, p, h, f)
    }
}

impl LawTwin for DividingResistance {
    // Copies: exact, but stated as the other resistances' 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DividingResistanceParams, ()> {
        let geom = random_geom(rng, i);
        // Earlier laws' blocks, which it must overwrite (case 0: none; case 1: a zero friction
        // over a non-zero block).
        let mut force = ContactForce::default();
        if i > 0 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
            force.gamma_t = rng.log_uniform(1e-6, 1e2);
        }
        ParityCase {
            geom,
            params: DividingResistanceParams {
                friction: if i == 1 { 0.0 } else { rng.log_uniform(1e-6, 1e2) },
            },
            history: (),
            force,
        }
    }
}
