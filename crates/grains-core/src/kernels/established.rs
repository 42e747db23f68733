//! What the laws that act once a contact is established share (`linear_adhesion`,
//! `preset_force`, `constant_force`): their history record and their energy booking. WGSL
//! twin: `shaders/lib/established.wgsl`.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;

crate::gpu_struct! {
    /// Per-pair history of a law that acts once its contact is established.
    pub struct EstablishedHistory {
        /// 1 once the surfaces have touched, until the contact breaks.
        pub established: u32,
        /// Force of the previous step (N, positive repulsive).
        pub f_prev: f32,
        /// Stored energy of the previous step (J).
        pub e_prev: f32,
    }
}

/// Book a step of a force `f` (positive repulsive) with stored energy `e`: the trapezoid of the
/// force over the step's approach, less the change of the stored energy, is dissipated.
#[inline]
pub fn book_step(
    geom: &ContactGeom,
    h: &mut EstablishedHistory,
    f: f32,
    e: f32,
    out: &mut ContactForce,
) {
    let n = v3(geom.normal);
    let vn = v3(geom.vrel).dot(n);
    out.force = (v3(out.force) - n * f).to_array();
    out.elastic += e;
    out.damping_dissipated += 0.5 * (h.f_prev + f) * vn * geom.dt - (e - h.e_prev);
    h.f_prev = f;
    h.e_prev = e;
}
