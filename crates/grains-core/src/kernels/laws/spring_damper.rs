//! Linear spring with a dashpot in parallel. WGSL twin: `shaders/laws/spring_damper.wgsl`.
//!
//! `F = k (d0 - d) - c v_r` along the line of centres, `v_r` the separation rate (Mpacts
//! Spring_Damper, `shared/reference/000`). The spring is `spring`'s (rest length, separate
//! stretch and compression stiffness, rupture), and so is the kernel (`law_spring_element`);
//! the dashpot's work is booked as the trapezoid of its force over the step.
//!
//! Scene keys: `spring`'s, and `damping` (c, N s/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::spring::{
    law_spring_element, SpringElement, SpringHistory, SpringModel, SpringParams, SpringSpec,
};
use crate::law::{required, LawKeys};

/// The spring-dashpot.
pub fn law_spring_damper(
    geom: &ContactGeom,
    params: &SpringParams,
    history: &mut SpringHistory,
    force: &mut ContactForce,
) {
    law_spring_element(geom, params, history, force)
}

/// The spring with a parallel dashpot.
pub struct SpringDamperModel;

impl SpringModel for SpringDamperModel {
    const KEYWORD: &'static str = "spring_damper";
    const KEYS: &'static [&'static str] = &[
        "stiffness",
        "compression_stiffness",
        "rest_length",
        "rupture_length",
        "damping",
    ];
    fn parse_extra<K: LawKeys>(keys: &K, spec: &mut SpringSpec) -> Result<(), K::Error> {
        let c = keys.positive("damping", "N s/m")?;
        spec.damping = required(keys, "damping", "a positive number (N s/m)", c)?;
        Ok(())
    }
    fn law(g: &ContactGeom, p: &SpringParams, h: &mut SpringHistory, f: &mut ContactForce) {
        law_spring_damper(g, p, h, f)
    }
}

/// The `spring_damper` law.
pub type SpringDamper = SpringElement<SpringDamperModel>;
