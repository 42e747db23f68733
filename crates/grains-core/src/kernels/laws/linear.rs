//! Linear normal spring. WGSL twin: `shaders/laws/linear.wgsl`.
//!
//! `F_n = k_n delta` (Cundall & Strack 1979). With no stiffness given, `k_n` follows Woo's
//! Cundall model: two springs in series over the contact area `A = pi min(l1, l2)^2`,
//! `k_n = (l1/(E1 A) + l2/(E2 A))^-1`, with the contact lengths `l = R` (Woo documentation,
//! "Linear contact model"; shared/reference/001). The moduli `E1, E2` are the two materials',
//! mixed into the pair's parameters; the lengths come from the geometry.
//!
//! Scene keys: `stiffness` (N/m, optional).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the linear spring.
    pub struct LinearParams {
        /// Normal stiffness (N/m), or 0 to derive it from the moduli and contact lengths.
        pub stiffness: f32,
        /// Young's modulus of body 1's material (Pa).
        pub young1: f32,
        /// Young's modulus of body 2's material (Pa).
        pub young2: f32,
    }
}

/// Scene settings of `linear`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearSpec {
    /// Given stiffness (N/m); `None` derives it from Young's moduli (Woo).
    pub stiffness: Option<f64>,
}

/// Woo's series stiffness (N/m) from contact lengths `l1, l2` (m) and moduli `e1, e2` (Pa).
pub fn linear_stiffness_from_young(l1: f32, l2: f32, e1: f32, e2: f32) -> f32 {
    let lmin = l1.min(l2);
    let area = std::f32::consts::PI * lmin * lmin;
    1.0 / (l1 / (e1 * area) + l2 / (e2 * area))
}

/// Linear spring: adds `-k_n delta n` to body 1, `k_n` to the stiffness, `k_n delta^2 / 2` to
/// the stored energy.
pub fn law_linear(geom: &ContactGeom, params: &LinearParams, force: &mut ContactForce) {
    if geom.delta <= 0.0 {
        return;
    }
    let k = if params.stiffness > 0.0 {
        params.stiffness
    } else {
        let l = geom.lengths;
        linear_stiffness_from_young(l[0], l[1], params.young1, params.young2)
    };
    let fn_mag = k * geom.delta;
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * fn_mag).to_array();
    force.normal_force += fn_mag;
    force.stiffness += k;
    force.elastic += 0.5 * k * geom.delta * geom.delta;
}

/// The `linear` law.
pub struct Linear;

impl Law for Linear {
    const KEYWORD: &'static str = "linear";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["stiffness"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["elastic"];
    type Params = LinearParams;
    type History = ();
    type Spec = LinearSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LinearSpec, K::Error> {
        Ok(LinearSpec {
            stiffness: keys.positive("stiffness", "N/m")?,
        })
    }

    fn spring(_: &LinearSpec) -> Option<SpringShape> {
        Some(SpringShape::Linear)
    }

    fn mix(spec: &LinearSpec, pair: &PairContext<'_>) -> LinearParams {
        LinearParams {
            stiffness: spec.stiffness.unwrap_or(0.0) as f32,
            young1: pair.a.young as f32,
            young2: pair.b.young as f32,
        }
    }

    fn range(_: &LinearSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    /// `pi sqrt(m*/k)`, with Woo's `k = pi E R / 2` for two equal spheres when no stiffness is
    /// given.
    fn collision_time(spec: &LinearSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let k = spec.stiffness.unwrap_or_else(|| {
            let area = std::f64::consts::PI * c.radius * c.radius;
            1.0 / (2.0 * c.radius / (c.material.young * area))
        });
        Some(std::f64::consts::PI * (c.m_eff / k).sqrt())
    }

    fn apply(g: &ContactGeom, p: &LinearParams, _: &mut (), f: &mut ContactForce) {
        law_linear(g, p, f)
    }
}

impl LawTwin for Linear {
    // Closed form: a few f32 ulps.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<LinearParams, ()> {
        let geom = random_geom(rng, i);
        let stiffness = if rng.chance(0.5) {
            0.0
        } else if i == 1 {
            1e12
        } else {
            rng.log_uniform(1e2, 1e7)
        };
        ParityCase {
            geom,
            params: LinearParams {
                stiffness,
                young1: rng.log_uniform(1e6, 1e11),
                young2: rng.log_uniform(1e6, 1e11),
            },
            history: (),
            force: ContactForce::default(),
        }
    }
}
