//! Viscous normal dashpot tuned to a restitution coefficient. WGSL twin:
//! `shaders/laws/viscous.wgsl`.
//!
//! `F_d = c v_n` with `c = 2 zeta sqrt(m* k)`, `k` the tangent stiffness the normal law reported.
//! On a linear spring this is the classic constant dashpot; on Hertz, `k ~ delta^(1/2)` makes
//! `c ~ delta^(1/4)`, Tsuji et al.'s (1992) form, whose restitution does not depend on the
//! impact speed. The dashpot may not make the total normal force attractive (clipped at zero),
//! which changes the restitution a given `zeta` achieves (Schwager & Pöschel 2007, Granular
//! Matter 9:465); [`crate::restitution`] solves for the `zeta` that achieves the requested one.

use crate::gpu_types::{ContactForce, ContactGeom, PairHistory, ViscousParams};
use crate::kernels::v3;

/// Restitution-tuned dashpot.
pub fn law_viscous(
    geom: &ContactGeom,
    params: &ViscousParams,
    _history: &mut PairHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        return;
    }
    let n = v3(geom.normal);
    let vn = v3(geom.vrel).dot(n);
    let c = 2.0 * params.zeta * (geom.m_eff * force.stiffness).sqrt();
    // Never let the dashpot pull harder than the springs push.
    let f_damp = (c * vn).max(-force.normal_force);
    force.force = (v3(force.force) - n * f_damp).to_array();
    force.normal_force += f_damp;
    force.damping_dissipated += f_damp * vn * geom.dt;
}
