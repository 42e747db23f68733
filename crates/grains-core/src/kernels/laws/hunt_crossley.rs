//! Hunt-Crossley restitution model. WGSL twin: `shaders/laws/hunt_crossley.wgsl`.
//!
//! A power-law spring with a dashpot that scales with it (Hunt & Crossley 1975; the form of
//! Exudyn's sphere-sphere contact, `shared/reference/002`, impact model 1):
//!
//! `F_n = k delta^n + chi delta^n d(delta)/dt + d_c d(delta)/dt`,
//! `chi = 3/2 (1 - e) k / v0`,
//!
//! with `v0 = max(v_min, d(delta)/dt at first touch)` kept in the history while the contact
//! lasts. `k` is `stiffness` when given (N/m^n), otherwise Hertz's `4/3 E* sqrt(R*)` (then `n`
//! should be 3/2). The dashpot grows from zero with the overlap, so the force has no jump at
//! touch; the total is clipped at zero so the contact never pulls. Hunt and Crossley derived
//! `chi` for small losses (e near 1): the restitution achieved drifts from the requested one
//! as e falls (the table in `tests/physics.rs`); `gonthier` corrects that.
//!
//! Energy: stored `k delta^(n+1) / (n+1)`; the dashpot's work is the trapezoid of its force
//! over the step (the previous dashpot force kept in the history, as `viscous.rs` explains).
//!
//! The kernel is shared with `gonthier`, which differs only in `chi` ([`law_impact`], WGSL
//! `lib/impact.wgsl`).
//!
//! Scene keys: `restitution` (required, in (0, 1]), `exponent` (default 1.5), `stiffness`
//! (N/m^n; default Hertz from the materials), `min_impact_velocity` (m/s, default 0),
//! `damping` (linear contact damping `d_c`, N s/m, default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::clipped_dashpot::clipped_spring_dashpot;
use crate::kernels::v3;
use crate::law::{
    required_restitution, CollisionContext, DampingContext, Law, LawKeys, LawTwin, PairContext,
    ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the impact models `hunt_crossley` and `gonthier` (WGSL:
    /// `lib/impact.wgsl`).
    pub struct ImpactParams {
        /// Effective modulus (Pa), for Hertz's `k` when `stiffness` is 0.
        pub e_eff: f32,
        /// Stiffness `k` (N/m^n); 0: `4/3 E* sqrt(R*)`.
        pub stiffness: f32,
        /// Exponent `n` of the spring.
        pub exponent: f32,
        /// `chi v0 / k` (dimensionless): the model's restitution factor.
        pub chi_factor: f32,
        /// Lower bound of the impact velocity `v0` (m/s).
        pub min_impact_velocity: f32,
        /// Linear contact damping `d_c` (N s/m).
        pub damping: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the impact models (WGSL: `lib/impact.wgsl`).
    pub struct ImpactHistory {
        /// Impact velocity `v0` (m/s) of the current contact; 0 while apart, -1 for a contact that
        /// began without approaching (no impact dashpot then).
        pub impact_velocity: f32,
        /// Dashpot force applied at the previous step (N).
        pub f_damp_prev: f32,
    }
}

/// Scene settings shared by `hunt_crossley` and `gonthier`.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactSpec {
    /// Requested restitution.
    pub restitution: f64,
    /// Spring exponent `n`.
    pub exponent: f64,
    /// Given stiffness (N/m^n); `None`: Hertz from the materials.
    pub stiffness: Option<f64>,
    /// Lower bound of the impact velocity (m/s).
    pub min_impact_velocity: f64,
    /// Linear contact damping (N s/m).
    pub damping: f64,
}

/// The shared kernel of the impact models: spring `k delta^n`, dashpot
/// `chi_factor k / v0 delta^n d(delta)/dt + d_c d(delta)/dt`, clipped at zero.
pub fn law_impact(
    geom: &ContactGeom,
    params: &ImpactParams,
    history: &mut ImpactHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        history.impact_velocity = 0.0;
        history.f_damp_prev = 0.0;
        return;
    }
    let n = v3(geom.normal);
    // Approach rate d(delta)/dt: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(n);
    if history.impact_velocity == 0.0 {
        let v0 = vn.max(params.min_impact_velocity);
        history.impact_velocity = if v0 > 0.0 { v0 } else { -1.0 };
    }
    let k = if params.stiffness > 0.0 {
        params.stiffness
    } else {
        4.0 / 3.0 * params.e_eff * geom.r_eff.sqrt()
    };
    let dn = geom.delta.powf(params.exponent);
    let f_el = k * dn;
    let chi = if history.impact_velocity > 0.0 {
        params.chi_factor * k / history.impact_velocity
    } else {
        0.0
    };
    let f_damp = (chi * dn + params.damping) * vn;
    history.f_damp_prev = clipped_spring_dashpot(
        geom,
        vn,
        f_el,
        f_damp,
        params.exponent * f_el / geom.delta,
        f_el * geom.delta / (params.exponent + 1.0),
        history.f_damp_prev,
        force,
    );
}

