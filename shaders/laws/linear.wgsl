// CPU twin: crates/grains-core/src/kernels/laws/linear.rs
//
// Linear normal spring `F_n = k_n delta` (Cundall & Strack 1979); with no stiffness given, Woo's
// series springs over `A = pi min(l1, l2)^2`: `k_n = (l1/(E1 A) + l2/(E2 A))^-1`.
//!include lib/types.wgsl
//!include lib/math.wgsl

fn linear_stiffness_from_young(l1: f32, l2: f32, e1: f32, e2: f32) -> f32 {
    let lmin = min(l1, l2);
    let area = PI * lmin * lmin;
    return 1.0 / (l1 / (e1 * area) + l2 / (e2 * area));
}

fn law_linear(
    geom: ContactGeom,
    params: LinearParams,
    history: ptr<function, PairHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        return;
    }
    var k = params.stiffness;
    if (!(params.stiffness > 0.0)) {
        let ly = geom.len_young;
        k = linear_stiffness_from_young(ly[0], ly[1], ly[2], ly[3]);
    }
    let fn_mag = k * geom.delta;
    let n = geom.normal;
    (*force).force = (*force).force - n * fn_mag;
    (*force).normal_force = (*force).normal_force + fn_mag;
    (*force).stiffness = (*force).stiffness + k;
    (*force).elastic = (*force).elastic + 0.5 * k * geom.delta * geom.delta;
}
