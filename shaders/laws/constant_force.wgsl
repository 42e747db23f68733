// CPU twin: crates/grains-core/src/kernels/laws/constant_force.rs
//
// A constant normal force (the assembly weights it by the contact fraction), while the
// surfaces touch or for every evaluated pair; stored energy `F delta`.
//!include lib/established.wgsl

struct ConstantForceParams {
    force: f32,
    always: u32,
}

fn law_constant_force(
    geom: ContactGeom,
    params: ConstantForceParams,
    history: ptr<function, EstablishedHistory>,
    force: ptr<function, ContactForce>,
) {
    if (params.always == 0u && geom.delta < 0.0) {
        book_step(geom, history, 0.0, 0.0, force);
        return;
    }
    let f = params.force;
    book_step(geom, history, f, f * geom.delta, force);
}
