//! Gonthier / Carvalho-Martins restitution model. WGSL twin: `shaders/laws/gonthier.wgsl`.
//!
//! The Hunt-Crossley force (`hunt_crossley.rs`, whose kernel it shares) with a restitution
//! factor valid over the whole range of `e`, switching at `e = 1/3` where the two agree
//! (Exudyn's sphere-sphere contact, `shared/reference/002`, impact model 2):
//!
//! - `e > 1/3`: Carvalho & Martins (2019), `chi v0 / k = 3/2 (1 - e) (11 - e) / (1 + 9 e)`;
//! - `e <= 1/3`: Gonthier et al. (2004), `chi v0 / k = (1 - e^2) / e`.
//!
//! Scene keys: those of `hunt_crossley`.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::hunt_crossley::{
    law_impact, Impact, ImpactHistory, ImpactModel, ImpactParams,
};

/// The restitution factor `chi v0 / k` of the mixed model for restitution `e`.
pub fn gonthier_factor(e: f64) -> f64 {
    if e > 1.0 / 3.0 {
        1.5 * (1.0 - e) * (11.0 - e) / (1.0 + 9.0 * e)
    } else {
        (1.0 - e * e) / e
    }
}

/// Gonthier / Carvalho-Martins contact.
pub fn law_gonthier(
    geom: &ContactGeom,
    params: &ImpactParams,
    history: &mut ImpactHistory,
    force: &mut ContactForce,
) {
    law_impact(geom, params, history, force)
}

/// The mixed model.
pub struct GonthierModel;

impl ImpactModel for GonthierModel {
    const KEYWORD: &'static str = "gonthier";
    fn factor(e: f64) -> f64 {
        gonthier_factor(e)
    }
    fn law(g: &ContactGeom, p: &ImpactParams, h: &mut ImpactHistory, f: &mut ContactForce) {
        law_gonthier(g, p, h, f)
    }
}

/// The `gonthier` law: the impact model's [`crate::law::Law`] with this module's factor.
pub type Gonthier = Impact<GonthierModel>;
