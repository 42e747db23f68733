// CPU twin: crates/grains-core/src/kernels/laws/cundall_strack.rs
//
// Cundall-Strack tangential spring with a static/dynamic Coulomb limit (Cundall & Strack 1979;
// Luding 2008). The history vector is first rotated into the current tangent plane, keeping its
// length, so a rolling contact does not leak force into the normal direction. `k_t` is
// `stiffness_ratio * k_n` or Mindlin's `8 G* sqrt(R* delta)` (Mindlin 1949). The spring's energy
// is the work the applied force did on it (trapezoid, kept with the previous `k_t` in the
// history); on a slip, what exceeds `|F_limit|^2 / 2 k_t` is friction dissipation.
//!include lib/types.wgsl

struct CundallStrackParams {
    mu_static: f32,
    mu_dynamic: f32,
    stiffness_ratio: f32,
    mindlin: u32,
    g_eff: f32,
    liggghts: u32,
    zeta_t: f32,
}

// 4-byte scalars only (no vec3), so the record packs into the chain's history as in Rust.
struct CundallStrackHistory {
    xi: array<f32, 3>,
    sliding: f32,
    stored: f32,
    kt_prev: f32,
}

fn law_cundall_strack(
    geom: ContactGeom,
    params: CundallStrackParams,
    history: ptr<function, CundallStrackHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*force).friction_dissipated = (*force).friction_dissipated + (*history).stored;
        *history = CundallStrackHistory();
        return;
    }
    let n = geom.normal;
    let vrel = geom.vrel;
    let vt = vrel - n * dot(vrel, n);
    var xi = vec3<f32>((*history).xi[0], (*history).xi[1], (*history).xi[2]);
    let dxi = vt * geom.dt;
    var f_prev: vec3<f32>;
    if (params.liggghts != 0u) {
        // LIGGGHTS: the increment first, then the projection, the length not kept.
        f_prev = -xi * (*history).kt_prev;
        xi = xi + dxi;
        xi = xi - n * dot(xi, n);
    } else {
        let xi_len = sqrt(dot(xi, xi));
        xi = xi - n * dot(xi, n);
        let xi_plane = sqrt(dot(xi, xi));
        if (xi_plane > 0.0) {
            xi = xi * (xi_len / xi_plane);
        }
        f_prev = -xi * (*history).kt_prev;
        xi = xi + dxi;
    }
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
    var stored: f32;
    // Coulomb's bound on the magnitude of the normal force (twin: see cundall_strack.rs).
    let fn_abs = abs((*force).normal_force);
    if (ft_trial > mu * fn_abs) {
        let limit = params.mu_dynamic * fn_abs;
        ft = ft * (limit / ft_trial);
        (*history).sliding = 1.0;
        var kept = 0.0;
        if (kt > 0.0) {
            xi = -ft / kt;
            kept = 0.5 * limit * limit / kt;
        } else {
            xi = vec3<f32>(0.0, 0.0, 0.0);
        }
        let worked = (*history).stored - 0.5 * dot(f_prev + ft, dxi);
        (*force).friction_dissipated = (*force).friction_dissipated + (worked - kept);
        stored = kept;
    } else {
        (*history).sliding = 0.0;
        stored = (*history).stored - 0.5 * dot(f_prev + ft, dxi);
        if (params.liggghts != 0u) {
            // The sticking spring's dashpot (LIGGGHTS' tangential damping).
            let fd = -vt * (2.0 * params.zeta_t * sqrt(kt * geom.m_eff));
            ft = ft + fd;
            (*force).damping_dissipated = (*force).damping_dissipated - dot(fd, vt) * geom.dt;
        }
    }
    (*history).xi = array<f32, 3>(xi.x, xi.y, xi.z);
    (*history).stored = stored;
    (*history).kt_prev = kt;
    (*force).force = (*force).force + ft;
    (*force).elastic = (*force).elastic + stored;
}
