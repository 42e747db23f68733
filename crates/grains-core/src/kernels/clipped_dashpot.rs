//! What the normal laws with a built-in dashpot share (`hertz_damped`, `linear_pressure`, the
//! impact models `hunt_crossley` and `gonthier`): the spring and dashpot forces summed and
//! clipped at zero, so the contact never pulls, and the dashpot's work booked as the trapezoid
//! of the force it really applied. WGSL twin: `shaders/lib/clipped_dashpot.wgsl`.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;

/// Apply spring force `f_el` and dashpot force `f_damp` (N, positive repulsive) along the
/// normal, their sum clipped at zero; add `stiffness` (N/m) and the stored `elastic` energy
/// (J); book the dashpot's work over the step from the previous applied dashpot force
/// `f_damp_prev` at approach rate `vn` (m/s). Returns the dashpot force applied this step, the
/// next `f_damp_prev`.
#[allow(clippy::too_many_arguments)]
pub fn clipped_spring_dashpot(
    geom: &ContactGeom,
    vn: f32,
    f_el: f32,
    f_damp: f32,
    stiffness: f32,
    elastic: f32,
    f_damp_prev: f32,
    force: &mut ContactForce,
) -> f32 {
    let total = (f_el + f_damp).max(0.0);
    let f_damp_applied = total - f_el;
    force.force = (v3(force.force) - v3(geom.normal) * total).to_array();
    force.normal_force += total;
    force.stiffness += stiffness;
    force.elastic += elastic;
    force.damping_dissipated += 0.5 * (f_damp_prev + f_damp_applied) * vn * geom.dt;
    f_damp_applied
}
