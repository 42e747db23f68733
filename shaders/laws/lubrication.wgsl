// CPU twin: crates/grains-core/src/kernels/laws/lubrication.rs
//
// Lubrication resistance (Mpacts N_LubricationResistance): `F = -6 pi mu R*^2 v_n / h` at gap
// `h = max(-delta, min_gap)`, below `max_gap`; its work over the step is dissipated.
//!include lib/types.wgsl

struct LubricationParams {
    viscosity: f32,
    min_gap: f32,
    max_gap: f32,
}

struct LubricationHistory {
    f_prev: f32,
}

fn law_lubrication(
    geom: ContactGeom,
    params: LubricationParams,
    history: ptr<function, LubricationHistory>,
    force: ptr<function, ContactForce>,
) {
    let n = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, n);
    let gap = -geom.delta;
    var f = 0.0;
    if (gap < params.max_gap) {
        let h = max(gap, params.min_gap);
        f = 6.0 * 3.14159274 * params.viscosity * geom.r_eff * geom.r_eff * vn / h;
    }
    (*force).force = (*force).force - n * f;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).f_prev + f) * vn * geom.dt;
    (*history).f_prev = f;
}
