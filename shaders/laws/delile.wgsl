// CPU twin: crates/grains-core/src/kernels/laws/delile.rs
//
// Delile et al. (2017): `A_c = a (r - r_max)^2`, `F = w A_c (r_eq - r)` (repulsive when
// positive) for `r < r_max`, `r_max = c_max (R1 + R2)`, `r_eq = c_eq (R1 + R2)`; declares the
// energy, the area and the tangent stiffness floored at zero.
//!include lib/types.wgsl

struct DelileParams {
    stiffness: f32,
    area_factor: f32,
    max_ratio: f32,
    rest_ratio: f32,
}

fn law_delile(
    geom: ContactGeom,
    params: DelileParams,
    force: ptr<function, ContactForce>,
) {
    let sum = geom.lengths.x + geom.lengths.y;
    let r = sum - geom.delta;
    let r_max = params.max_ratio * sum;
    if (r >= r_max) {
        return;
    }
    let r_eq = params.rest_ratio * sum;
    let x = r - r_max;
    let area = params.area_factor * x * x;
    let f = params.stiffness * area * (r_eq - r);
    let n = geom.normal;
    (*force).force = (*force).force - n * f;
    (*force).normal_force = (*force).normal_force + max(f, 0.0);
    let k = params.stiffness * params.area_factor * x * (3.0 * r - r_max - 2.0 * r_eq);
    (*force).stiffness = (*force).stiffness + max(k, 0.0);
    let well = r_eq - r_max;
    (*force).elastic = (*force).elastic
        + params.stiffness * params.area_factor * x * x * x * (0.25 * x - well / 3.0);
    (*force).area = (*force).area + area;
}
