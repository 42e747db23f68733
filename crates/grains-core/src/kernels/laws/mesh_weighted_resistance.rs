//! A friction block weighted by the valence of two mesh nodes. WGSL twin:
//! `shaders/laws/mesh_weighted_resistance.wgsl`.
//!
//! `Gamma = w12 [gamma_n n n^T + gamma_t (I - n n^T)]` (Mpacts N_T_MeshWeightedResistance,
//! `shared/reference/000`), for the pairs of nodes joined by the edges of a triangulated
//! membrane, with `w12 = (w1 + w2) / 2` and `w_i = sin(pi / N_i) / sin(2 pi / N_i)` for a node
//! of `N_i` triangles: `1/sqrt(3)` at the regular valence 6. grains gives one valence to both
//! nodes (`valence`), so `w12 = w`, computed in f64 when the pair table is built.
//!
//! As the reference warns, the pair's normal `n` is the direction from one node to the other,
//! which lies in the membrane: `normal` (gamma_n) is the in-plane friction along the edge, and
//! `tangential` (gamma_t) acts across the edge, out of the membrane's plane as well as in it.
//!
//! Scene keys (in the `resistance` slot): `normal` (N s/m, required), `tangential` (N s/m,
//! default 0), `valence` (an integer >= 3, default 6).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::constant_resistance::parse_coefficients;
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the mesh-weighted resistance.
    pub struct MeshWeightedResistanceParams {
        /// Friction along the edge (N s/m), before the weight.
        pub normal: f32,
        /// Friction across it (N s/m), before the weight.
        pub tangential: f32,
        /// The nodes' mean weight `w12`.
        pub weight: f32,
    }
}

/// Scene settings of `mesh_weighted_resistance`.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshWeightedResistanceSpec {
    pub normal: f64,
    pub tangential: f64,
    /// Triangles (and neighbours) of every node, `N >= 3`.
    pub valence: u64,
}

/// The weight `sin(pi / N) / sin(2 pi / N)` of a node of valence `N` (`1 / (2 cos(pi / N))`:
/// 1 at N = 3, `1/sqrt(3)` at 6, towards 1/2 as N grows).
pub fn node_weight(valence: u64) -> f64 {
    let a = std::f64::consts::PI / valence as f64;
    a.sin() / (2.0 * a).sin()
}

/// The mesh-weighted resistance: adds `w12` times its coefficients to the chain's block.
pub fn law_mesh_weighted_resistance(
    _geom: &ContactGeom,
    params: &MeshWeightedResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    force.gamma_n += params.weight * params.normal;
    force.gamma_t += params.weight * params.tangential;
}

/// The `mesh_weighted_resistance` law.
pub struct MeshWeightedResistance;

impl Law for MeshWeightedResistance {
    const KEYWORD: &'static str = "mesh_weighted_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["normal", "tangential", "valence"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = MeshWeightedResistanceParams;
    type History = ();
    type Spec = MeshWeightedResistanceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<MeshWeightedResistanceSpec, K::Error> {
        let (normal, tangential) = parse_coefficients(keys, "N s/m")?;
        // Below 3 triangles a node closes no fan (and sin(2 pi / N) is 0 at N = 2).
        let valence = keys.integer("valence", 3)?.unwrap_or(6);
        Ok(MeshWeightedResistanceSpec {
            normal,
            tangential,
            valence,
        })
    }

    fn spring(_: &MeshWeightedResistanceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &MeshWeightedResistanceSpec, _: &PairContext<'_>) -> MeshWeightedResistanceParams {
        // Both nodes take the same valence: w12 = (w + w) / 2 = w.
        let w = node_weight(spec.valence);
        MeshWeightedResistanceParams {
            normal: spec.normal as f32,
            tangential: spec.tangential as f32,
            weight: (0.5 * (w + w)) as f32,
        }
    }

    fn range(_: &MeshWeightedResistanceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &MeshWeightedResistanceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &MeshWeightedResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_mesh_weighted_resistance(g, p, h, f)
    }
}

impl LawTwin for MeshWeightedResistance {
    // A product and a sum each (one fused multiply-add on the GPU): 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<MeshWeightedResistanceParams, ()> {
        let geom = random_geom(rng, i);
        let mut force = ContactForce::default();
        if i > 0 {
            force.gamma_n = rng.log_uniform(1e-6, 1e2);
            force.gamma_t = rng.log_uniform(1e-6, 1e2);
        }
        // Edge cases: the smallest valence (weight 1), the regular one, no tangential friction.
        let valence = match i {
            0 => 3,
            1 => 6,
            _ => 3 + rng.next_u64() % 10,
        };
        ParityCase {
            geom,
            params: MeshWeightedResistanceParams {
                normal: rng.log_uniform(1e-6, 1e2),
                tangential: if i == 2 { 0.0 } else { rng.log_uniform(1e-6, 1e2) },
                weight: node_weight(valence) as f32,
            },
            history: (),
            force,
        }
    }
}
