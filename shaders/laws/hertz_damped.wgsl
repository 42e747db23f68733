// CPU twin: crates/grains-core/src/kernels/laws/hertz_damped.rs
//
// Kuwabara-Kono damped Hertz: `F_n = 4/3 E* sqrt(R*) (delta^(3/2) + A d(delta)/dt sqrt(delta))`
// (Kuwabara & Kono 1987; Brilliantov et al. 1996), clipped at zero so it never pulls.
// Dissipation is the trapezoid of the dashpot force, the previous one kept in the history.
//!include lib/clipped_dashpot.wgsl

struct HertzDampedParams {
    e_eff: f32,
    damping_time: f32,
}

struct HertzDampedHistory {
    f_damp_prev: f32,
}

fn law_hertz_damped(
    geom: ContactGeom,
    params: HertzDampedParams,
    history: ptr<function, HertzDampedHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).f_damp_prev = 0.0;
        return;
    }
    let n = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, n);
    let kh = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    let sd = sqrt(geom.delta);
    let f_el = kh * geom.delta * sd;
    let f_damp = kh * params.damping_time * vn * sd;
    (*history).f_damp_prev = clipped_spring_dashpot(
        geom,
        vn,
        f_el,
        f_damp,
        1.5 * kh * sd,
        0.4 * f_el * geom.delta,
        (*history).f_damp_prev,
        force,
    );
}
