// CPU twin: crates/grains-core/src/kernels/laws/material_specific_constant_resistance.rs
//
// The friction block of two surfaces in series, `g1 g2 / (g1 + g2)` per direction (combined
// when the pair table is built), added to the chain's for the implicit solve.
//!include lib/types.wgsl

struct MaterialSpecificConstantResistanceParams {
    normal: f32,
    tangential: f32,
}

fn law_material_specific_constant_resistance(
    geom: ContactGeom,
    params: MaterialSpecificConstantResistanceParams,
    force: ptr<function, ContactForce>,
) {
    (*force).gamma_n = (*force).gamma_n + params.normal;
    (*force).gamma_t = (*force).gamma_t + params.tangential;
}
