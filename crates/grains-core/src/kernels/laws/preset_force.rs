//! A preset force while a contact is established. WGSL twin: `shaders/laws/preset_force.wgsl`.
//!
//! A fixed normal force `F` (positive pushes apart, negative pulls together) from the first
//! time the surfaces touch until they are more than `release_distance` apart (Mpacts
//! PresetForce, `shared/reference/000`). It acts beside a normal law, in the `extra` slot; its
//! range is the release distance.
//!
//! Energy: a constant force stores `F delta` while it acts (negative for an attraction held
//! apart); at release that energy, and the last force's half step, are booked as damping
//! dissipation ([`book_step`]).
//!
//! Scene keys: `force` (N, required, signed), `release_distance` (m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::established::{book_step, EstablishedHistory};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the preset force.
    pub struct PresetForceParams {
        /// The force (N), positive repulsive.
        pub force: f32,
        /// Separation beyond which it is released (m).
        pub release_distance: f32,
    }
}

/// Scene settings of `preset_force`.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetForceSpec {
    pub force: f64,
    pub release_distance: f64,
}

/// The preset force.
pub fn law_preset_force(
    geom: &ContactGeom,
    params: &PresetForceParams,
    history: &mut EstablishedHistory,
    force: &mut ContactForce,
) {
    if geom.delta > 0.0 {
        history.established = 1;
    }
    if history.established == 0 || -geom.delta > params.release_distance {
        book_step(geom, history, 0.0, 0.0, force);
        *history = EstablishedHistory::default();
        return;
    }
    book_step(
        geom,
        history,
        params.force,
        params.force * geom.delta,
        force,
    );
}

/// The `preset_force` law.
pub struct PresetForce;

impl Law for PresetForce {
    const KEYWORD: &'static str = "preset_force";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = &["force", "release_distance"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact, Word::Force, Word::Energy];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = PresetForceParams;
    type History = EstablishedHistory;
    type Spec = PresetForceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<PresetForceSpec, K::Error> {
        let f = keys.number("force", "a number (N), positive pushing apart")?;
        let d = keys.non_negative("release_distance", "m")?;
        Ok(PresetForceSpec {
            force: required(keys, "force", "a number (N)", f)?,
            release_distance: required(keys, "release_distance", "a number >= 0 (m)", d)?,
        })
    }

    fn spring(_: &PresetForceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &PresetForceSpec, _: &PairContext<'_>) -> PresetForceParams {
        PresetForceParams {
            force: spec.force as f32,
            release_distance: spec.release_distance as f32,
        }
    }

    fn range(spec: &PresetForceSpec, _: &PairContext<'_>) -> f64 {
        spec.release_distance
    }

    fn collision_time(_: &PresetForceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &PresetForceParams,
        h: &mut EstablishedHistory,
        f: &mut ContactForce,
    ) {
        law_preset_force(g, p, h, f)
    }
}

impl LawTwin for PresetForce {
    // A product and a difference: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<PresetForceParams, EstablishedHistory> {
        let mut geom = random_geom(rng, i);
        let d = geom.r_eff * rng.log_uniform(1e-4, 1e-1);
        if i % 3 == 1 {
            geom.delta = -d * rng.range(0.0, 2.0) as f32;
        }
        let f = rng.range(-1.0, 1.0) as f32;
        ParityCase {
            geom,
            params: PresetForceParams {
                force: f,
                release_distance: d,
            },
            history: EstablishedHistory {
                established: rng.chance(0.7) as u32,
                f_prev: f,
                e_prev: f * d * rng.range(-1.0, 1.0) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
