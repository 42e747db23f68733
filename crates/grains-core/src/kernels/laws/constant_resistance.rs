//! A constant friction matrix between two bodies. WGSL twin:
//! `shaders/laws/constant_resistance.wgsl`.
//!
//! `Gamma = gamma_n n n^T + gamma_t (I - n n^T)` (Mpacts N_T_ConstantResistance,
//! `shared/reference/000`): the friction block of the pair in the implicit dynamics modes, which
//! the solve takes on the relative velocity of the two centres, `F_1 = Gamma (v_2 - v_1)`.
//! It adds no force of its own: the block enters the matrix the solve inverts
//! (`contact_matrix`), and the power it dissipates, `(v_2 - v_1)^T Gamma (v_2 - v_1)`, is booked
//! by the solve. It acts while the chain evaluates the pair: for contacts while they touch, for
//! bonds at any distance.
//!
//! Scene keys (in the `resistance` slot): `normal` (N s/m, required), `tangential` (N s/m,
//! default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the constant resistance.
    pub struct ConstantResistanceParams {
        /// Friction along the line of centres (N s/m).
        pub normal: f32,
        /// Friction across it (N s/m).
        pub tangential: f32,
    }
}

/// Scene settings of `constant_resistance`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantResistanceSpec {
    pub normal: f64,
    pub tangential: f64,
}

/// Parse the `normal` and `tangential` friction coefficients of a resistance law.
pub fn parse_coefficients<K: LawKeys>(keys: &K, unit: &str) -> Result<(f64, f64), K::Error> {
    let n = keys.non_negative("normal", unit)?;
    let n = required(keys, "normal", &format!("a number >= 0 ({unit})"), n)?;
    let t = keys.non_negative("tangential", unit)?.unwrap_or(0.0);
    Ok((n, t))
}

/// The constant resistance: adds its block to the chain's.
pub fn law_constant_resistance(
    _geom: &ContactGeom,
    params: &ConstantResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.gamma_n += params.normal;
    force.gamma_t += params.tangential;
}

/// The `constant_resistance` law.
pub struct ConstantResistance;

impl Law for ConstantResistance {
    const KEYWORD: &'static str = "constant_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["normal", "tangential"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = ConstantResistanceParams;
    type History = ();
    type Spec = ConstantResistanceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ConstantResistanceSpec, K::Error> {
        let (normal, tangential) = parse_coefficients(keys, "N s/m")?;
        Ok(ConstantResistanceSpec { normal, tangential })
    }

    fn spring(_: &ConstantResistanceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &ConstantResistanceSpec, _: &PairContext<'_>) -> ConstantResistanceParams {
        ConstantResistanceParams {
            normal: spec.normal as f32,
            tangential: spec.tangential as f32,
        }
    }

    fn range(_: &ConstantResistanceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &ConstantResistanceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(g: &ContactGeom, p: &ConstantResistanceParams, h: &mut (), f: &mut ContactForce) {
        law_constant_resistance(g, p, h, f)
    }
}

impl LawTwin for ConstantResistance {
    // One addition each: 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<ConstantResistanceParams, ()> {
        let geom = random_geom(rng, i);
        let mut force = ContactForce::default();
        if i > 0 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
            force.gamma_t = rng.log_uniform(1e-6, 1e2);
        }
        ParityCase {
            geom,
            params: ConstantResistanceParams {
                normal: rng.log_uniform(1e-6, 1e2),
                tangential: if i == 1 { 0.0 } else { rng.log_uniform(1e-6, 1e2) },
            },
            history: (),
            force,
        }
    }
}
