//! A constant stiffness block for the implicit solve. WGSL twin:
//! `shaders/laws/constant_stiffness.wgsl`.
//!
//! `grad_x F = k n n^T + k (I - n n^T) = k I` (Mpacts N_T_ConstantStiffness,
//! `shared/reference/000`): the stiffness tensor of a linearised elastic contact, which the
//! implicit modes take into their matrix (`contact_matrix` keeps `stiffness` along the normal
//! and `stiffness_t` across it). It adds `k` to both and no force: the force is the normal
//! law's. Every normal law of grains already declares its own tangent stiffness
//! `dF_n/d delta` in `stiffness`, so after one the block along the normal is that plus `k`; the
//! reference's `k I` alone is this law after a normal law that declares none, and its
//! transverse part is what it adds to a normal law whose block has none across the normal.
//!
//! Energy: the stiffness block enters the overdamped solve's own dissipation (the implicit
//! scheme's `(lambda - 1/2) dt^2 v^T K v`, booked as damping by the solve).
//!
//! Scene keys (in the `resistance` slot): `stiffness` (k, N/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the constant stiffness.
    pub struct ConstantStiffnessParams {
        /// `k` (N/m).
        pub stiffness: f32,
    }
}

/// Scene settings of `constant_stiffness`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantStiffnessSpec {
    pub stiffness: f64,
}

/// The constant stiffness: adds `k I` to the chain's stiffness block.
pub fn law_constant_stiffness(
    _geom: &ContactGeom,
    params: &ConstantStiffnessParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.stiffness += params.stiffness;
    force.stiffness_t += params.stiffness;
}

/// The `constant_stiffness` law.
pub struct ConstantStiffness;

impl Law for ConstantStiffness {
    const KEYWORD: &'static str = "constant_stiffness";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["stiffness"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = ConstantStiffnessParams;
    type History = ();
    type Spec = ConstantStiffnessSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ConstantStiffnessSpec, K::Error> {
        let k = keys.non_negative("stiffness", "N/m")?;
        let stiffness = required(keys, "stiffness", "a number >= 0 (N/m)", k)?;
        Ok(ConstantStiffnessSpec { stiffness })
    }

    fn spring(_: &ConstantStiffnessSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &ConstantStiffnessSpec, _: &PairContext<'_>) -> ConstantStiffnessParams {
        ConstantStiffnessParams {
            stiffness: spec.stiffness as f32,
        }
    }

    fn range(_: &ConstantStiffnessSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &ConstantStiffnessSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(g: &ContactGeom, p: &ConstantStiffnessParams, h: &mut (), f: &mut ContactForce) {
        law_constant_stiffness(g, p, h, f)
    }
}

impl LawTwin for ConstantStiffness {
    // One addition each: 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<ConstantStiffnessParams, ()> {
        let geom = random_geom(rng, i);
        // Case 0: nothing before it; later cases a normal law's stiffness, and a spring's
        // transverse stiffness of either sign.
        let mut force = ContactForce::default();
        if i > 0 {
            force = random_prior_force(rng, &geom);
            force.stiffness_t = rng.range(-1e3, 1e3) as f32;
        }
        ParityCase {
            geom,
            params: ConstantStiffnessParams {
                stiffness: if i == 1 { 0.0 } else { rng.log_uniform(1e-3, 1e7) },
            },
            history: (),
            force,
        }
    }
}
