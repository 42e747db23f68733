//!include lib/types.wgsl
// What the normal laws with a built-in dashpot share (hertz_damped, linear_pressure, the
// impact models): spring plus dashpot clipped at zero, and the dashpot's work booked as the
// trapezoid of the force it applied. CPU twin: crates/grains-core/src/kernels/clipped_dashpot.rs.

// Returns the dashpot force applied this step (the next `f_damp_prev`).
fn clipped_spring_dashpot(
    geom: ContactGeom,
    vn: f32,
    f_el: f32,
    f_damp: f32,
    stiffness: f32,
    elastic: f32,
    f_damp_prev: f32,
    force: ptr<function, ContactForce>,
) -> f32 {
    let total = max(f_el + f_damp, 0.0);
    let f_damp_applied = total - f_el;
    (*force).force = (*force).force - geom.normal * total;
    (*force).normal_force = (*force).normal_force + total;
    (*force).stiffness = (*force).stiffness + stiffness;
    (*force).elastic = (*force).elastic + elastic;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * (f_damp_prev + f_damp_applied) * vn * geom.dt;
    return f_damp_applied;
}
