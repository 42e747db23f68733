// CPU twin: crates/grains-core/src/kernels/laws/masked_constant_resistance.rs
//
// The friction block of the two bodies' masks (its entries picked when the pair table is
// built), added to the chain's for the implicit solve.
//!include lib/types.wgsl

struct MaskedConstantResistanceParams {
    normal: f32,
    tangential: f32,
}

fn law_masked_constant_resistance(
    geom: ContactGeom,
    params: MaskedConstantResistanceParams,
    force: ptr<function, ContactForce>,
) {
    (*force).gamma_n = (*force).gamma_n + params.normal;
    (*force).gamma_t = (*force).gamma_t + params.tangential;
}