/// Hunt-Crossley contact.
pub fn law_hunt_crossley(
    geom: &ContactGeom,
    params: &ImpactParams,
    history: &mut ImpactHistory,
    force: &mut ContactForce,
) {
    law_impact(geom, params, history, force)
}

/// Parse the keys shared by the impact models.
pub fn parse_impact<K: LawKeys>(keys: &K) -> Result<ImpactSpec, K::Error> {
    let e = required_restitution(keys)?;
    Ok(ImpactSpec {
        restitution: e,
        exponent: keys.positive("exponent", "(dimensionless)")?.unwrap_or(1.5),
        stiffness: keys.positive("stiffness", "N/m^exponent")?,
        min_impact_velocity: keys
            .non_negative("min_impact_velocity", "m/s")?
            .unwrap_or(0.0),
        damping: keys.non_negative("damping", "N s/m")?.unwrap_or(0.0),
    })
}

/// The per-pair parameters of an impact model with restitution factor `chi_factor`.
pub fn mix_impact(spec: &ImpactSpec, pair: &PairContext<'_>, chi_factor: f64) -> ImpactParams {
    ImpactParams {
        e_eff: effective_young(pair.a, pair.b) as f32,
        stiffness: spec.stiffness.unwrap_or(0.0) as f32,
        exponent: spec.exponent as f32,
        chi_factor: chi_factor as f32,
        min_impact_velocity: spec.min_impact_velocity as f32,
        damping: spec.damping as f32,
    }
}

/// The elastic shape a later law sees: Hertz for exponents from 1.25 up, linear below.
pub fn impact_spring(spec: &ImpactSpec) -> Option<SpringShape> {
    Some(if spec.exponent >= 1.25 {
        SpringShape::Hertz
    } else {
        SpringShape::Linear
    })
}

/// Collision time (s) of the spring alone (the dashpot only shortens it).
pub fn impact_collision_time(spec: &ImpactSpec, c: &CollisionContext<'_>) -> f64 {
    let k = spec.stiffness.unwrap_or_else(|| c.hertz_stiffness());
    c.power_law_time(k, spec.exponent)
}

