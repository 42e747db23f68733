//! A constant normal force. WGSL twin: `shaders/laws/constant_force.wgsl`.
//!
//! `F = f n` (positive pushes apart); the assembly weights it by the contact fraction, so that
//! a body made of several primitives gets `f` once (Mpacts N_ConstantForce, `shared/reference/000`):
//! while the surfaces touch (`when = "touching"`, the default), or for every pair the chain
//! evaluates (`when = "always"`: fixed pairs at any distance). It acts beside a normal law, in
//! the `extra` slot.
//!
//! Energy: a constant force stores `F delta` while it acts; the step's work beyond the change
//! of that energy (the jump where it switches on or off) is booked as damping dissipation.
//!
//! Scene keys: `force` (N, required, signed), `when` (`"touching"` or `"always"`).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::established::{book_step, EstablishedHistory};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the constant force.
    pub struct ConstantForceParams {
        /// The force (N), positive repulsive.
        pub force: f32,
        /// 1: for every evaluated pair; 0: while the surfaces touch.
        pub always: u32,
    }
}

/// Scene settings of `constant_force`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantForceSpec {
    pub force: f64,
    pub always: bool,
}

/// The constant force.
pub fn law_constant_force(
    geom: &ContactGeom,
    params: &ConstantForceParams,
    history: &mut EstablishedHistory,
    force: &mut ContactForce,
) {
    if params.always == 0 && geom.delta < 0.0 {
        book_step(geom, history, 0.0, 0.0, force);
        return;
    }
    let f = params.force;
    book_step(geom, history, f, f * geom.delta, force);
}

/// The `constant_force` law.
pub struct ConstantForce;

impl Law for ConstantForce {
    const KEYWORD: &'static str = "constant_force";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = &["force", "when"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact, Word::Force, Word::Energy];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = ConstantForceParams;
    type History = EstablishedHistory;
    type Spec = ConstantForceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ConstantForceSpec, K::Error> {
        let f = keys.number("force", "a number (N), positive pushing apart")?;
        let what = "\"touching\" or \"always\"";
        let always = match keys.string("when", what)?.as_deref() {
            None | Some("touching") => false,
            Some("always") => true,
            Some(_) => {
                let found = keys.found("when");
                return Err(keys.error("when", format!("expected {what}, found {found}")));
            }
        };
        Ok(ConstantForceSpec {
            force: required(keys, "force", "a number (N)", f)?,
            always,
        })
    }

    fn spring(_: &ConstantForceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &ConstantForceSpec, _: &PairContext<'_>) -> ConstantForceParams {
        ConstantForceParams {
            force: spec.force as f32,
            always: spec.always as u32,
        }
    }

    fn range(_: &ConstantForceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &ConstantForceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &ConstantForceParams,
        h: &mut EstablishedHistory,
        f: &mut ContactForce,
    ) {
        law_constant_force(g, p, h, f)
    }
}

impl LawTwin for ConstantForce {
    // Products and a difference: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<ConstantForceParams, EstablishedHistory> {
        let mut geom = random_geom(rng, i);
        geom.fraction = if rng.chance(0.5) {
            1.0
        } else {
            rng.range(0.0, 1.0) as f32
        };
        let f = rng.range(-1.0, 1.0) as f32;
        ParityCase {
            geom,
            params: ConstantForceParams {
                force: f,
                always: rng.chance(0.5) as u32,
            },
            history: EstablishedHistory {
                established: 0,
                f_prev: f,
                e_prev: f * geom.delta,
            },
            force: ContactForce::default(),
        }
    }
}
