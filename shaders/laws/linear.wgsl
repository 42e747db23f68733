// CPU twin: crates/grains-core/src/kernels/laws/linear.rs
//
// Linear normal spring `F_n = k_n delta` (Cundall & Strack 1979); with no stiffness given, Woo's
// series springs over `A = pi min(l1, l2)^2`: `k_n = (l1/(E1 A) + l2/(E2 A))^-1`, with the
// moduli from the pair's parameters and the lengths from the geometry.
//!include lib/types.wgsl
//!include lib/math.wgsl

struct LinearParams {
    stiffness: f32,
    young1: f32,
    young2: f32,
}

fn linear_stiffness_from_young(l1: f32, l2: f32, e1: f32, e2: f32) -> f32 {
    let lmin = min(l1, l2);
    let area = PI * lmin * lmin;
    return 1.0 / (l1 / (e1 * area) + l2 / (e2 * area));
}

fn law_linear(
    geom: ContactGeom,
    params: LinearParams,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        return;
    }
    var k = params.stiffness;
    if (!(params.stiffness > 0.0)) {
        let l = geom.lengths;
        k = linear_stiffness_from_young(l[0], l[1], params.young1, params.young2);
    }
    let fn_mag = k * geom.delta;
    let n = geom.normal;
    (*force).force = (*force).force - n * fn_mag;
    (*force).normal_force = (*force).normal_force + fn_mag;
    (*force).stiffness = (*force).stiffness + k;
    (*force).elastic = (*force).elastic + 0.5 * k * geom.delta * geom.delta;
}
