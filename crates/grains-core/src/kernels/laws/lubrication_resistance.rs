//! Lubrication as a friction block. WGSL twin: `shaders/laws/lubrication_resistance.wgsl`.
//!
//! The normal resistance of the fluid film between two approaching spheres, `gamma_n = 6 pi mu
//! R*^2 / h` at gap `h` (Reynolds' lubrication approximation; Mpacts N_LubricationResistance,
//! `shared/reference/000`), added to the chain's block for the implicit solve rather than
//! applied as a force (the inertial `lubrication` law, in the `extra` slot, applies it as
//! `-gamma_n v_n n`). It acts from the gap `max_gap` down, with the gap taken as at least
//! `min_gap` (surface roughness; it also keeps the block finite at contact and through an
//! overlap); its range is `max_gap`, so the neighbour list keeps pairs within it and the solve
//! sees them.
//!
//! Scene keys (in the `resistance` slot): `viscosity` (mu, Pa s, required), `min_gap` (m,
//! required), `max_gap` (m, required, above `min_gap`), as `lubrication`'s.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::lubrication::{Lubrication, LubricationSpec};
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the lubrication resistance.
    pub struct LubricationResistanceParams {
        /// Fluid viscosity `mu` (Pa s).
        pub viscosity: f32,
        /// Smallest gap (m).
        pub min_gap: f32,
        /// Largest gap at which it acts (m).
        pub max_gap: f32,
    }
}

/// The lubrication resistance: adds `6 pi mu R*^2 / max(gap, min_gap)` to the block's normal
/// friction below `max_gap`.
pub fn law_lubrication_resistance(
    geom: &ContactGeom,
    params: &LubricationResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    let gap = -geom.delta;
    if gap < params.max_gap {
        let h = gap.max(params.min_gap);
        force.gamma_n +=
            6.0 * std::f32::consts::PI * params.viscosity * geom.r_eff * geom.r_eff / h;
    }
}

/// The `lubrication_resistance` law.
pub struct LubricationResistance;

impl Law for LubricationResistance {
    const KEYWORD: &'static str = "lubrication_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["viscosity", "min_gap", "max_gap"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = LubricationResistanceParams;
    type History = ();
    type Spec = LubricationSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LubricationSpec, K::Error> {
        // The same keys and checks as the inertial law's.
        <Lubrication as Law>::parse(keys)
    }

    fn spring(_: &LubricationSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &LubricationSpec, _: &PairContext<'_>) -> LubricationResistanceParams {
        LubricationResistanceParams {
            viscosity: spec.viscosity as f32,
            min_gap: spec.min_gap as f32,
            max_gap: spec.max_gap as f32,
        }
    }

    fn range(spec: &LubricationSpec, _: &PairContext<'_>) -> f64 {
        spec.max_gap
    }

    fn collision_time(_: &LubricationSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &LubricationResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_lubrication_resistance(g, p, h, f)
    }
}

impl LawTwin for LubricationResistance {
    // Products and a quotient: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<LubricationResistanceParams, ()> {
        let mut geom = random_geom(rng, i);
        let hi = geom.r_eff * rng.log_uniform(1e-3, 1e-1);
        let lo = hi * rng.log_uniform(1e-3, 0.5);
        // Edge cases: touching (case 0, the gap at min_gap), exactly at max_gap (case 1, out),
        // then gaps on both sides of both bounds for odd cases, overlaps for even ones.
        geom.delta = match i {
            0 => 0.0,
            1 => -hi,
            _ if i % 2 == 1 => -hi * rng.range(0.0, 1.5) as f32,
            _ => geom.delta,
        };
        let mut force = ContactForce::default();
        if i > 1 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
        }
        ParityCase {
            geom,
            params: LubricationResistanceParams {
                viscosity: rng.log_uniform(1e-4, 1e1),
                min_gap: lo,
                max_gap: hi,
            },
            history: (),
            force,
        }
    }
}
