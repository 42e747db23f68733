//! Lubrication resistance. WGSL twin: `shaders/laws/lubrication.wgsl`.
//!
//! The normal resistance of the fluid film between two approaching spheres, `F = -6 pi mu R*^2
//! v_n / h` at gap `h` (Reynolds' lubrication approximation; Mpacts N_LubricationResistance,
//! `shared/reference/000`), acting from the gap `max_gap` down, with the gap taken as at least
//! `min_gap` (surface roughness; it also keeps the force finite at contact). It acts beside a
//! normal law, in the `extra` slot; its range is `max_gap`, so the neighbour list keeps pairs
//! within it.
//!
//! Energy: a dashpot: the trapezoid of its force over the step is dissipated.
//!
//! Scene keys: `viscosity` (mu, Pa s, required), `min_gap` (m, required), `max_gap` (m,
//! required, above `min_gap`).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of lubrication resistance.
    pub struct LubricationParams {
        /// Fluid viscosity `mu` (Pa s).
        pub viscosity: f32,
        /// Smallest gap (m).
        pub min_gap: f32,
        /// Largest gap at which it acts (m).
        pub max_gap: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of lubrication resistance.
    pub struct LubricationHistory {
        /// Force of the previous step (N, positive repulsive).
        pub f_prev: f32,
    }
}

/// Scene settings of `lubrication`.
#[derive(Clone, Debug, PartialEq)]
pub struct LubricationSpec {
    pub viscosity: f64,
    pub min_gap: f64,
    pub max_gap: f64,
}

/// Lubrication resistance.
pub fn law_lubrication(
    geom: &ContactGeom,
    params: &LubricationParams,
    history: &mut LubricationHistory,
    force: &mut ContactForce,
) {
    let n = v3(geom.normal);
    // Approach rate: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(n);
    let gap = -geom.delta;
    let f = if gap < params.max_gap {
        let h = gap.max(params.min_gap);
        6.0 * std::f32::consts::PI * params.viscosity * geom.r_eff * geom.r_eff * vn / h
    } else {
        0.0
    };
    force.force = (v3(force.force) - n * f).to_array();
    force.damping_dissipated += 0.5 * (history.f_prev + f) * vn * geom.dt;
    history.f_prev = f;
}

/// The `lubrication` law.
pub struct Lubrication;

impl Law for Lubrication {
    const KEYWORD: &'static str = "lubrication";
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = &["viscosity", "min_gap", "max_gap"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Force];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = LubricationParams;
    type History = LubricationHistory;
    type Spec = LubricationSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LubricationSpec, K::Error> {
        let mu = keys.positive("viscosity", "Pa s")?;
        let lo = keys.positive("min_gap", "m")?;
        let hi = keys.positive("max_gap", "m")?;
        let spec = LubricationSpec {
            viscosity: required(keys, "viscosity", "a positive number (Pa s)", mu)?,
            min_gap: required(keys, "min_gap", "a positive number (m)", lo)?,
            max_gap: required(keys, "max_gap", "a positive number (m)", hi)?,
        };
        if spec.max_gap <= spec.min_gap {
            return Err(keys.conflict(
                "min_gap",
                "max_gap",
                format!(
                    "max_gap ({}) must be larger than min_gap ({})",
                    crate::units::qty(spec.max_gap, "m"),
                    crate::units::qty(spec.min_gap, "m")
                ),
            ));
        }
        Ok(spec)
    }

    fn spring(_: &LubricationSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &LubricationSpec, _: &PairContext<'_>) -> LubricationParams {
        LubricationParams {
            viscosity: spec.viscosity as f32,
            min_gap: spec.min_gap as f32,
            max_gap: spec.max_gap as f32,
        }
    }

    fn range(spec: &LubricationSpec, _: &PairContext<'_>) -> f64 {
        spec.max_gap
    }

    fn collision_time(_: &LubricationSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &LubricationParams,
        h: &mut LubricationHistory,
        f: &mut ContactForce,
    ) {
        law_lubrication(g, p, h, f)
    }
}

impl LawTwin for Lubrication {
    // Products and a quotient: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<LubricationParams, LubricationHistory> {
        let mut geom = random_geom(rng, i);
        let hi = geom.r_eff * rng.log_uniform(1e-3, 1e-1);
        let lo = hi * rng.log_uniform(1e-3, 0.5);
        if i % 2 == 1 {
            geom.delta = -hi * rng.range(0.0, 1.5) as f32;
        }
        let mu = rng.log_uniform(1e-4, 1e1);
        ParityCase {
            geom,
            params: LubricationParams {
                viscosity: mu,
                min_gap: lo,
                max_gap: hi,
            },
            history: LubricationHistory {
                f_prev: mu * geom.r_eff * rng.range(-1.0, 1.0) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
