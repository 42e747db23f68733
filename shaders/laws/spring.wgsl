// CPU twin: crates/grains-core/src/kernels/laws/spring.rs
//
// Linear spring F = k (d0 - d), separate stretch and compression stiffness, rest length
// (given or initial) and a permanent rupture (Mpacts Spring).
// The kernel is lib/spring_element.wgsl's.
//!include lib/spring_element.wgsl

fn law_spring(
    geom: ContactGeom,
    params: SpringParams,
    history: ptr<function, SpringHistory>,
    force: ptr<function, ContactForce>,
) {
    law_spring_element(geom, params, history, force);
}
