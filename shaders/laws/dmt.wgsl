// CPU twin: crates/grains-core/src/kernels/laws/dmt.rs
//
// DMT adhesion (Derjaguin, Muller & Toporov 1975): Hertz minus `2 pi W R*` while touching;
// pull-off `-2 pi W R*`. Coulomb limits see the Hertz part.
//!include lib/types.wgsl
//!include lib/math.wgsl

struct DmtParams {
    e_eff: f32,
    work: f32,
}

fn law_dmt(
    geom: ContactGeom,
    params: DmtParams,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        return;
    }
    let kh = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    let sd = sqrt(geom.delta);
    let f_hertz = kh * geom.delta * sd;
    let f_adh = 2.0 * PI * params.work * geom.r_eff;
    let n = geom.normal;
    (*force).force = (*force).force - n * (f_hertz - f_adh);
    (*force).normal_force = (*force).normal_force + f_hertz;
    (*force).stiffness = (*force).stiffness + 1.5 * kh * sd;
    (*force).elastic = (*force).elastic + (0.4 * f_hertz * geom.delta - f_adh * geom.delta);
}
