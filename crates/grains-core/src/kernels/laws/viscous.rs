//! Viscous normal dashpot tuned to a restitution coefficient. WGSL twin:
//! `shaders/laws/viscous.wgsl`.
//!
//! `F_d = c v_n` with `c = 2 zeta sqrt(m* k)`, `k` the tangent stiffness the normal law reported.
//! On a linear spring this is the classic constant dashpot; on Hertz, `k ~ delta^(1/2)` makes
//! `c ~ delta^(1/4)`, Tsuji et al.'s (1992) form, whose restitution does not depend on the
//! impact speed. The dashpot may not make the total normal force attractive (clipped at zero),
//! which changes the restitution a given `zeta` achieves (Schwager & Pöschel 2007, Granular
//! Matter 9:465); [`crate::restitution`] solves for the `zeta` that achieves the requested one.
//!
//! The dissipated energy is the trapezoid of the dashpot force over the step's displacement,
//! `(F_prev + F) / 2 * v_n dt` (the previous force is kept in `history.extra[1]`): velocity
//! Verlet applies each force half before and half after its instant, so booking `F v_n dt`
//! alone would lag by half a step and the ledger would drift by O(dt).

use crate::gpu_types::{ContactForce, ContactGeom, PairHistory, ViscousParams};
use crate::kernels::v3;

/// Restitution-tuned dashpot.
pub fn law_viscous(
    geom: &ContactGeom,
    params: &ViscousParams,
    history: &mut PairHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.extra[1] = 0.0;
        return;
    }
    let n = v3(geom.normal);
    let vn = v3(geom.vrel).dot(n);
    let c = 2.0 * params.zeta * (geom.m_eff * force.stiffness).sqrt();
    // Never let the dashpot pull harder than the springs push.
    let f_damp = (c * vn).max(-force.normal_force);
    force.force = (v3(force.force) - n * f_damp).to_array();
    force.normal_force += f_damp;
    force.damping_dissipated += 0.5 * (history.extra[1] + f_damp) * vn * geom.dt;
    history.extra[1] = f_damp;
}
