//! Hertz normal contact. WGSL twin: `shaders/laws/hertz.wgsl`.
//!
//! `F_n = 4/3 E* sqrt(R*) delta^(3/2)` (Hertz 1882; Johnson, *Contact Mechanics*, 1985, §4.2),
//! stored energy `8/15 E* sqrt(R*) delta^(5/2)`, tangent stiffness `2 E* sqrt(R* delta)`.

use crate::gpu_types::{ContactForce, ContactGeom, HertzParams, PairHistory};
use crate::kernels::v3;

/// Hertz spring.
pub fn law_hertz(
    geom: &ContactGeom,
    params: &HertzParams,
    _history: &mut PairHistory,
    force: &mut ContactForce,
) {
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
