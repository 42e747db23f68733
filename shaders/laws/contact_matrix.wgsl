// CPU twin: crates/grains-core/src/kernels/laws/contact_matrix.rs
//
// The contact matrix's assembly, last in every chain of an implicit world: the friction and
// stiffness blocks the laws before it declared, weighted by the contact fraction, kept in the
// pair's history for the solve.
//!include lib/types.wgsl

struct ContactMatrixParams {
    scale: f32,
}

struct ContactMatrixHistory {
    normal: array<f32, 3>,
    gamma_n: f32,
    gamma_t: f32,
    stiffness_n: f32,
    stiffness_t: f32,
}

fn law_contact_matrix(
    geom: ContactGeom,
    params: ContactMatrixParams,
    history: ptr<function, ContactMatrixHistory>,
    force: ptr<function, ContactForce>,
) {
    let w = geom.fraction * params.scale;
    (*history).normal = array<f32, 3>(geom.normal.x, geom.normal.y, geom.normal.z);
    (*history).gamma_n = (*force).gamma_n * w;
    (*history).gamma_t = (*force).gamma_t * w;
    (*history).stiffness_n = (*force).stiffness * w;
    (*history).stiffness_t = (*force).stiffness_t * w;
}
