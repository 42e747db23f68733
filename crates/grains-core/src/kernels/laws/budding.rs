//! The force that drives a bud out of its mother cell. WGSL twin: `shaders/laws/budding.wgsl`
//! (the kernel it shares with `dividing` is `shaders/lib/division.wgsl`).
//!
//! Mpacts N_Budding (`shared/reference/000`): `dividing`'s controller (`dividing.rs`), with the
//! target separation ramping from `|R1 - R2|`, the bud's centre inside its mother, its surface
//! touching hers from within, to `R1 + R2`, the bud just touching her from outside, over the
//! cytokinesis `T`; it overwrites the chain's force while `t < T` as `dividing` does.
//!
//! Scene keys (in the `extra` slot): `repulsive_stiffness` (N/m, required),
//! `attractive_stiffness` (N/m, default `repulsive_stiffness`), `duration` (T, s, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::dividing::{
    division_case, division_params, division_time, law_division, parse_division,
    DivisionHistory, DivisionParams, DivisionSpec,
};
use crate::law::{
    CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::SplitMix;
use crate::registry::Slot;

/// The budding force: the target from `|R1 - R2|` to `R1 + R2`.
pub fn law_budding(
    geom: &ContactGeom,
    params: &DivisionParams,
    history: &mut DivisionHistory,
    force: &mut ContactForce,
) {
    let s0 = (geom.lengths[0] - geom.lengths[1]).abs();
    let s1 = geom.lengths[0] + geom.lengths[1];
    law_division(geom, params, s0, s1, history, force);
}

/// The `budding` law.
pub struct Budding;

impl Law for Budding {
    const KEYWORD: &'static str = "budding";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] =
        &["repulsive_stiffness", "attractive_stiffness", "duration"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact];
    const ENERGY: &'static [&'static str] = &["elastic"];
    const OVERWRITES: bool = true;
    type Params = DivisionParams;
    type History = DivisionHistory;
    type Spec = DivisionSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DivisionSpec, K::Error> {
        parse_division(keys)
    }

    fn spring(_: &DivisionSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &DivisionSpec, _: &PairContext<'_>) -> DivisionParams {
        division_params(spec)
    }

    fn range(_: &DivisionSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(spec: &DivisionSpec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(division_time(spec, c))
    }

    fn apply(
        g: &ContactGeom,
        p: &DivisionParams,
        h: &mut DivisionHistory,
        f: &mut ContactForce,
    ) {
        law_budding(g, p, h, f)
    }
}

impl LawTwin for Budding {
    // As `dividing`'s: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DivisionParams, DivisionHistory> {
        division_case(rng, i)
    }
}
