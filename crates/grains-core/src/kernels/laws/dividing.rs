//! The force that drives the two halves of a dividing cell apart. WGSL twin:
//! `shaders/laws/dividing.wgsl` (the kernel it shares with `budding` is
//! `shaders/lib/division.wgsl`).
//!
//! Mpacts N_Dividing (`shared/reference/000`): a linear controller on the division error
//! `e = s_target(t) - s`, the target separation at time `t` after the start of cytokinesis
//! less the actual centre distance `s`, with stiffness `k_rep` while the halves are too close
//! (`e > 0`, pushing apart) and `k_att` while too far (`e < 0`, pulling together):
//! `F = k e` along the line of centres. The target ramps linearly over the cytokinesis,
//! `s_target = s0 + (s1 - s0) t / T`, from `s0 = c0 (R1 + R2)` to `s1 = c1 (R1 + R2)`
//! (`R1 + R2` the two contact lengths, the radii for spheres). In the overdamped mode two halves
//! of drag `gamma_0` each then separate at the ramp's speed `v` with a steady lag
//! `gamma_0 v / (2 k_rep)`.
//!
//! A division law is not additive (`Law::OVERWRITES`): while `t < T` it SETS the chain's
//! result (force `F`, no torques, no dissipation, the stiffness `k` for the implicit modes'
//! matrix, the controller's energy `k e^2 / 2`), so the laws before it contribute nothing to a
//! dividing pair; it must be the last law of the `extra` slot, the last slot that acts on
//! forces, and the friction block is `dividing_resistance`'s to set. From `t = T` on it does
//! nothing and the pair is an ordinary contact. `t` counts the pair's evaluations (its
//! history), `t = n dt`, so it starts when the pair's record does: a `[[bond]]` from the
//! run's first step. The controller's work is not booked in the ledger (it is the cell's own).
//!
//! Scene keys (in the `extra` slot): `repulsive_stiffness` (N/m, required),
//! `attractive_stiffness` (N/m, default `repulsive_stiffness`), `duration` (T, s, required),
//! `start_separation_ratio` (c0, default 0), `end_separation_ratio` (c1, default 1: the halves
//! just touch).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of a division law.
    pub struct DivisionParams {
        /// `k_rep` (N/m).
        pub repulsive: f32,
        /// `k_att` (N/m).
        pub attractive: f32,
        /// The cytokinesis' duration `T` (s).
        pub duration: f32,
        /// `c0`: the target's start over `R1 + R2` (`dividing` only).
        pub start_ratio: f32,
        /// `c1`: the target's end over `R1 + R2` (`dividing` only).
        pub end_ratio: f32,
    }

    /// Per-pair history of a division law.
    pub struct DivisionHistory {
        /// Evaluations since the pair's record began: `t = n dt`.
        pub evaluations: u32,
    }
}

/// Scene settings of `dividing` and `budding`.
#[derive(Clone, Debug, PartialEq)]
pub struct DivisionSpec {
    pub repulsive: f64,
    pub attractive: f64,
    pub duration: f64,
    pub start_ratio: f64,
    pub end_ratio: f64,
}

/// The shared controller: while `t < T`, sets the chain's result to `F = k e` along the line
/// of centres with `e = s0 + (s1 - s0) t / T - s`.
pub fn law_division(
    geom: &ContactGeom,
    params: &DivisionParams,
    s0: f32,
    s1: f32,
    history: &mut DivisionHistory,
    force: &mut ContactForce,
) {
    let t = history.evaluations as f32 * geom.dt;
    if t >= params.duration {
        return;
    }
    history.evaluations += 1;
    let s = geom.lengths[0] + geom.lengths[1] - geom.delta;
    let e = s0 + (s1 - s0) * (t / params.duration) - s;
    let k = if e > 0.0 {
        params.repulsive
    } else {
        params.attractive
    };
    let f = k * e;
    *force = ContactForce {
        force: (v3(geom.normal) * -f).to_array(),
        normal_force: f.max(0.0),
        stiffness: k,
        elastic: 0.5 * k * e * e,
        gamma_n: force.gamma_n,
        gamma_t: force.gamma_t,
        ..ContactForce::default()
    };
}

/// The dividing force: the target from `c0 (R1 + R2)` to `c1 (R1 + R2)`.
pub fn law_dividing(
    geom: &ContactGeom,
    params: &DivisionParams,
    history: &mut DivisionHistory,
    force: &mut ContactForce,
) {
    let sum = geom.lengths[0] + geom.lengths[1];
    let s0 = params.start_ratio * sum;
    let s1 = params.end_ratio * sum;
    law_division(geom, params, s0, s1, history, force);
}

/// A random parity case of a division law: before, across and after the cytokinesis, with an
/// earlier law's force and block to overwrite or keep.
pub fn division_case(rng: &mut SplitMix, i: usize) -> ParityCase<DivisionParams, DivisionHistory> {
    let geom = random_geom(rng, i);
    let duration = geom.dt * rng.range(10.0, 1e4) as f32;
    let steps = (duration / geom.dt) as u32;
    let evaluations = match i % 4 {
        0 => 0,
        1 => steps + 1,
        _ => (steps as f64 * rng.range(0.0, 1.2)) as u32,
    };
    let start_ratio = rng.range(0.0, 0.5) as f32;
    ParityCase {
        force: crate::parity::random_prior_force(rng, &geom),
        geom,
        params: DivisionParams {
            repulsive: rng.log_uniform(1e-3, 1e4),
            attractive: rng.log_uniform(1e-3, 1e4),
            duration,
            start_ratio,
            end_ratio: start_ratio + rng.range(0.2, 1.2) as f32,
        },
        history: DivisionHistory { evaluations },
    }
}

