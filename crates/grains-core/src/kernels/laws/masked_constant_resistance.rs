//! A friction block picked by the two bodies' masks. WGSL twin:
//! `shaders/laws/masked_constant_resistance.wgsl`.
//!
//! `Gamma = gamma_n[i][j] n n^T + gamma_t[i][j] (I - n n^T)` (Mpacts
//! N_T_MaskedConstantResistance, `shared/reference/000`), where `i` and `j` are the masks of the
//! two bodies and `gamma_n`, `gamma_t` symmetric matrices indexed by mask, so one interaction
//! can tell several kinds of body apart. Mpacts keeps a mask per particle; grains gives one per
//! material (`masks = { cell = 0, matrix = 1 }`), a material not named having mask 0. The
//! matrices are symmetric, so the entry does not depend on which body is which: the law picks
//! it once per material pair, when the pair table is built, and applies as
//! `constant_resistance` does.
//!
//! Scene keys (in the `resistance` slot): `masks` (a table of integers >= 0 by material name,
//! required), `normal` (a symmetric matrix of N s/m as an array of rows, required),
//! `tangential` (the same size, default zeros); every mask must index the matrices.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the masked constant resistance: the entries of its two masks.
    pub struct MaskedConstantResistanceParams {
        /// Friction along the line of centres (N s/m).
        pub normal: f32,
        /// Friction across it (N s/m).
        pub tangential: f32,
    }
}

/// Scene settings of `masked_constant_resistance`.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedConstantResistanceSpec {
    /// The masks of the materials named, in the order written.
    pub masks: Vec<(String, usize)>,
    /// `gamma_n` by mask (N s/m), square and symmetric.
    pub normal: Vec<Vec<f64>>,
    /// `gamma_t` by mask (N s/m), the same size.
    pub tangential: Vec<Vec<f64>>,
}

impl MaskedConstantResistanceSpec {
    /// The mask of material `name`: 0 when the scene names none for it.
    pub fn mask(&self, name: &str) -> usize {
        self.masks
            .iter()
            .find(|(m, _)| m == name)
            .map_or(0, |&(_, k)| k)
    }
}

/// The masked constant resistance: adds its two masks' block to the chain's.
pub fn law_masked_constant_resistance(
    _geom: &ContactGeom,
    params: &MaskedConstantResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.gamma_n += params.normal;
    force.gamma_t += params.tangential;
}

/// The `masked_constant_resistance` law.
pub struct MaskedConstantResistance;

impl Law for MaskedConstantResistance {
    const KEYWORD: &'static str = "masked_constant_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["masks", "normal", "tangential"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = MaskedConstantResistanceParams;
    type History = ();
    type Spec = MaskedConstantResistanceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<MaskedConstantResistanceSpec, K::Error> {
        let masks = keys
            .material_integers("masks", 0)?
            .ok_or_else(|| keys.missing("masks", "a table { material = mask, ... }"))?;
        let unit = "N s/m";
        let matrix = format!("a symmetric matrix [[a, b], [b, c]] ({unit})");
        let normal = keys
            .symmetric_matrix("normal", unit)?
            .ok_or_else(|| keys.missing("normal", &matrix))?;
        let n = normal.len();
        let tangential = match keys.symmetric_matrix("tangential", unit)? {
            Some(t) if t.len() != n => {
                return Err(keys.error(
                    "tangential",
                    format!(
                        "expected a {n}x{n} matrix, the size of `normal`, found {0}x{0}",
                        t.len()
                    ),
                ))
            }
            Some(t) => t,
            None => vec![vec![0.0; n]; n],
        };
        let mut out = Vec::with_capacity(masks.len());
        for (name, k) in masks {
            // Beyond the matrices no entry exists for it; `usize` holds any index below them.
            let k = usize::try_from(k).ok().filter(|&k| k < n).ok_or_else(|| {
                keys.error(
                    "masks",
                    format!(
                        "the mask of \"{name}\" is {k}, but the {n}x{n} matrices take masks 0 to {}",
                        n - 1
                    ),
                )
            })?;
            out.push((name, k));
        }
        Ok(MaskedConstantResistanceSpec {
            masks: out,
            normal,
            tangential,
        })
    }

    fn spring(_: &MaskedConstantResistanceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(
        spec: &MaskedConstantResistanceSpec,
        pair: &PairContext<'_>,
    ) -> MaskedConstantResistanceParams {
        let (i, j) = (spec.mask(&pair.a.name), spec.mask(&pair.b.name));
        // Parsing checked every mask against the size; an unnamed material's 0 is in range
        // of a non-empty matrix, so the lookups cannot fail. Zero if they somehow did.
        let at = |m: &Vec<Vec<f64>>| m.get(i).and_then(|r| r.get(j)).copied().unwrap_or(0.0);
        MaskedConstantResistanceParams {
            normal: at(&spec.normal) as f32,
            tangential: at(&spec.tangential) as f32,
        }
    }

    fn range(_: &MaskedConstantResistanceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &MaskedConstantResistanceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &MaskedConstantResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_masked_constant_resistance(g, p, h, f)
    }
}

impl LawTwin for MaskedConstantResistance {
    // One addition each: 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<MaskedConstantResistanceParams, ()> {
        let geom = random_geom(rng, i);
        let mut force = ContactForce::default();
        if i > 1 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
            force.gamma_t = rng.log_uniform(1e-6, 1e2);
        }
        // Case 0: a zero entry of both matrices; case 1: no tangential friction.
        let (normal, tangential) = match i {
            0 => (0.0, 0.0),
            1 => (rng.log_uniform(1e-6, 1e2), 0.0),
            _ => (rng.log_uniform(1e-6, 1e2), rng.log_uniform(1e-6, 1e2)),
        };
        ParityCase {
            geom,
            params: MaskedConstantResistanceParams { normal, tangential },
            history: (),
            force,
        }
    }
}
