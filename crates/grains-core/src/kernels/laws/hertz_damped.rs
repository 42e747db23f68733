//! Kuwabara-Kono damped Hertz contact. WGSL twin: `shaders/laws/hertz_damped.wgsl`.
//!
//! `F_n = 4/3 E* sqrt(R*) (delta^(3/2) + A d(delta)/dt sqrt(delta))` with the damping constant
//! `A` in seconds (Kuwabara & Kono 1987; Brilliantov et al. 1996; Mpacts N_DampedHertz,
//! shared/reference/000; Pöschel & Schwager, *Computational Granular Dynamics*, p. 19).
//! The total is clipped at zero so the contact never pulls; the energy taken by the dashpot is
//! booked as damping dissipation, as the trapezoid of the dashpot force over the step (the
//! previous dashpot force is kept in `history.extra[0]`; see `viscous.rs` for why).

use crate::gpu_types::{ContactForce, ContactGeom, HertzDampedParams, PairHistory};
use crate::kernels::v3;

/// Damped Hertz spring-dashpot.
pub fn law_hertz_damped(
    geom: &ContactGeom,
    params: &HertzDampedParams,
    history: &mut PairHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.extra[0] = 0.0;
        return;
    }
    let n = v3(geom.normal);
    // Approach rate d(delta)/dt: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(n);
    let kh = 4.0 / 3.0 * params.e_eff * geom.r_eff.sqrt();
    let sd = geom.delta.sqrt();
    let f_el = kh * geom.delta * sd;
    let f_damp = kh * params.damping_time * vn * sd;
    let total = (f_el + f_damp).max(0.0);
    let f_damp_applied = total - f_el;
    force.force = (v3(force.force) - n * total).to_array();
    force.normal_force += total;
    force.stiffness += 1.5 * kh * sd;
    force.elastic += 0.4 * f_el * geom.delta;
    force.damping_dissipated += 0.5 * (history.extra[0] + f_damp_applied) * vn * geom.dt;
    history.extra[0] = f_damp_applied;
}
