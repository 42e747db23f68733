// CPU twin: crates/grains-core/src/kernels/laws/linear_damper.rs
//
// Linear normal dashpot at any distance: F = -c v_n n (Mpacts LinearDamper).
// The kernel is lib/normal_dashpot.wgsl's.
//!include lib/normal_dashpot.wgsl

fn law_linear_damper(
    geom: ContactGeom,
    params: NormalDashpotParams,
    history: ptr<function, NormalDashpotHistory>,
    force: ptr<function, ContactForce>,
) {
    law_normal_dashpot(geom, params, history, force);
}
