// CPU twin: crates/grains-core/src/kernels/laws/hertz.rs
//
// Hertz: `F_n = 4/3 E* sqrt(R*) delta^(3/2)` (Hertz 1882; Johnson 1985, §4.2), stored energy
// `8/15 E* sqrt(R*) delta^(5/2)`, tangent stiffness `2 E* sqrt(R* delta)`.
//!include lib/types.wgsl

struct HertzParams {
    e_eff: f32,
}

fn law_hertz(
    geom: ContactGeom,
    params: HertzParams,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        return;
    }
    let kh = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    let sd = sqrt(geom.delta);
    let fn_mag = kh * geom.delta * sd;
    let n = geom.normal;
    (*force).force = (*force).force - n * fn_mag;
    (*force).normal_force = (*force).normal_force + fn_mag;
    (*force).stiffness = (*force).stiffness + 1.5 * kh * sd;
    (*force).elastic = (*force).elastic + 0.4 * fn_mag * geom.delta;
}
