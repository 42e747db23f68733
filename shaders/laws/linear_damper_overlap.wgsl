// CPU twin: crates/grains-core/src/kernels/laws/linear_damper_overlap.rs
//
// Linear normal dashpot while the surfaces overlap: F = -c v_n n f_c (Mpacts LinearDamperOverlap).
// The kernel is lib/normal_dashpot.wgsl's.
//!include lib/normal_dashpot.wgsl

fn law_linear_damper_overlap(
    geom: ContactGeom,
    params: NormalDashpotParams,
    history: ptr<function, NormalDashpotHistory>,
    force: ptr<function, ContactForce>,
) {
    law_normal_dashpot(geom, params, history, force);
}
