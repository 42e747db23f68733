//! Linear spring with a dashpot in series: a Maxwell element. WGSL twin:
//! `shaders/laws/serial_dashpot.wgsl`.
//!
//! The spring is `spring`'s, `F = k (d0 - d)`; the dashpot in series lets its rest length
//! flow, `dd0/dt = -F / c` (Mpacts SerialDashpot, `shared/reference/000`), with the relaxation
//! time `tau = c / k` as the scene gives it. Over a step the rest length moves as the exact
//! solution at fixed `d`, `d0 <- d + (d0 - d) exp(-dt / tau)`, so a held stretch relaxes as
//! `exp(-t / tau)` at any step. It flows only while `d / d0` exceeds `slip_threshold` (0 by
//! default: always). What the flow takes out of the spring is booked as dissipated. Kernel:
//! `law_spring_element`.
//!
//! Scene keys: `spring`'s, `relaxation_time` (s, required) and `slip_threshold` (default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::spring::{
    law_spring_element, SpringElement, SpringHistory, SpringModel, SpringParams, SpringSpec,
};
use crate::law::{required, LawKeys};

/// The Maxwell element.
pub fn law_serial_dashpot(
    geom: &ContactGeom,
    params: &SpringParams,
    history: &mut SpringHistory,
    force: &mut ContactForce,
) {
    law_spring_element(geom, params, history, force)
}

/// The spring with a serial dashpot.
pub struct SerialDashpotModel;

impl SpringModel for SerialDashpotModel {
    const KEYWORD: &'static str = "serial_dashpot";
    const KEYS: &'static [&'static str] = &[
        "stiffness",
        "compression_stiffness",
        "rest_length",
        "rupture_length",
        "relaxation_time",
        "slip_threshold",
    ];
    fn parse_extra<K: LawKeys>(keys: &K, spec: &mut SpringSpec) -> Result<(), K::Error> {
        let tau = keys.positive("relaxation_time", "s")?;
        spec.relaxation_time = required(keys, "relaxation_time", "a positive number (s)", tau)?;
        spec.slip_threshold = keys
            .non_negative("slip_threshold", "a ratio of lengths")?
            .unwrap_or(0.0);
        Ok(())
    }
    fn law(g: &ContactGeom, p: &SpringParams, h: &mut SpringHistory, f: &mut ContactForce) {
        law_serial_dashpot(g, p, h, f)
    }
}

/// The `serial_dashpot` law.
pub type SerialDashpot = SpringElement<SerialDashpotModel>;
