// CPU twin: crates/grains-core/src/kernels/laws/hertz_damped.rs
//
// Kuwabara-Kono damped Hertz: `F_n = 4/3 E* sqrt(R*) (delta^(3/2) + A d(delta)/dt sqrt(delta))`
// (Kuwabara & Kono 1987; Brilliantov et al. 1996), clipped at zero so it never pulls.
// Dissipation is the trapezoid of the dashpot force, previous one in `history.extra[0]`.
//!include lib/types.wgsl

fn law_hertz_damped(
    geom: ContactGeom,
    params: HertzDampedParams,
    history: ptr<function, PairHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).extra[0] = 0.0;
        return;
    }
    let n = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, n);
    let kh = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    let sd = sqrt(geom.delta);
    let f_el = kh * geom.delta * sd;
    let f_damp = kh * params.damping_time * vn * sd;
    let total = max(f_el + f_damp, 0.0);
    let f_damp_applied = total - f_el;
    (*force).force = (*force).force - n * total;
    (*force).normal_force = (*force).normal_force + total;
    (*force).stiffness = (*force).stiffness + 1.5 * kh * sd;
    (*force).elastic = (*force).elastic + 0.4 * f_el * geom.delta;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).extra[0] + f_damp_applied) * vn * geom.dt;
    (*history).extra[0] = f_damp_applied;
}
