//! Linear adhesion with a detach length. WGSL twin: `shaders/laws/linear_adhesion.wgsl`.
//!
//! Once the surfaces have touched, separating them is resisted by an attraction that grows
//! linearly with the separation `s = -delta`, `F = f_d s / d_d`, up to the detach length `d_d`,
//! where the contact breaks (Mpacts N_LinearAdhesionForce, `shared/reference/000`). It acts
//! beside a normal law, in the `extra` slot, and only while the surfaces are apart; its range
//! is `d_d`, so the neighbour list keeps a separating pair until it breaks.
//!
//! Energy: the attraction stores `f_d s^2 / (2 d_d)`; the adhesion energy `W = f_d d_d / 2` is
//! lost when the contact breaks and booked as damping dissipation, with the last force's half
//! step ([`book_step`]).
//!
//! Scene keys: `detach_force` (f_d, N, required), `detach_length` (d_d, m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::established::{book_step, EstablishedHistory};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of linear adhesion.
    pub struct LinearAdhesionParams {
        /// Attraction at the detach length `f_d` (N).
        pub detach_force: f32,
        /// Detach length `d_d` (m).
        pub detach_length: f32,
    }
}

/// Scene settings of `linear_adhesion`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearAdhesionSpec {
    pub detach_force: f64,
    pub detach_length: f64,
}

/// Linear adhesion.
pub fn law_linear_adhesion(
    geom: &ContactGeom,
    params: &LinearAdhesionParams,
    history: &mut EstablishedHistory,
    force: &mut ContactForce,
) {
    if geom.delta > 0.0 {
        history.established = 1;
    }
    let s = -geom.delta;
    if history.established == 0 || s >= params.detach_length {
        // Never touched, or broken: what was stored, and the last half step, are lost.
        book_step(geom, history, 0.0, 0.0, force);
        *history = EstablishedHistory::default();
        return;
    }
    let (f, e) = if s > 0.0 {
        (
            -params.detach_force * s / params.detach_length,
            0.5 * params.detach_force * s * s / params.detach_length,
        )
    } else {
        (0.0, 0.0)
    };
    book_step(geom, history, f, e, force);
}

/// The `linear_adhesion` law.
pub struct LinearAdhesion;

impl Law for LinearAdhesion {
    const KEYWORD: &'static str = "linear_adhesion";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = &["detach_force", "detach_length"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact, Word::Force, Word::Energy];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = LinearAdhesionParams;
    type History = EstablishedHistory;
    type Spec = LinearAdhesionSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LinearAdhesionSpec, K::Error> {
        let f = keys.positive("detach_force", "N")?;
        let d = keys.positive("detach_length", "m")?;
        Ok(LinearAdhesionSpec {
            detach_force: required(keys, "detach_force", "a positive number (N)", f)?,
            detach_length: required(keys, "detach_length", "a positive number (m)", d)?,
        })
    }

    fn spring(_: &LinearAdhesionSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &LinearAdhesionSpec, _: &PairContext<'_>) -> LinearAdhesionParams {
        LinearAdhesionParams {
            detach_force: spec.detach_force as f32,
            detach_length: spec.detach_length as f32,
        }
    }

    fn range(spec: &LinearAdhesionSpec, _: &PairContext<'_>) -> f64 {
        spec.detach_length
    }

    fn collision_time(_: &LinearAdhesionSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &LinearAdhesionParams,
        h: &mut EstablishedHistory,
        f: &mut ContactForce,
    ) {
        law_linear_adhesion(g, p, h, f)
    }
}

impl LawTwin for LinearAdhesion {
    // Products and a quotient, and a dissipation that is a difference: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<LinearAdhesionParams, EstablishedHistory> {
        let mut geom = random_geom(rng, i);
        let d = geom.r_eff * rng.log_uniform(1e-4, 1e-1);
        // Apart within, at or beyond the detach length, or touching.
        geom.delta = match i % 4 {
            0 => geom.delta,
            1 => -d * rng.range(0.0, 1.0) as f32,
            2 => -d,
            _ => -d * rng.range(1.0, 2.0) as f32,
        };
        let f_d = rng.log_uniform(1e-6, 1.0);
        ParityCase {
            geom,
            params: LinearAdhesionParams {
                detach_force: f_d,
                detach_length: d,
            },
            history: EstablishedHistory {
                established: rng.chance(0.7) as u32,
                f_prev: f_d * rng.range(-1.0, 0.0) as f32,
                e_prev: f_d * d * rng.range(0.0, 0.5) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
