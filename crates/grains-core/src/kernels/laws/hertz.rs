//! Hertz normal contact. WGSL twin: `shaders/laws/hertz.wgsl`.
//!
//! `F_n = 4/3 E* sqrt(R*) delta^(3/2)` (Hertz 1882; Johnson 1985, §4.2), stored energy
//! `8/15 E* sqrt(R*) delta^(5/2)`, tangent stiffness `dF_n/d delta = 2 E* sqrt(R* delta)`.
//!
//! Scene keys: none.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of Hertz contact.
    pub struct HertzParams {
        /// Effective modulus `E* = 1/((1-nu1^2)/E1 + (1-nu2^2)/E2)` (Pa).
        pub e_eff: f32,
    }
}

/// Elastic Hertz spring.
pub fn law_hertz(geom: &ContactGeom, params: &HertzParams, force: &mut ContactForce) {
    if geom.delta <= 0.0 {
        return;
    }
    let kh = 4.0 / 3.0 * params.e_eff * geom.r_eff.sqrt();
    let sd = geom.delta.sqrt();
    let fn_mag = kh * geom.delta * sd;
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * fn_mag).to_array();
    force.normal_force += fn_mag;
    force.stiffness += 1.5 * kh * sd;
    force.elastic += 0.4 * fn_mag * geom.delta;
}

/// The `hertz` law.
pub struct Hertz;

impl Law for Hertz {
    const KEYWORD: &'static str = "hertz";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &[];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["elastic"];
    type Params = HertzParams;
    type History = ();
    type Spec = ();

    fn parse<K: LawKeys>(_: &K) -> Result<(), K::Error> {
        Ok(())
    }

    fn spring(_: &()) -> Option<SpringShape> {
        Some(SpringShape::Hertz)
    }

    fn mix(_: &(), pair: &PairContext<'_>) -> HertzParams {
        HertzParams {
            e_eff: effective_young(pair.a, pair.b) as f32,
        }
    }

    fn range(_: &(), _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &(), c: &CollisionContext<'_>) -> Option<f64> {
        Some(c.hertz_time())
    }

    fn apply(g: &ContactGeom, p: &HertzParams, _: &mut (), f: &mut ContactForce) {
        law_hertz(g, p, f)
    }
}

impl LawTwin for Hertz {
    // Closed form through a power and a square root: a few f32 ulps.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<HertzParams, ()> {
        let geom = random_geom(rng, i);
        let e_eff = if i == 1 {
            1e14
        } else {
            rng.log_uniform(1e6, 1e11)
        };
        ParityCase {
            geom,
            params: HertzParams { e_eff },
            history: (),
            force: ContactForce::default(),
        }
    }
}