/// A random parity case of an impact model: Hertz or a given stiffness, exponents 1 to 2,
/// histories of a contact under way (or starting, or resting).
pub fn impact_parity_case(
    rng: &mut SplitMix,
    i: usize,
    chi_factor: f64,
) -> ParityCase<ImpactParams, ImpactHistory> {
    let geom = random_geom(rng, i);
    let given = rng.chance(0.5);
    let exponent = if given {
        rng.range(1.0, 2.0) as f32
    } else {
        1.5
    };
    let impact_velocity = match i % 3 {
        0 => 0.0,
        1 => -1.0,
        _ => rng.log_uniform(1e-3, 1.0),
    };
    ParityCase {
        geom,
        params: ImpactParams {
            e_eff: rng.log_uniform(1e6, 1e11),
            stiffness: if given {
                rng.log_uniform(1e2, 1e9)
            } else {
                0.0
            },
            exponent,
            chi_factor: chi_factor as f32,
            min_impact_velocity: if rng.chance(0.3) {
                rng.log_uniform(1e-3, 1.0)
            } else {
                0.0
            },
            damping: if rng.chance(0.3) {
                rng.log_uniform(1e-6, 1.0)
            } else {
                0.0
            },
        },
        history: ImpactHistory {
            impact_velocity,
            f_damp_prev: rng.range(-1e-3, 1e-3) as f32,
        },
        force: ContactForce::default(),
    }
}

/// Hunt and Crossley's restitution factor `chi v0 / k = 3/2 (1 - e)`.
pub fn hunt_crossley_factor(e: f64) -> f64 {
    1.5 * (1.0 - e)
}

/// What tells the impact models apart: their keyword, their restitution factor and their twin.
pub trait ImpactModel {
    /// Scene keyword.
    const KEYWORD: &'static str;
    /// `chi v0 / k` for the requested restitution.
    fn factor(e: f64) -> f64;
    /// The model's CPU twin (`law_<keyword>`).
    fn law(g: &ContactGeom, p: &ImpactParams, h: &mut ImpactHistory, f: &mut ContactForce);
}

/// An impact model as a [`Law`]: everything but [`ImpactModel`] is shared.
pub struct Impact<M>(std::marker::PhantomData<M>);

/// Hunt and Crossley's model.
pub struct HuntCrossleyModel;

impl ImpactModel for HuntCrossleyModel {
    const KEYWORD: &'static str = "hunt_crossley";
    fn factor(e: f64) -> f64 {
        hunt_crossley_factor(e)
    }
    fn law(g: &ContactGeom, p: &ImpactParams, h: &mut ImpactHistory, f: &mut ContactForce) {
        law_hunt_crossley(g, p, h, f)
    }
}

/// The `hunt_crossley` law.
pub type HuntCrossley = Impact<HuntCrossleyModel>;

impl<M: ImpactModel> Law for Impact<M> {
    const KEYWORD: &'static str = M::KEYWORD;
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &[
        "restitution",
        "exponent",
        "stiffness",
        "min_impact_velocity",
        "damping",
    ];
    const HISTORY_WORDS: &'static [Word] = &[Word::Own, Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = ImpactParams;
    type History = ImpactHistory;
    type Spec = ImpactSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ImpactSpec, K::Error> {
        parse_impact(keys)
    }

    fn spring(spec: &ImpactSpec) -> Option<SpringShape> {
        impact_spring(spec)
    }

    fn mix(spec: &ImpactSpec, pair: &PairContext<'_>) -> ImpactParams {
        mix_impact(spec, pair, M::factor(spec.restitution))
    }

    fn range(_: &ImpactSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(spec: &ImpactSpec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(impact_collision_time(spec, c))
    }

    /// `m*/d_c` of the linear contact damping, when there is one.
    fn damping_time(spec: &ImpactSpec, c: &DampingContext<'_>) -> Option<f64> {
        c.dashpot_time(spec.damping)
    }

    fn apply(g: &ContactGeom, p: &ImpactParams, h: &mut ImpactHistory, f: &mut ContactForce) {
        M::law(g, p, h, f)
    }
}

impl<M: ImpactModel> LawTwin for Impact<M> {
    // `powf` on the CPU against WGSL's `pow` (exp2 of a log2 on most drivers: a few ulps of
    // the exponent's product, magnified by n), and a dashpot that nearly cancels the spring
    // while unloading: 1e-4.
    const PARITY_TOLERANCE: f32 = 1e-4;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<ImpactParams, ImpactHistory> {
        let e = rng.range(0.05, 1.0);
        impact_parity_case(rng, i, M::factor(e))
    }
}
