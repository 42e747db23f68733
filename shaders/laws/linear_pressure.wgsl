// CPU twin: crates/grains-core/src/kernels/laws/linear_pressure.rs
//
// Linear contact pressure (Mpacts N_LinearPressure): `F = A_c (k delta + c d(delta)/dt)` over
// the Hertzian area `A_c = pi R* delta`, never attractive; stored `pi R* k delta^3 / 3`.
//!include lib/clipped_dashpot.wgsl

struct LinearPressureParams {
    stiffness: f32,
    damping: f32,
}

struct LinearPressureHistory {
    f_damp_prev: f32,
}

fn law_linear_pressure(
    geom: ContactGeom,
    params: LinearPressureParams,
    history: ptr<function, LinearPressureHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).f_damp_prev = 0.0;
        return;
    }
    let n = geom.normal;
    let vn = dot(geom.vrel, n);
    let area = 3.14159274 * geom.r_eff * geom.delta;
    let f_el = area * params.stiffness * geom.delta;
    (*history).f_damp_prev = clipped_spring_dashpot(
        geom,
        vn,
        f_el,
        area * params.damping * vn,
        2.0 * f_el / geom.delta,
        f_el * geom.delta / 3.0,
        (*history).f_damp_prev,
        force,
    );
}
