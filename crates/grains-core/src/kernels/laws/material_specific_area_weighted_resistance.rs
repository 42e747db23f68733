//! A friction block from each material's own coefficients per unit contact area. WGSL twin:
//! `shaders/laws/material_specific_area_weighted_resistance.wgsl`.
//!
//! `Gamma = A_c [gamma_n n n^T + gamma_t (I - n n^T)]` (Mpacts
//! N_T_MaterialSpecificAreaWeightedResistance, `shared/reference/000`): the coefficients of the
//! two surfaces (Pa s/m) combined in series as `material_specific_constant_resistance` does
//! ([`series`](crate::kernels::laws::material_specific_constant_resistance::series)), weighted
//! by the contact area `A_c` as `area_weighted_resistance` does
//! ([`contact_area`](crate::kernels::laws::area_weighted_resistance::contact_area)).
//!
//! Scene keys (in the `resistance` slot): `normal1`, `normal2` (Pa s/m, required),
//! `tangential1`, `tangential2` (Pa s/m, both or neither; default 0); `1` is the first material
//! of the interaction's `between`, `2` the second.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::area_weighted_resistance::{area_parity_inputs, contact_area};
use crate::kernels::laws::material_specific_constant_resistance::{parse_sides, Sides};
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::SplitMix;
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the material-specific area-weighted resistance.
    pub struct MaterialSpecificAreaWeightedResistanceParams {
        /// Friction along the line of centres per unit area (Pa s/m), both surfaces in series.
        pub normal: f32,
        /// Friction across it per unit area (Pa s/m), both surfaces in series.
        pub tangential: f32,
    }
}

/// The material-specific area-weighted resistance: adds `A_c` times the combined coefficients
/// to the chain's block.
pub fn law_material_specific_area_weighted_resistance(
    geom: &ContactGeom,
    params: &MaterialSpecificAreaWeightedResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    let area = contact_area(geom, force);
    force.gamma_n += area * params.normal;
    force.gamma_t += area * params.tangential;
}

/// The `material_specific_area_weighted_resistance` law.
pub struct MaterialSpecificAreaWeightedResistance;

impl Law for MaterialSpecificAreaWeightedResistance {
    const KEYWORD: &'static str = "material_specific_area_weighted_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["normal1", "normal2", "tangential1", "tangential2"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = MaterialSpecificAreaWeightedResistanceParams;
    type History = ();
    type Spec = Sides;

    fn parse<K: LawKeys>(keys: &K) -> Result<Sides, K::Error> {
        parse_sides(keys, "Pa s/m")
    }

    fn spring(_: &Sides) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &Sides, _: &PairContext<'_>) -> MaterialSpecificAreaWeightedResistanceParams {
        let (normal, tangential) = spec.combined();
        MaterialSpecificAreaWeightedResistanceParams {
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
        p: &MaterialSpecificAreaWeightedResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_material_specific_area_weighted_resistance(g, p, h, f)
    }
}

impl LawTwin for MaterialSpecificAreaWeightedResistance {
    // As `area_weighted_resistance`, whose area it computes: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<MaterialSpecificAreaWeightedResistanceParams, ()> {
        let (geom, force) = area_parity_inputs(rng, i);
        ParityCase {
            geom,
            params: MaterialSpecificAreaWeightedResistanceParams {
                normal: rng.log_uniform(1e-3, 1e7),
                tangential: if i == 1 { 0.0 } else { rng.log_uniform(1e-3, 1e7) },
            },
            history: (),
            force,
        }
    }
}
