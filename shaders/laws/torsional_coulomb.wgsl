// CPU twin: crates/grains-core/src/kernels/laws/torsional_coulomb.rs
//
// Torsional Coulomb friction (Mpacts TorsionalCoulombFriction): a torque about the normal
// against the relative spin, `-min(c_t |w_n| A_c / (2 pi), 2/3 mu_t F_n a) sign(w_n) n`, with
// `a^2 = R* delta` and `A_c = pi a^2`; its work over the step is dissipated.
//!include lib/types.wgsl

struct TorsionalCoulombParams {
    torsional_friction: f32,
    damping: f32,
}

struct TorsionalCoulombHistory {
    m_prev: f32,
}

fn law_torsional_coulomb(
    geom: ContactGeom,
    params: TorsionalCoulombParams,
    history: ptr<function, TorsionalCoulombHistory>,
    force: ptr<function, ContactForce>,
) {
    let n = geom.normal;
    let wn = dot(geom.wrel, n);
    if (geom.delta <= 0.0) {
        (*force).friction_dissipated = (*force).friction_dissipated
            + 0.5 * (*history).m_prev * wn * geom.dt;
        (*history).m_prev = 0.0;
        return;
    }
    let a2 = geom.r_eff * geom.delta;
    let viscous = params.damping * abs(wn) * 0.5 * a2;
    let coulomb = 2.0 / 3.0 * params.torsional_friction * (*force).normal_force * sqrt(a2);
    var m = min(viscous, coulomb) * sign(wn);
    if (wn == 0.0) {
        m = 0.0;
    }
    (*force).torque1 = (*force).torque1 - n * m;
    (*force).torque2 = (*force).torque2 + n * m;
    (*force).friction_dissipated = (*force).friction_dissipated
        + 0.5 * ((*history).m_prev + m) * wn * geom.dt;
    (*history).m_prev = m;
}
