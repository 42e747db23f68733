//! DMT adhesive contact (Derjaguin, Muller & Toporov 1975). WGSL twin: `shaders/laws/dmt.wgsl`.
//!
//! Hertz plus a constant attraction while the surfaces touch:
//! `F = 4/3 E* sqrt(R*) delta^(3/2) - 2 pi W R*` for `delta > 0`, nothing apart. The pull-off
//! force is `-2 pi W R*`, at zero overlap; the model suits small, stiff particles with
//! short-range adhesion (Maugis' `lambda -> 0`). Stored energy
//! `8/15 E* sqrt(R*) delta^(5/2) - 2 pi W R* delta`, which vanishes at contact. Coulomb limits
//! see the Hertz part, `F + 2 pi W R*`, never negative; damping laws see the Hertz stiffness
//! `2 E* sqrt(R* delta)`.
//!
//! Scene keys: `work_of_adhesion` (J/m^2, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of DMT contact.
    pub struct DmtParams {
        /// Effective modulus `E*` (Pa).
        pub e_eff: f32,
        /// Work of adhesion `W` (J/m^2).
        pub work: f32,
    }
}

/// Scene settings of `dmt`.
#[derive(Clone, Debug, PartialEq)]
pub struct DmtSpec {
    /// Work of adhesion (J/m^2).
    pub work_of_adhesion: f64,
}

/// Hertz spring with DMT adhesion.
pub fn law_dmt(geom: &ContactGeom, params: &DmtParams, force: &mut ContactForce) {
    if geom.delta <= 0.0 {
        return;
    }
    let kh = 4.0 / 3.0 * params.e_eff * geom.r_eff.sqrt();
    let sd = geom.delta.sqrt();
    let f_hertz = kh * geom.delta * sd;
    let f_adh = 2.0 * std::f32::consts::PI * params.work * geom.r_eff;
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * (f_hertz - f_adh)).to_array();
    force.normal_force += f_hertz;
    force.stiffness += 1.5 * kh * sd;
    force.elastic += 0.4 * f_hertz * geom.delta - f_adh * geom.delta;
}

/// The `dmt` law.
pub struct Dmt;

impl Law for Dmt {
    const KEYWORD: &'static str = "dmt";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["work_of_adhesion"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["elastic"];
    type Params = DmtParams;
    type History = ();
    type Spec = DmtSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DmtSpec, K::Error> {
        let w = keys.positive("work_of_adhesion", "J/m^2")?;
        Ok(DmtSpec {
            work_of_adhesion: required(keys, "work_of_adhesion", "a positive number (J/m^2)", w)?,
        })
    }

    fn spring(_: &DmtSpec) -> Option<SpringShape> {
        Some(SpringShape::Hertz)
    }

    fn mix(spec: &DmtSpec, pair: &PairContext<'_>) -> DmtParams {
        DmtParams {
            e_eff: effective_young(pair.a, pair.b) as f32,
            work: spec.work_of_adhesion as f32,
        }
    }

    fn range(_: &DmtSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &DmtSpec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(c.hertz_time())
    }

    fn apply(g: &ContactGeom, p: &DmtParams, _: &mut (), f: &mut ContactForce) {
        law_dmt(g, p, f)
    }
}

impl LawTwin for Dmt {
    // Closed form: a few f32 ulps, relative to the larger of the two terms.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DmtParams, ()> {
        let geom = random_geom(rng, i);
        ParityCase {
            geom,
            params: DmtParams {
                e_eff: rng.log_uniform(1e6, 1e11),
                work: rng.log_uniform(1e-3, 1e1),
            },
            history: (),
            force: ContactForce::default(),
        }
    }
}
