// CPU twin: crates/grains-core/src/kernels/laws/spring_damper.rs
//
// Linear spring with a parallel dashpot, F = k (d0 - d) - c v_r (Mpacts Spring_Damper).
// The kernel is lib/spring_element.wgsl's.
//!include lib/spring_element.wgsl

fn law_spring_damper(
    geom: ContactGeom,
    params: SpringParams,
    history: ptr<function, SpringHistory>,
    force: ptr<function, ContactForce>,
) {
    law_spring_element(geom, params, history, force);
}
