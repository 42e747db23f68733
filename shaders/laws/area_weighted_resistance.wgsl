// CPU twin: crates/grains-core/src/kernels/laws/area_weighted_resistance.rs
//
// The friction block `A_c [gamma_n n n^T + gamma_t (I - n n^T)]`, its coefficients per unit
// contact area, added to the chain's for the implicit solve; no force of its own.
//!include lib/types.wgsl
//!include lib/contact_area.wgsl

struct AreaWeightedResistanceParams {
    normal: f32,
    tangential: f32,
}

fn law_area_weighted_resistance(
    geom: ContactGeom,
    params: AreaWeightedResistanceParams,
    force: ptr<function, ContactForce>,
) {
    let area = contact_area(geom, *force);
    (*force).gamma_n = (*force).gamma_n + area * params.normal;
    (*force).gamma_t = (*force).gamma_t + area * params.tangential;
}
