//! A friction block from each material's own coefficients. WGSL twin:
//! `shaders/laws/material_specific_constant_resistance.wgsl`.
//!
//! `Gamma = gamma_n n n^T + gamma_t (I - n n^T)` (Mpacts N_T_MaterialSpecificConstantResistance,
//! `shared/reference/000`), where each body's surface brings its own coefficients,
//! `gamma_normal1, gamma_normal2, gamma_tangential1, gamma_tangential2`: here `normal1` and
//! `tangential1` belong to the first material of the interaction's `between`, `normal2` and
//! `tangential2` to the second. The reference leaves the combination to the implementation;
//! grains takes the two surfaces' dashpots in series, `g = g1 g2 / (g1 + g2)` ([`series`]): the
//! relative velocity is shared between the two surface layers, which carry the same force, as
//! two dashpots in series do, so two equal layers give half of one, and a frictionless surface
//! (0) makes the contact frictionless. The combination is symmetric, so it does not matter
//! which body of a pair is which material (the pair table mixes both orders, and a material
//! meeting itself takes both of its values): the law mixes once, into the block's two
//! coefficients, and applies as `constant_resistance` does.
//!
//! Scene keys (in the `resistance` slot): `normal1`, `normal2` (N s/m, required),
//! `tangential1`, `tangential2` (N s/m, both or neither; default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the material-specific constant resistance: the combined block.
    pub struct MaterialSpecificConstantResistanceParams {
        /// Friction along the line of centres (N s/m), both surfaces in series.
        pub normal: f32,
        /// Friction across it (N s/m), both surfaces in series.
        pub tangential: f32,
    }
}

/// The coefficients of the two surfaces, in the order of the interaction's `between`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sides {
    pub normal: [f64; 2],
    pub tangential: [f64; 2],
}

impl Sides {
    /// The block's `(normal, tangential)` coefficients: each pair of sides in series.
    pub fn combined(&self) -> (f64, f64) {
        (
            series(self.normal[0], self.normal[1]),
            series(self.tangential[0], self.tangential[1]),
        )
    }
}

/// Two dashpots in series, `g1 g2 / (g1 + g2)`; 0 when both are 0.
pub fn series(g1: f64, g2: f64) -> f64 {
    if g1 + g2 > 0.0 {
        g1 * g2 / (g1 + g2)
    } else {
        0.0
    }
}

/// Read `normal1`, `normal2` (required) and `tangential1`, `tangential2` (both or neither) in
/// `unit`.
pub fn parse_sides<K: LawKeys>(keys: &K, unit: &str) -> Result<Sides, K::Error> {
    let what = format!("a number >= 0 ({unit})");
    let mut normal = [0.0; 2];
    for (k, n) in ["normal1", "normal2"].into_iter().zip(normal.iter_mut()) {
        let v = keys.non_negative(k, unit)?;
        *n = required(keys, k, &what, v)?;
    }
    let t1 = keys.non_negative("tangential1", unit)?;
    let t2 = keys.non_negative("tangential2", unit)?;
    let tangential = match (t1, t2) {
        (Some(a), Some(b)) => [a, b],
        (None, None) => [0.0; 2],
        // One side alone would put the contact in series with a frictionless surface: 0,
        // surely not what was meant.
        (Some(_), None) => return Err(one_side(keys, "tangential1", "tangential2")),
        (None, Some(_)) => return Err(one_side(keys, "tangential2", "tangential1")),
    };
    Ok(Sides { normal, tangential })
}

/// The error at `given` when its other side `absent` is not given.
fn one_side<K: LawKeys>(keys: &K, given: &str, absent: &str) -> K::Error {
    keys.error(
        given,
        format!("{given} is given without {absent}: give both sides' coefficients, or neither"),
    )
}

/// The material-specific constant resistance: adds the combined block to the chain's.
pub fn law_material_specific_constant_resistance(
    _geom: &ContactGeom,
    params: &MaterialSpecificConstantResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.gamma_n += params.normal;
    force.gamma_t += params.tangential;
}

/// The `material_specific_constant_resistance` law.
pub struct MaterialSpecificConstantResistance;

impl Law for MaterialSpecificConstantResistance {
    const KEYWORD: &'static str = "material_specific_constant_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["normal1", "normal2", "tangential1", "tangential2"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = MaterialSpecificConstantResistanceParams;
    type History = ();
    type Spec = Sides;

    fn parse<K: LawKeys>(keys: &K) -> Result<Sides, K::Error> {
        parse_sides(keys, "N s/m")
    }

    fn spring(_: &Sides) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &Sides, _: &PairContext<'_>) -> MaterialSpecificConstantResistanceParams {
        let (normal, tangential) = spec.combined();
        MaterialSpecificConstantResistanceParams {
            normal: normal as f32,
            tangential: tangential as f32,
        }
    }

    fn range(_: &Sides, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &Sides, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &MaterialSpecificConstantResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_material_specific_constant_resistance(g, p, h, f)
    }
}

impl LawTwin for MaterialSpecificConstantResistance {
    // One addition each: 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<MaterialSpecificConstantResistanceParams, ()> {
        let geom = random_geom(rng, i);
        let mut force = ContactForce::default();
        if i > 1 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
            force.gamma_t = rng.log_uniform(1e-6, 1e2);
        }
        // Case 0: both sides frictionless; case 1: no tangential friction.
        let (normal, tangential) = match i {
            0 => (0.0, 0.0),
            1 => (rng.log_uniform(1e-6, 1e2), 0.0),
            _ => (rng.log_uniform(1e-6, 1e2), rng.log_uniform(1e-6, 1e2)),
        };
        ParityCase {
            geom,
            params: MaterialSpecificConstantResistanceParams { normal, tangential },
            history: (),
            force,
        }
    }
}
