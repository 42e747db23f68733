// CPU twin: crates/grains-core/src/kernels/laws/cundall_strack.rs
//
// Cundall-Strack tangential spring with a static/dynamic Coulomb limit (Cundall & Strack 1979;
// Luding 2008). The history vector is first rotated into the current tangent plane, keeping its
// length, so a rolling contact does not leak force into the normal direction. `k_t` is
// `stiffness_ratio * k_n` or Mindlin's `8 G* sqrt(R* delta)` (Mindlin 1949).
//!include lib/types.wgsl

fn law_cundall_strack(
    geom: ContactGeom,
    params: CundallStrackParams,
    history: ptr<function, PairHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).tangential = vec3<f32>(0.0, 0.0, 0.0);
        (*history).sliding = 0.0;
        return;
    }
    let n = geom.normal;
    let vrel = geom.vrel;
    let vt = vrel - n * dot(vrel, n);
    var xi = (*history).tangential;
    let xi_len = sqrt(dot(xi, xi));
    xi = xi - n * dot(xi, n);
    let xi_plane = sqrt(dot(xi, xi));
    if (xi_plane > 0.0) {
        xi = xi * (xi_len / xi_plane);
    }
    xi = xi + vt * geom.dt;
    var kt: f32;
    if (params.mindlin != 0u) {
        kt = 8.0 * params.g_eff * sqrt(geom.r_eff * geom.delta);
    } else {
        kt = params.stiffness_ratio * (*force).stiffness;
    }
    var ft = -xi * kt;
    let ft_trial = sqrt(dot(ft, ft));
    var mu = params.mu_static;
    if ((*history).sliding > 0.0) {
        mu = params.mu_dynamic;
    }
    if (ft_trial > mu * (*force).normal_force) {
        let limit = params.mu_dynamic * (*force).normal_force;
        ft = ft * (limit / ft_trial);
        if (kt > 0.0) {
            xi = -ft / kt;
        } else {
            xi = vec3<f32>(0.0, 0.0, 0.0);
        }
        (*history).sliding = 1.0;
        if (kt > 0.0) {
            (*force).friction_dissipated = (*force).friction_dissipated
                + 0.5 * (ft_trial * ft_trial - limit * limit) / kt;
        }
    } else {
        (*history).sliding = 0.0;
    }
    (*history).tangential = xi;
    (*force).force = (*force).force + ft;
    if (kt > 0.0) {
        (*force).elastic = (*force).elastic + 0.5 * dot(ft, ft) / kt;
    }
}
