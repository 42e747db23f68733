//! Linear normal spring. WGSL twin: `shaders/laws/linear.wgsl`.
//!
//! `F_n = k_n delta` (Cundall & Strack 1979). With no stiffness given, `k_n` follows Woo's
//! Cundall model: two springs in series over the contact area `A = pi min(l1, l2)^2`,
//! `k_n = (l1/(E1 A) + l2/(E2 A))^-1`, with the contact lengths `l = R` (Woo documentation,
//! "Linear contact model"; shared/reference/001).

use crate::gpu_types::{ContactForce, ContactGeom, LinearParams, PairHistory};
use crate::kernels::v3;

/// Woo's series stiffness (N/m) from contact lengths `l1, l2` (m) and moduli `e1, e2` (Pa).
pub fn linear_stiffness_from_young(l1: f32, l2: f32, e1: f32, e2: f32) -> f32 {
    let lmin = l1.min(l2);
    let area = std::f32::consts::PI * lmin * lmin;
    1.0 / (l1 / (e1 * area) + l2 / (e2 * area))
}

/// Linear spring: adds `-k_n delta n` to body 1, `k_n` to the stiffness, `k_n delta^2 / 2` to
/// the stored energy.
pub fn law_linear(
    geom: &ContactGeom,
    params: &LinearParams,
    _history: &mut PairHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        return;
    }
    let k = if params.stiffness > 0.0 {
        params.stiffness
    } else {
        let ly = geom.len_young;
        linear_stiffness_from_young(ly[0], ly[1], ly[2], ly[3])
    };
    let fn_mag = k * geom.delta;
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * fn_mag).to_array();
    force.normal_force += fn_mag;
    force.stiffness += k;
    force.elastic += 0.5 * k * geom.delta * geom.delta;
}
