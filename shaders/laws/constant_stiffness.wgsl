// CPU twin: crates/grains-core/src/kernels/laws/constant_stiffness.rs
//
// A constant stiffness tensor `k I` (Mpacts N_T_ConstantStiffness), added to the chain's
// stiffness block for the implicit solve; no force of its own.
//!include lib/types.wgsl

struct ConstantStiffnessParams {
    stiffness: f32,
}

fn law_constant_stiffness(
    geom: ContactGeom,
    params: ConstantStiffnessParams,
    force: ptr<function, ContactForce>,
) {
    (*force).stiffness = (*force).stiffness + params.stiffness;
    (*force).stiffness_t = (*force).stiffness_t + params.stiffness;
}
