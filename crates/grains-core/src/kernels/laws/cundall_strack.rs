//! Cundall-Strack tangential spring with a Coulomb limit. WGSL twin:
//! `shaders/laws/cundall_strack.wgsl`.
//!
//! The spring displacement `xi` grows by the tangential relative velocity times `dt`; before
//! that it is rotated into the current tangent plane (its normal component removed and its
//! length kept), so a rolling contact does not leak force into the normal direction
//! (Cundall & Strack 1979; Woo's "Linear contact model", shared/reference/001; Luding 2008).
//! `k_t` is `stiffness_ratio * k_n` or Mindlin's `8 G* sqrt(R* delta)` (Mindlin 1949).
//! While sticking the limit is `mu_static F_n`; once it slips the limit is `mu_dynamic F_n`
//! until the trial force falls below it again. The spring energy lost in a slip is booked as
//! friction dissipation.

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
    xi += vt * geom.dt;
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
    if ft_trial > mu * force.normal_force {
        let limit = params.mu_dynamic * force.normal_force;
        ft *= limit / ft_trial;
        xi = if kt > 0.0 { -ft / kt } else { glam::Vec3::ZERO };
        history.sliding = 1.0;
        if kt > 0.0 {
            force.friction_dissipated += 0.5 * (ft_trial * ft_trial - limit * limit) / kt;
        }
    } else {
        history.sliding = 0.0;
    }
    history.tangential = xi.to_array();
    force.force = (v3(force.force) + ft).to_array();
    if kt > 0.0 {
        force.elastic += 0.5 * ft.length_squared() / kt;
    }
}
