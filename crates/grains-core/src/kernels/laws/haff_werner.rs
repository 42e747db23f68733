//! Haff-Werner viscous Coulomb friction. WGSL twin: `shaders/laws/haff_werner.wgsl`.
//!
//! `F_t = -min(c_t |v_t|, mu F_n) v_t / |v_t|` (Haff & Werner 1986; Mpacts T_CoulombFriction,
//! `shared/reference/000`): a tangential dashpot of coefficient `c_t` capped by the Coulomb
//! limit of the normal force the chain's earlier laws produced. No spring, so no stored
//! energy and no history of the slip; a static contact creeps (use `cundall_strack` for
//! piles at rest).
//!
//! Its kernel is shared with `regularized_coulomb` (`law_viscous_coulomb`, WGSL
//! `lib/viscous_coulomb.wgsl`), which is the same force with `c_t = mu F_n / v_reg`.
//!
//! Energy: the friction force does work at every step; with no stored energy all of it is
//! dissipated. It is booked as the trapezoid `(F_prev + F) / 2 . v dt` over the step's
//! relative displacement, for the reason `viscous.rs` gives (velocity Verlet applies each force
//! half before and half after its instant), so the previous force is kept in the history.
//!
//! Scene keys: `friction` (mu, required), `damping` (c_t, N s/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, DampingContext, Law, LawKeys, LawTwin, PairContext, ParityCase,
    SpringShape, Word,
};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the viscous Coulomb laws (WGSL: `lib/viscous_coulomb.wgsl`).
    pub struct ViscousCoulombParams {
        /// Coulomb coefficient `mu`.
        pub friction: f32,
        /// Dashpot `c_t` (N s/m); 0: `mu F_n / v_reg` (regularised Coulomb).
        pub damping: f32,
        /// Regularisation velocity `v_reg` (m/s), used when `damping` is 0.
        pub regularization_velocity: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the viscous Coulomb laws (WGSL: `lib/viscous_coulomb.wgsl`).
    pub struct ViscousCoulombHistory {
        /// Tangential force of the previous step (N).
        pub f_prev: [f32; 3],
    }
}

/// Scene settings of the viscous Coulomb laws.
#[derive(Clone, Debug, PartialEq)]
pub struct ViscousCoulombSpec {
    pub friction: f64,
    /// `c_t` (N s/m); 0 for `regularized_coulomb`.
    pub damping: f64,
    /// `v_reg` (m/s); 0 for `haff_werner`.
    pub regularization_velocity: f64,
}

/// The shared kernel: a tangential dashpot capped at `mu F_n`.
pub fn law_viscous_coulomb(
    geom: &ContactGeom,
    params: &ViscousCoulombParams,
    history: &mut ViscousCoulombHistory,
    force: &mut ContactForce,
) {
    let vrel = v3(geom.vrel);
    if geom.delta <= 0.0 {
        // The last force's half step.
        force.friction_dissipated -= 0.5 * v3(history.f_prev).dot(vrel) * geom.dt;
        *history = ViscousCoulombHistory::default();
        return;
    }
    let n = v3(geom.normal);
    let vt = vrel - n * vrel.dot(n);
    let speed = vt.length();
    let limit = params.friction * force.normal_force;
    let c = if params.damping > 0.0 {
        params.damping
    } else {
        limit / params.regularization_velocity
    };
    let mag = (c * speed).min(limit);
    let ft = if speed > 0.0 {
        vt * (-mag / speed)
    } else {
        glam::Vec3::ZERO
    };
    force.force = (v3(force.force) + ft).to_array();
    // The force on body 1 opposes its motion relative to body 2: -(F_prev + F) . v dt / 2 >= 0.
    force.friction_dissipated -= 0.5 * (v3(history.f_prev) + ft).dot(vrel) * geom.dt;
    history.f_prev = ft.to_array();
}

/// Haff-Werner friction.
pub fn law_haff_werner(
    geom: &ContactGeom,
    params: &ViscousCoulombParams,
    history: &mut ViscousCoulombHistory,
    force: &mut ContactForce,
) {
    law_viscous_coulomb(geom, params, history, force)
}

