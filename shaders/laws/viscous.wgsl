// CPU twin: crates/grains-core/src/kernels/laws/viscous.rs
//
// Viscous normal dashpot `F_d = c v_n`, `c = 2 zeta sqrt(m* k)` with `k` the normal law's tangent
// stiffness (Tsuji et al. 1992 form on Hertz), never pulling harder than the springs push.
// Dissipation is the trapezoid `(F_prev + F)/2 v_n dt`, previous force in `history.extra[1]`.
//!include lib/types.wgsl

fn law_viscous(
    geom: ContactGeom,
    params: ViscousParams,
    history: ptr<function, PairHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).extra[1] = 0.0;
        return;
    }
    let n = geom.normal;
    let vn = dot(geom.vrel, n);
    let c = 2.0 * params.zeta * sqrt(geom.m_eff * (*force).stiffness);
    let f_damp = max(c * vn, -(*force).normal_force);
    (*force).force = (*force).force - n * f_damp;
    (*force).normal_force = (*force).normal_force + f_damp;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).extra[1] + f_damp) * vn * geom.dt;
    (*history).extra[1] = f_damp;
}
