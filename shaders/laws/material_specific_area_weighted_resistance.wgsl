// CPU twin: crates/grains-core/src/kernels/laws/material_specific_area_weighted_resistance.rs
//
// The friction block `A_c [gamma_n n n^T + gamma_t (I - n n^T)]`, the two surfaces'
// coefficients per unit area in series (combined when the pair table is built), added to the
// chain's for the implicit solve.
//!include lib/types.wgsl
//!include lib/contact_area.wgsl

struct MaterialSpecificAreaWeightedResistanceParams {
    normal: f32,
    tangential: f32,
}

fn law_material_specific_area_weighted_resistance(
    geom: ContactGeom,
    params: MaterialSpecificAreaWeightedResistanceParams,
    force: ptr<function, ContactForce>,
) {
    let area = contact_area(geom, *force);
    (*force).gamma_n = (*force).gamma_n + area * params.normal;
    (*force).gamma_t = (*force).gamma_t + area * params.tangential;
}