/// A random case of the viscous Coulomb laws, after a realistic normal force: dashpot or
/// regularised, sticking or sliding.
pub fn viscous_coulomb_case(
    rng: &mut SplitMix,
    i: usize,
    regularized: bool,
) -> ParityCase<ViscousCoulombParams, ViscousCoulombHistory> {
    let geom = random_geom(rng, i);
    let force = random_prior_force(rng, &geom);
    let friction = rng.range(0.05, 1.0) as f32;
    let (damping, regularization_velocity) = if regularized {
        (0.0, rng.log_uniform(1e-5, 1.0))
    } else {
        (
            force.normal_force * friction / rng.log_uniform(1e-4, 10.0),
            0.0,
        )
    };
    let f = force.normal_force;
    ParityCase {
        geom,
        params: ViscousCoulombParams {
            friction,
            damping,
            regularization_velocity,
        },
        history: ViscousCoulombHistory {
            f_prev: rng.vec3(f as f64),
        },
        force,
    }
}

/// What tells the viscous Coulomb laws apart: keyword, the key of their dashpot, and their
/// twin.
pub trait ViscousCoulombModel {
    /// Scene keyword.
    const KEYWORD: &'static str;
    /// Accepted keys.
    const KEYS: &'static [&'static str];
    /// The dashpot is `mu F_n / v_reg` rather than a given `c_t`.
    const REGULARIZED: bool;
    /// Parse the dashpot's key into the spec.
    fn parse_dashpot<K: LawKeys>(keys: &K, spec: &mut ViscousCoulombSpec) -> Result<(), K::Error>;
    /// The model's CPU twin (`law_<keyword>`).
    fn law(
        g: &ContactGeom,
        p: &ViscousCoulombParams,
        h: &mut ViscousCoulombHistory,
        f: &mut ContactForce,
    );
}

/// A viscous Coulomb law as a [`Law`]: everything but [`ViscousCoulombModel`] is shared.
pub struct ViscousCoulomb<M>(std::marker::PhantomData<M>);

/// Haff and Werner's dashpot.
pub struct HaffWernerModel;

impl ViscousCoulombModel for HaffWernerModel {
    const KEYWORD: &'static str = "haff_werner";
    const KEYS: &'static [&'static str] = &["friction", "damping"];
    const REGULARIZED: bool = false;
    fn parse_dashpot<K: LawKeys>(keys: &K, spec: &mut ViscousCoulombSpec) -> Result<(), K::Error> {
        let c = keys.positive("damping", "N s/m")?;
        spec.damping = required(keys, "damping", "a positive number (N s/m)", c)?;
        Ok(())
    }
    fn law(
        g: &ContactGeom,
        p: &ViscousCoulombParams,
        h: &mut ViscousCoulombHistory,
        f: &mut ContactForce,
    ) {
        law_haff_werner(g, p, h, f)
    }
}

/// The `haff_werner` law.
pub type HaffWerner = ViscousCoulomb<HaffWernerModel>;

impl<M: ViscousCoulombModel> Law for ViscousCoulomb<M> {
    const KEYWORD: &'static str = M::KEYWORD;
    const SLOT: Slot = Slot::Tangential;
    const KEYS: &'static [&'static str] = M::KEYS;
    const HISTORY_WORDS: &'static [Word] = &[Word::Force, Word::Force, Word::Force];
    const ENERGY: &'static [&'static str] = &["friction"];
    type Params = ViscousCoulombParams;
    type History = ViscousCoulombHistory;
    type Spec = ViscousCoulombSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<ViscousCoulombSpec, K::Error> {
        let mu = keys.non_negative("friction", "(dimensionless)")?;
        let mut spec = ViscousCoulombSpec {
            friction: required(keys, "friction", "a number >= 0 (dimensionless)", mu)?,
            damping: 0.0,
            regularization_velocity: 0.0,
        };
        M::parse_dashpot(keys, &mut spec)?;
        Ok(spec)
    }

    fn spring(_: &ViscousCoulombSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &ViscousCoulombSpec, _: &PairContext<'_>) -> ViscousCoulombParams {
        ViscousCoulombParams {
            friction: spec.friction as f32,
            damping: spec.damping as f32,
            regularization_velocity: spec.regularization_velocity as f32,
        }
    }

    fn range(_: &ViscousCoulombSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &ViscousCoulombSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    /// `m*/c_t` of the tangential dashpot while it is below the Coulomb bound.
    fn damping_time(spec: &ViscousCoulombSpec, c: &DampingContext<'_>) -> Option<f64> {
        c.dashpot_time(spec.damping)
    }

    fn apply(
        g: &ContactGeom,
        p: &ViscousCoulombParams,
        h: &mut ViscousCoulombHistory,
        f: &mut ContactForce,
    ) {
        M::law(g, p, h, f)
    }
}

impl<M: ViscousCoulombModel> LawTwin for ViscousCoulomb<M> {
    // A projection, a length and a division: a few ulps; 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<ViscousCoulombParams, ViscousCoulombHistory> {
        viscous_coulomb_case(rng, i, M::REGULARIZED)
    }
}
