//! Linear normal dashpot while the surfaces overlap. WGSL twin:
//! `shaders/laws/linear_damper_overlap.wgsl`.
//!
//! `F = -c v_n n f_c` while `delta > 0`, with `f_c` the contact fraction (Mpacts
//! LinearDamperOverlap, `shared/reference/000`). Not clipped: with a linear spring it is the
//! classic damped oscillator, whose restitution is `exp(-pi zeta / sqrt(1 - zeta^2))`,
//! `zeta = c / (2 sqrt(m* k))`. The kernel and energy booking are `linear_damper`'s
//! (`law_normal_dashpot`); on separation the last force's half step is booked.
//!
//! Scene keys: `damping` (c, N s/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::linear_damper::{
    law_normal_dashpot, DashpotModel, NormalDashpot, NormalDashpotHistory, NormalDashpotParams,
};

/// The overlap-only linear dashpot.
pub fn law_linear_damper_overlap(
    geom: &ContactGeom,
    params: &NormalDashpotParams,
    history: &mut NormalDashpotHistory,
    force: &mut ContactForce,
) {
    law_normal_dashpot(geom, params, history, force)
}

/// The dashpot while the surfaces overlap.
pub struct LinearDamperOverlapModel;

impl DashpotModel for LinearDamperOverlapModel {
    const KEYWORD: &'static str = "linear_damper_overlap";
    const OVERLAP_ONLY: bool = true;
    fn law(
        g: &ContactGeom,
        p: &NormalDashpotParams,
        h: &mut NormalDashpotHistory,
        f: &mut ContactForce,
    ) {
        law_linear_damper_overlap(g, p, h, f)
    }
}

/// The `linear_damper_overlap` law: the linear dashpots' [`crate::law::Law`], overlap only.
pub type LinearDamperOverlap = NormalDashpot<LinearDamperOverlapModel>;
