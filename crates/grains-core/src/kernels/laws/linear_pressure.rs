//! Linear contact pressure. WGSL twin: `shaders/laws/linear_pressure.wgsl`.
//!
//! A pressure that grows linearly with the overlap, with a viscous part, over the contact area
//! (Mpacts N_LinearPressure, `shared/reference/000`): `F = A_c (k delta + c d(delta)/dt)`,
//! never attractive, with the area of a Hertzian contact `A_c = pi R* delta`. The force is then
//! `pi R* k delta^2`: stiffer than Hertz at large overlaps, suited to soft layers and cells.
//!
//! Energy: stored `pi R* k delta^3 / 3`; the viscous part's work is the trapezoid of its force
//! over the step, dissipated (as `viscous.rs` explains).
//!
//! Scene keys: `stiffness` (k, Pa/m, required), `damping` (c, Pa s/m, default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::clipped_dashpot::clipped_spring_dashpot;
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of linear pressure.
    pub struct LinearPressureParams {
        /// Pressure per unit overlap `k` (Pa/m).
        pub stiffness: f32,
        /// Pressure per unit approach rate `c` (Pa s/m).
        pub damping: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of linear pressure.
    pub struct LinearPressureHistory {
        /// Viscous force applied at the previous step (N).
        pub f_damp_prev: f32,
    }
}

/// Scene settings of `linear_pressure`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearPressureSpec {
    pub stiffness: f64,
    pub damping: f64,
}

/// Linear pressure.
pub fn law_linear_pressure(
    geom: &ContactGeom,
    params: &LinearPressureParams,
    history: &mut LinearPressureHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.f_damp_prev = 0.0;
        return;
    }
    let n = v3(geom.normal);
    let vn = v3(geom.vrel).dot(n);
    let area = std::f32::consts::PI * geom.r_eff * geom.delta;
    let f_el = area * params.stiffness * geom.delta;
    history.f_damp_prev = clipped_spring_dashpot(
        geom,
        vn,
        f_el,
        area * params.damping * vn,
        2.0 * f_el / geom.delta,
        f_el * geom.delta / 3.0,
        history.f_damp_prev,
        force,
    );
}

/// The `linear_pressure` law.
pub struct LinearPressure;

impl Law for LinearPressure {
    const KEYWORD: &'static str = "linear_pressure";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["stiffness", "damping"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = LinearPressureParams;
    type History = LinearPressureHistory;
    type Spec = LinearPressureSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LinearPressureSpec, K::Error> {
        let k = keys.positive("stiffness", "Pa/m")?;
        Ok(LinearPressureSpec {
            stiffness: required(keys, "stiffness", "a positive number (Pa/m)", k)?,
            damping: keys.non_negative("damping", "Pa s/m")?.unwrap_or(0.0),
        })
    }

    fn spring(_: &LinearPressureSpec) -> Option<SpringShape> {
        Some(SpringShape::Hertz)
    }

    fn mix(spec: &LinearPressureSpec, _: &PairContext<'_>) -> LinearPressureParams {
        LinearPressureParams {
            stiffness: spec.stiffness as f32,
            damping: spec.damping as f32,
        }
    }

    fn range(_: &LinearPressureSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    /// The collision time of the spring `pi R* k delta^2`, a power law.
    fn collision_time(spec: &LinearPressureSpec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(c.power_law_time(std::f64::consts::PI * c.r_eff * spec.stiffness, 2.0))
    }

    fn apply(
        g: &ContactGeom,
        p: &LinearPressureParams,
        h: &mut LinearPressureHistory,
        f: &mut ContactForce,
    ) {
        law_linear_pressure(g, p, h, f)
    }
}

impl LawTwin for LinearPressure {
    // Products; the viscous part may nearly cancel the elastic one while unloading: 5e-5.
    const PARITY_TOLERANCE: f32 = 5e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<LinearPressureParams, LinearPressureHistory> {
        let geom = random_geom(rng, i);
        let k = rng.log_uniform(1e6, 1e13);
        ParityCase {
            geom,
            params: LinearPressureParams {
                stiffness: k,
                damping: if rng.chance(0.5) {
                    k * rng.log_uniform(1e-6, 1e-3)
                } else {
                    0.0
                },
            },
            history: LinearPressureHistory {
                f_damp_prev: rng.range(-1e-3, 1e-3) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
