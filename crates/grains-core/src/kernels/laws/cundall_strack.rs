//! Cundall-Strack tangential spring with a Coulomb limit. WGSL twin:
//! `shaders/laws/cundall_strack.wgsl`.
//!
//! The spring displacement `xi` grows by the tangential relative velocity times `dt`; before
//! that it is rotated into the current tangent plane (its normal component removed and its
//! length kept), so a rolling contact does not leak force into the normal direction
//! (Cundall & Strack 1979; Woo's "Linear contact model", shared/reference/001; Luding 2008).
//! `k_t` is `stiffness_ratio * k_n` or Mindlin's `8 G* sqrt(R* delta)` (Mindlin 1949).
//! While sticking the limit is `mu_static F_n`; once it slips the limit is `mu_dynamic F_n`
//! until the trial force falls below it again.
//!
//! Energy: with a stiffness that follows the overlap (Mindlin, or a ratio of a Hertz tangent
//! stiffness) the spring is not conservative, so `|F|^2 / 2 k_t` is not the energy it holds.
//! The law books instead the work the applied force does on the spring over the step, the
//! trapezoid `-(F_prev + F) / 2 . dxi` (previous force from `history.extra[3]` = previous
//! `k_t`), keeps the sum in `history.extra[2]`, and on a slip books as friction dissipation
//! whatever exceeds the energy `|F_limit|^2 / 2 k_t` the spring keeps. In steady sliding that is
//! `F_limit |dxi|` per step, the friction work; the ledger closes to O(dt^2).

use crate::gpu_types::{ContactForce, ContactGeom, CundallStrackParams, PairHistory};
use crate::kernels::v3;

/// Tangential spring with static/dynamic Coulomb limit.
pub fn law_cundall_strack(
    geom: &ContactGeom,
    params: &CundallStrackParams,
    history: &mut PairHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.tangential = [0.0; 3];
        history.sliding = 0.0;
        history.extra[2] = 0.0;
        history.extra[3] = 0.0;
        return;
    }
    let n = v3(geom.normal);
    let vrel = v3(geom.vrel);
    let vt = vrel - n * vrel.dot(n);
    let mut xi = v3(history.tangential);
    let xi_len = xi.length();
    xi -= n * xi.dot(n);
    let xi_plane = xi.length();
    if xi_plane > 0.0 {
        xi *= xi_len / xi_plane;
    }
    let f_prev = -xi * history.extra[3];
    let dxi = vt * geom.dt;
    xi += dxi;
    let kt = if params.mindlin != 0 {
        8.0 * params.g_eff * (geom.r_eff * geom.delta).sqrt()
    } else {
        params.stiffness_ratio * force.stiffness
    };
    let mut ft = -xi * kt;
    let ft_trial = ft.length();
    let mu = if history.sliding > 0.0 {
        params.mu_dynamic
    } else {
        params.mu_static
    };
    let stored;
    if ft_trial > mu * force.normal_force {
        let limit = params.mu_dynamic * force.normal_force;
        ft *= limit / ft_trial;
        history.sliding = 1.0;
        let kept = if kt > 0.0 {
            xi = -ft / kt;
            0.5 * limit * limit / kt
        } else {
            xi = glam::Vec3::ZERO;
            0.0
        };
        let worked = history.extra[2] - 0.5 * (f_prev + ft).dot(dxi);
        force.friction_dissipated += worked - kept;
        stored = kept;
    } else {
        history.sliding = 0.0;
        stored = history.extra[2] - 0.5 * (f_prev + ft).dot(dxi);
    }
    history.tangential = xi.to_array();
    history.extra[2] = stored;
    history.extra[3] = kt;
    force.force = (v3(force.force) + ft).to_array();
    force.elastic += stored;
}
