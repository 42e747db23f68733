// CPU twin: crates/grains-core/src/kernels/laws/mesh_weighted_resistance.rs
//
// The friction block `w12 [gamma_n n n^T + gamma_t (I - n n^T)]` of two mesh nodes, `w12` from
// their valence (computed when the pair table is built), added to the chain's for the implicit
// solve.
//!include lib/types.wgsl

struct MeshWeightedResistanceParams {
    normal: f32,
    tangential: f32,
    weight: f32,
}

fn law_mesh_weighted_resistance(
    geom: ContactGeom,
    params: MeshWeightedResistanceParams,
    force: ptr<function, ContactForce>,
) {
    (*force).gamma_n = (*force).gamma_n + params.weight * params.normal;
    (*force).gamma_t = (*force).gamma_t + params.weight * params.tangential;
}
