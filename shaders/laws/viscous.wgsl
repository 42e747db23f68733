// CPU twin: crates/grains-core/src/kernels/laws/viscous.rs
//
// Viscous normal dashpot `F_d = c v_n`, `c = 2 zeta sqrt(m* k)` with `k` the normal law's tangent
// stiffness (Tsuji et al. 1992 form on Hertz), never pulling harder than the springs push
// unless `clip` is 0 (`form = "tsuji"`, as LIGGGHTS).
// Dissipation is the trapezoid `(F_prev + F)/2 v_n dt`, the previous force kept in the history.
//!include lib/types.wgsl

struct ViscousParams {
    zeta: f32,
    clip: f32,
}

struct ViscousHistory {
    f_damp_prev: f32,
}

fn law_viscous(
    geom: ContactGeom,
    params: ViscousParams,
    history: ptr<function, ViscousHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).f_damp_prev = 0.0;
        return;
    }
    let n = geom.normal;
    let vn = dot(geom.vrel, n);
    let c = 2.0 * params.zeta * sqrt(geom.m_eff * (*force).stiffness);
    var f_damp = c * vn;
    if (params.clip != 0.0) {
        f_damp = max(f_damp, -(*force).normal_force);
    }
    (*force).force = (*force).force - n * f_damp;
    (*force).normal_force = (*force).normal_force + f_damp;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).f_damp_prev + f_damp) * vn * geom.dt;
    (*history).f_damp_prev = f_damp;
}
