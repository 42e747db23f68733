// CPU twin: crates/grains-core/src/kernels/laws/serial_dashpot.rs
//
// Maxwell element: a linear spring whose rest length flows through a serial dashpot,
// dd0/dt = -F / c, with tau = c / k (Mpacts SerialDashpot).
// The kernel is lib/spring_element.wgsl's.
//!include lib/spring_element.wgsl

fn law_serial_dashpot(
    geom: ContactGeom,
    params: SpringParams,
    history: ptr<function, SpringHistory>,
    force: ptr<function, ContactForce>,
) {
    law_spring_element(geom, params, history, force);
}
