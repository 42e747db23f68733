//! Linear normal dashpot while the surfaces overlap. WGSL twin:
//! `shaders/laws/linear_damper_overlap.wgsl`.
//!
//! `F = -c v_n n f_c` while `delta > 0`, with `f_c` the contact fraction (Mpacts
//! LinearDamperOverlap, `shared/reference/000`). Not clipped: with a linear spring it is the
//! classic damped oscillator, whose restitution is `exp(-pi zeta / sqrt(1 - zeta^2))`,
//! `zeta = c / (2 sqrt(m* k))`. The kernel and energy booking are `linear_damper`'s
//! (`law_normal_dashpot`); on separation the last force's half step is booked.
//!
//! Scene keys: `damping` (c, N s/m, required).

use crate::gpu_types::{ContactForce, ContactGeom};
use crate::kernels::laws::linear_damper::{
    dashpot_case, dashpot_layouts, law_normal_dashpot, parse_dashpot, NormalDashpotHistory,
    NormalDashpotParams, NormalDashpotSpec,
};
use crate::law::{
    CollisionContext, FieldOffsets, Law, LawKeys, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::SplitMix;
use crate::registry::Slot;

/// The overlap-only linear dashpot.
pub fn law_linear_damper_overlap(
    geom: &ContactGeom,
    params: &NormalDashpotParams,
    history: &mut NormalDashpotHistory,
    force: &mut ContactForce,
) {
    law_normal_dashpot(geom, params, history, force)
}

/// The `linear_damper_overlap` law.
pub struct LinearDamperOverlap;

impl Law for LinearDamperOverlap {
    const KEYWORD: &'static str = "linear_damper_overlap";
    const SLOT: Slot = Slot::Damping;
    const KEYS: &'static [&'static str] = &["damping"];
    // As `linear_damper`: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const PARAMS_STRUCT: &'static str = "NormalDashpotParams";
    const HISTORY_STRUCT: Option<&'static str> = Some("NormalDashpotHistory");
    const HISTORY_WORDS: &'static [Word] = &[Word::Force];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = NormalDashpotParams;
    type History = NormalDashpotHistory;
    type Spec = NormalDashpotSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<NormalDashpotSpec, K::Error> {
        parse_dashpot(keys)
    }

    fn spring(_: &NormalDashpotSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &NormalDashpotSpec, _: &PairContext<'_>) -> NormalDashpotParams {
        NormalDashpotParams {
            damping: spec.damping as f32,
            overlap_only: 1,
        }
    }

    fn range(_: &NormalDashpotSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &NormalDashpotSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &NormalDashpotParams,
        h: &mut NormalDashpotHistory,
        f: &mut ContactForce,
    ) {
        law_linear_damper_overlap(g, p, h, f)
    }

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<NormalDashpotParams, NormalDashpotHistory> {
        dashpot_case(rng, i, true)
    }

    fn layouts() -> Vec<(&'static str, u32, FieldOffsets)> {
        dashpot_layouts()
    }
}