/// What tells the division laws apart: their keyword and keys, and their target's start and
/// end. Everything else of their [`Law`] is [`Division`]'s.
pub trait DivisionTarget {
    /// Scene keyword.
    const KEYWORD: &'static str;
    /// Its scene keys: `repulsive_stiffness`, `attractive_stiffness` and `duration`, which
    /// every division law reads, and its own.
    const KEYS: &'static [&'static str];
    /// Its own keys, read into `spec`.
    fn parse_own<K: LawKeys>(keys: &K, spec: &mut DivisionSpec) -> Result<(), K::Error>;
    /// How far past touching the target's end is, for the largest pair (m).
    fn range(spec: &DivisionSpec, pair: &PairContext<'_>) -> f64;
    /// The law's CPU twin (`law_<keyword>`).
    fn law(g: &ContactGeom, p: &DivisionParams, h: &mut DivisionHistory, f: &mut ContactForce);
}

/// A division law as a [`Law`]: everything but [`DivisionTarget`] is shared.
pub struct Division<T>(std::marker::PhantomData<T>);

/// Two halves: the target from `c0 (R1 + R2)` to `c1 (R1 + R2)`.
pub struct Halves;

impl DivisionTarget for Halves {
    const KEYWORD: &'static str = "dividing";
    const KEYS: &'static [&'static str] = &[
        "repulsive_stiffness",
        "attractive_stiffness",
        "duration",
        "start_separation_ratio",
        "end_separation_ratio",
    ];

    fn parse_own<K: LawKeys>(keys: &K, spec: &mut DivisionSpec) -> Result<(), K::Error> {
        let c0 = keys.non_negative("start_separation_ratio", "(a ratio)")?;
        let c1 = keys.positive("end_separation_ratio", "(a ratio)")?;
        spec.start_ratio = c0.unwrap_or(0.0);
        spec.end_ratio = c1.unwrap_or(1.0);
        if spec.end_ratio <= spec.start_ratio {
            return Err(keys.error(
                "end_separation_ratio",
                format!(
                    "the end separation ratio ({}) must exceed the start's ({}): the halves move apart",
                    spec.end_ratio, spec.start_ratio
                ),
            ));
        }
        Ok(())
    }

    fn range(spec: &DivisionSpec, pair: &PairContext<'_>) -> f64 {
        ((spec.end_ratio - 1.0) * pair.lengths_max).max(0.0)
    }

    fn law(g: &ContactGeom, p: &DivisionParams, h: &mut DivisionHistory, f: &mut ContactForce) {
        law_dividing(g, p, h, f)
    }
}

/// The `dividing` law.
pub type Dividing = Division<Halves>;

impl<T: DivisionTarget> Law for Division<T> {
    const KEYWORD: &'static str = T::KEYWORD;
    const SLOT: Slot = Slot::Extra;
    const KEYS: &'static [&'static str] = T::KEYS;
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact];
    const ENERGY: &'static [&'static str] = &["elastic"];
    const OVERWRITES: bool = true;
    type Params = DivisionParams;
    type History = DivisionHistory;
    type Spec = DivisionSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DivisionSpec, K::Error> {
        let rep = keys.positive("repulsive_stiffness", "N/m")?;
        let rep = required(keys, "repulsive_stiffness", "a positive number (N/m)", rep)?;
        let att = keys.positive("attractive_stiffness", "N/m")?;
        let t = keys.positive("duration", "s")?;
        let mut spec = DivisionSpec {
            repulsive: rep,
            attractive: att.unwrap_or(rep),
            duration: required(keys, "duration", "a positive number (s)", t)?,
            start_ratio: 0.0,
            end_ratio: 1.0,
        };
        T::parse_own(keys, &mut spec)?;
        Ok(spec)
    }

    fn spring(_: &DivisionSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &DivisionSpec, _: &PairContext<'_>) -> DivisionParams {
        DivisionParams {
            repulsive: spec.repulsive as f32,
            attractive: spec.attractive as f32,
            duration: spec.duration as f32,
            start_ratio: spec.start_ratio as f32,
            end_ratio: spec.end_ratio as f32,
        }
    }

    fn range(spec: &DivisionSpec, pair: &PairContext<'_>) -> f64 {
        T::range(spec, pair)
    }

    /// The controller's oscillation on its stiffer side between two equal bodies.
    fn collision_time(spec: &DivisionSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let k = spec.repulsive.max(spec.attractive);
        Some(std::f64::consts::PI * (c.m_eff / k).sqrt())
    }

    fn apply(
        g: &ContactGeom,
        p: &DivisionParams,
        h: &mut DivisionHistory,
        f: &mut ContactForce,
    ) {
        T::law(g, p, h, f)
    }
}

impl<T: DivisionTarget> LawTwin for Division<T> {
    // A product of a difference of lengths near the pair's size: a few f32 ulps of the
    // lengths, relative to the force scale, 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DivisionParams, DivisionHistory> {
        division_case(rng, i)
    }
}
