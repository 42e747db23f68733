// CPU twin: crates/grains-core/src/kernels/laws/constant_resistance.rs
//
// A constant friction block `gamma_n n n^T + gamma_t (I - n n^T)`, added to the chain's for
// the implicit solve; no force of its own.
//!include lib/types.wgsl

struct ConstantResistanceParams {
    normal: f32,
    tangential: f32,
}

fn law_constant_resistance(
    geom: ContactGeom,
    params: ConstantResistanceParams,
    force: ptr<function, ContactForce>,
) {
    (*force).gamma_n = (*force).gamma_n + params.normal;
    (*force).gamma_t = (*force).gamma_t + params.tangential;
}
