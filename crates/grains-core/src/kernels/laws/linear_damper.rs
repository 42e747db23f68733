//! Linear normal dashpot, at any distance. WGSL twin: `shaders/laws/linear_damper.wgsl`.
//!
//! `F = -c v_n n` (Mpacts LinearDamper, `shared/reference/000`), for every pair its chain
//! evaluates: meant for fixed pairs (bonds, spring networks), which are evaluated at any
//! distance; on the neighbour list or walls it acts while the surfaces touch. Not clipped: it
//! resists separation as well as approach. Its sibling `linear_damper_overlap` acts only while
//! the surfaces overlap; both share the kernel
//! `law_normal_dashpot` (WGSL `lib/normal_dashpot.wgsl`).
//!
//! Energy: the trapezoid of the force over the step's approach, `(F_prev + F) / 2 v_n dt`, all
//! dissipated (as `viscous.rs` explains).
//!
//! Scene keys: `damping` (c, N s/m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, DampingContext, Law, LawKeys, LawTwin, PairContext, ParityCase,
    SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the linear dashpots (WGSL: `lib/normal_dashpot.wgsl`).
    pub struct NormalDashpotParams {
        /// Damping coefficient `c` (N s/m).
        pub damping: f32,
        /// 1: act only while the surfaces overlap; 0: always.
        pub overlap_only: u32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the linear dashpots (WGSL: `lib/normal_dashpot.wgsl`).
    pub struct NormalDashpotHistory {
        /// Dashpot force of the previous step (N, positive repulsive).
        pub f_prev: f32,
    }
}

/// Scene settings of the linear dashpots.
#[derive(Clone, Debug, PartialEq)]
pub struct NormalDashpotSpec {
    /// `c` (N s/m).
    pub damping: f64,
}

/// The shared kernel: `F = -c v_n n`.
pub fn law_normal_dashpot(
    geom: &ContactGeom,
    params: &NormalDashpotParams,
    history: &mut NormalDashpotHistory,
    force: &mut ContactForce,
) {
    let n = v3(geom.normal);
    // Approach rate d(delta)/dt: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(n);
    let f = params.damping * vn;
    if params.overlap_only != 0 && geom.delta <= 0.0 {
        force.damping_dissipated += 0.5 * history.f_prev * vn * geom.dt;
        history.f_prev = 0.0;
        return;
    }
    force.force = (v3(force.force) - n * f).to_array();
    force.damping_dissipated += 0.5 * (history.f_prev + f) * vn * geom.dt;
    history.f_prev = f;
}

/// The linear dashpot.
pub fn law_linear_damper(
    geom: &ContactGeom,
    params: &NormalDashpotParams,
    history: &mut NormalDashpotHistory,
    force: &mut ContactForce,
) {
    law_normal_dashpot(geom, params, history, force)
}

/// Parse `damping` (required, positive).
pub fn parse_dashpot<K: LawKeys>(keys: &K) -> Result<NormalDashpotSpec, K::Error> {
    let c = keys.positive("damping", "N s/m")?;
    Ok(NormalDashpotSpec {
        damping: required(keys, "damping", "a positive number (N s/m)", c)?,
    })
}

/// A random case of the dashpots: overlapping or apart, any fraction.
pub fn dashpot_case(
    rng: &mut SplitMix,
    i: usize,
    overlap_only: bool,
) -> ParityCase<NormalDashpotParams, NormalDashpotHistory> {
    let mut geom = random_geom(rng, i);
    geom.fraction = if rng.chance(0.5) {
        1.0
    } else {
        rng.range(0.0, 1.0) as f32
    };
    let damping = rng.log_uniform(1e-4, 1e2);
    ParityCase {
        geom,
        params: NormalDashpotParams {
            damping,
            overlap_only: overlap_only as u32,
        },
        history: NormalDashpotHistory {
            f_prev: damping * rng.range(-1.0, 1.0) as f32,
        },
        force: ContactForce::default(),
    }
}

/// What tells the linear dashpots apart: keyword, where they act, and their twin.
pub trait DashpotModel {
    /// Scene keyword.
    const KEYWORD: &'static str;
    /// Only while the surfaces overlap.
    const OVERLAP_ONLY: bool;
    /// The model's CPU twin (`law_<keyword>`).
    fn law(
        g: &ContactGeom,
        p: &NormalDashpotParams,
        h: &mut NormalDashpotHistory,
        f: &mut ContactForce,
    );
}

/// A linear dashpot as a [`Law`]: everything but [`DashpotModel`] is shared.
pub struct NormalDashpot<M>(std::marker::PhantomData<M>);

/// The dashpot at any distance.
pub struct LinearDamperModel;

impl DashpotModel for LinearDamperModel {
    const KEYWORD: &'static str = "linear_damper";
    const OVERLAP_ONLY: bool = false;
    fn law(
        g: &ContactGeom,
        p: &NormalDashpotParams,
        h: &mut NormalDashpotHistory,
        f: &mut ContactForce,
    ) {
        law_linear_damper(g, p, h, f)
    }
}

/// The `linear_damper` law.
pub type LinearDamper = NormalDashpot<LinearDamperModel>;

impl<M: DashpotModel> Law for NormalDashpot<M> {
    const KEYWORD: &'static str = M::KEYWORD;
    const SLOT: Slot = Slot::Damping;
    const KEYS: &'static [&'static str] = &["damping"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Force];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = NormalDashpotParams;
    type History = NormalDashpotHistory;
    type Spec = NormalDashpotSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<NormalDashpotSpec, K::Error> {
        parse_dashpot(keys)
    }

    fn spring(_: &NormalDashpotSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &NormalDashpotSpec, _: &PairContext<'_>) -> NormalDashpotParams {
        NormalDashpotParams {
            damping: spec.damping as f32,
            overlap_only: M::OVERLAP_ONLY as u32,
        }
    }

    fn range(_: &NormalDashpotSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &NormalDashpotSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    /// `m*/c`, the coefficient being constant.
    fn damping_time(spec: &NormalDashpotSpec, c: &DampingContext<'_>) -> Option<f64> {
        c.dashpot_time(spec.damping)
    }

    fn apply(
        g: &ContactGeom,
        p: &NormalDashpotParams,
        h: &mut NormalDashpotHistory,
        f: &mut ContactForce,
    ) {
        M::law(g, p, h, f)
    }
}

impl<M: DashpotModel> LawTwin for NormalDashpot<M> {
    // A product and a dot product: a few ulps; 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<NormalDashpotParams, NormalDashpotHistory> {
        dashpot_case(rng, i, M::OVERLAP_ONLY)
    }
}
