//! Linear spring between two bodies, for bonds and spring networks. WGSL twin:
//! `shaders/laws/spring.wgsl`.
//!
//! `F = k (d0 - d)` along the line of centres, `d` the centre distance, `d0` the rest length
//! (Mpacts Spring, `shared/reference/000`): `k` is `stiffness` while stretched and
//! `compression_stiffness` while compressed. Without a rest length, `d0` is the distance at
//! the spring's first evaluation. Beyond `rupture_length` the spring breaks, permanently; its
//! history keeps the step at which it broke.
//!
//! Its siblings share this module's kernel (`law_spring_element`, WGSL
//! `lib/spring_element.wgsl`) and records: `spring_damper` adds a dashpot in parallel,
//! `F_d = -c v_r` (Mpacts Spring_Damper); `serial_dashpot` puts one in series (a Maxwell
//! element): the rest length relaxes towards the current length, `dd0/dt = -F/c`, i.e.
//! `d0(t + dt) = d + (d0 - d) exp(-dt / tau)` with `tau = c / k` (Mpacts SerialDashpot), while
//! `d / d0` exceeds `slip_threshold`.
//!
//! Energy: `k (d - d0)^2 / 2` is stored (elastic). What a break releases, what the relaxation
//! of the rest length takes out, and the parallel dashpot's trapezoid are dissipated (damping),
//! so the ledger closes through a break.
//!
//! Scene keys: `stiffness` (N/m, required), `compression_stiffness` (N/m, default
//! `stiffness`), `rest_length` (m or `"initial"`, the default), `rupture_length` (m, optional);
//! `spring_damper` adds `damping` (N s/m, required); `serial_dashpot` adds `relaxation_time`
//! (s, required) and `slip_threshold` (default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the spring elements (WGSL: `lib/spring_element.wgsl`).
    pub struct SpringParams {
        /// Stiffness while stretched (N/m).
        pub stretch: f32,
        /// Stiffness while compressed (N/m).
        pub compression: f32,
        /// Rest length `d0` (m); negative: the length at the first evaluation.
        pub rest_length: f32,
        /// Length beyond which the spring breaks (m); 0: never.
        pub rupture_length: f32,
        /// Parallel dashpot `c` (N s/m); 0 for none.
        pub damping: f32,
        /// Serial dashpot's relaxation time `tau = c / k` (s); 0 for none.
        pub relaxation_time: f32,
        /// The rest length relaxes only while `d / d0` exceeds this.
        pub slip_threshold: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the spring elements (WGSL: `lib/spring_element.wgsl`).
    pub struct SpringHistory {
        /// Current rest length (m).
        pub rest: f32,
        /// [`SPRING_NEW`], [`SPRING_INTACT`] or [`SPRING_BROKEN`].
        pub state: u32,
        /// Evaluations while intact: for a fixed pair, evaluated from step 0 on, the step at which
        /// it broke.
        pub age: u32,
        /// Parallel dashpot force of the previous step (N, positive repulsive).
        pub f_prev: f32,
    }
}

/// A spring not evaluated yet.
pub const SPRING_NEW: u32 = 0;
/// A spring that holds.
pub const SPRING_INTACT: u32 = 1;
/// A spring stretched past its rupture length: it exerts nothing, for good.
pub const SPRING_BROKEN: u32 = 2;

/// Scene settings of the spring elements.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringSpec {
    /// Stiffness while stretched (N/m).
    pub stiffness: f64,
    /// Stiffness while compressed (N/m).
    pub compression_stiffness: f64,
    /// Rest length (m); `None`: the initial length.
    pub rest_length: Option<f64>,
    /// Rupture length (m).
    pub rupture_length: Option<f64>,
    /// Parallel dashpot (N s/m), `spring_damper`.
    pub damping: f64,
    /// Relaxation time (s), `serial_dashpot`.
    pub relaxation_time: f64,
    /// Slip threshold, `serial_dashpot`.
    pub slip_threshold: f64,
}

/// The shared kernel of `spring`, `spring_damper` and `serial_dashpot`.
pub fn law_spring_element(
    geom: &ContactGeom,
    params: &SpringParams,
    history: &mut SpringHistory,
    force: &mut ContactForce,
) {
    if history.state == SPRING_BROKEN {
        return;
    }
    let n = v3(geom.normal);
    // The resolvers give the overlap of the two spheres; the spring needs the distance.
    let d = geom.lengths[0] + geom.lengths[1] - geom.delta;
    if history.state == SPRING_NEW {
        history.rest = if params.rest_length >= 0.0 {
            params.rest_length
        } else {
            d
        };
        history.state = SPRING_INTACT;
    }
    // Approach rate: positive while the bodies move towards each other.
    let vn = v3(geom.vrel).dot(n);
    if params.rupture_length > 0.0 && d > params.rupture_length {
        // What the spring would hold now, and the dashpot's last half step, are let go.
        let s = d - history.rest;
        let k = if s > 0.0 {
            params.stretch
        } else {
            params.compression
        };
        force.damping_dissipated += 0.5 * k * s * s + 0.5 * history.f_prev * vn * geom.dt;
        history.state = SPRING_BROKEN;
        history.f_prev = 0.0;
        return;
    }
    let s = d - history.rest;
    let k = if s > 0.0 {
        params.stretch
    } else {
        params.compression
    };
    let f = -k * s;
    let fd = params.damping * vn;
    force.force = (v3(force.force) - n * (f + fd)).to_array();
    force.normal_force += f + fd;
    force.stiffness += k;
    // Across the line of centres a stretched spring stiffens as it turns: `k (1 - d0/d)`
    // (Mpacts SpringStiffness), for the implicit solve's stiffness block.
    if d > 0.0 {
        force.stiffness_t += k * s / d;
    }
    force.damping_dissipated += 0.5 * (history.f_prev + fd) * vn * geom.dt;
    history.f_prev = fd;
    let mut elastic = 0.5 * k * s * s;
    if params.relaxation_time > 0.0 && d > params.slip_threshold * history.rest {
        let rest = d - s * (-geom.dt / params.relaxation_time).exp();
        let s2 = d - rest;
        let k2 = if s2 > 0.0 {
            params.stretch
        } else {
            params.compression
        };
        let relaxed = 0.5 * k2 * s2 * s2;
        force.damping_dissipated += elastic - relaxed;
        elastic = relaxed;
        history.rest = rest;
    }
    force.elastic += elastic;
    history.age += 1;
}

/// The `spring` law.
pub fn law_spring(
    geom: &ContactGeom,
    params: &SpringParams,
    history: &mut SpringHistory,
    force: &mut ContactForce,
) {
    law_spring_element(geom, params, history, force)
}

/// What tells the spring elements apart: keyword, keys and their twin.
pub trait SpringModel {
    /// Scene keyword.
    const KEYWORD: &'static str;
    /// All its keys.
    const KEYS: &'static [&'static str];
    /// Parse the extra keys into `spec`.
    fn parse_extra<K: LawKeys>(keys: &K, spec: &mut SpringSpec) -> Result<(), K::Error>;
    /// The model's CPU twin (`law_<keyword>`).
    fn law(g: &ContactGeom, p: &SpringParams, h: &mut SpringHistory, f: &mut ContactForce);
}

/// A spring element as a [`Law`]: everything but [`SpringModel`] is shared.
pub struct SpringElement<M>(std::marker::PhantomData<M>);

/// The plain spring.
pub struct SpringOnly;

impl SpringModel for SpringOnly {
    const KEYWORD: &'static str = "spring";
    const KEYS: &'static [&'static str] = &[
        "stiffness",
        "compression_stiffness",
        "rest_length",
        "rupture_length",
    ];
    fn parse_extra<K: LawKeys>(_: &K, _: &mut SpringSpec) -> Result<(), K::Error> {
        Ok(())
    }
    fn law(g: &ContactGeom, p: &SpringParams, h: &mut SpringHistory, f: &mut ContactForce) {
        law_spring(g, p, h, f)
    }
}

/// The `spring` law.
pub type Spring = SpringElement<SpringOnly>;

/// Parse the keys every spring element takes.
fn parse_spring<K: LawKeys>(keys: &K) -> Result<SpringSpec, K::Error> {
    let k = keys.positive("stiffness", "N/m")?;
    let stiffness = required(keys, "stiffness", "a positive number (N/m)", k)?;
    let compression_stiffness = keys
        .positive("compression_stiffness", "N/m")?
        .unwrap_or(stiffness);
    let rest_length = if keys.has("rest_length") {
        match keys.string("rest_length", "a length (m) or \"initial\"") {
            Ok(Some(s)) if s == "initial" => None,
            Ok(Some(_)) => {
                return Err(keys.error(
                    "rest_length",
                    format!(
                        "expected a positive length (m) or \"initial\", found {}",
                        keys.found("rest_length")
                    ),
                ))
            }
            _ => Some(required(
                keys,
                "rest_length",
                "a positive length (m) or \"initial\"",
                keys.positive("rest_length", "m")?,
            )?),
        }
    } else {
        None
    };
    let rupture_length = keys.positive("rupture_length", "m")?;
    if let (Some(r), Some(d)) = (rupture_length, rest_length) {
        if r <= d {
            return Err(keys.conflict(
                "rupture_length",
                "rest_length",
                format!(
                    "rupture_length ({}) must be longer than rest_length ({})",
                    crate::units::qty(r, "m"),
                    crate::units::qty(d, "m")
                ),
            ));
        }
    }
    Ok(SpringSpec {
        stiffness,
        compression_stiffness,
        rest_length,
        rupture_length,
        damping: 0.0,
        relaxation_time: 0.0,
        slip_threshold: 0.0,
    })
}

impl<M: SpringModel> Law for SpringElement<M> {
    const KEYWORD: &'static str = M::KEYWORD;
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = M::KEYS;
    const HISTORY_WORDS: &'static [Word] = &[Word::Length, Word::Exact, Word::Exact, Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = SpringParams;
    type History = SpringHistory;
    type Spec = SpringSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<SpringSpec, K::Error> {
        let mut spec = parse_spring(keys)?;
        M::parse_extra(keys, &mut spec)?;
        Ok(spec)
    }

    fn spring(_: &SpringSpec) -> Option<SpringShape> {
        Some(SpringShape::Linear)
    }

    fn mix(spec: &SpringSpec, _: &PairContext<'_>) -> SpringParams {
        SpringParams {
            stretch: spec.stiffness as f32,
            compression: spec.compression_stiffness as f32,
            rest_length: spec.rest_length.map(|d| d as f32).unwrap_or(-1.0),
            rupture_length: spec.rupture_length.unwrap_or(0.0) as f32,
            damping: spec.damping as f32,
            relaxation_time: spec.relaxation_time as f32,
            slip_threshold: spec.slip_threshold as f32,
        }
    }

    /// On the neighbour list a spring acts while the surfaces touch; on fixed pairs (bonds),
    /// which are evaluated at any distance, until it breaks.
    fn range(_: &SpringSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    /// Half the period of the stiffer side's oscillation, `pi sqrt(m*/k)`.
    fn collision_time(spec: &SpringSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let k = spec.stiffness.max(spec.compression_stiffness);
        Some(std::f64::consts::PI * (c.m_eff / k).sqrt())
    }

    fn apply(g: &ContactGeom, p: &SpringParams, h: &mut SpringHistory, f: &mut ContactForce) {
        M::law(g, p, h, f)
    }

    /// A broken spring's `age` is the step it broke at (for a fixed pair, evaluated from
    /// step 0 on).
    fn broken_at(h: &SpringHistory) -> Option<u64> {
        (h.state == SPRING_BROKEN).then_some(h.age as u64)
    }
}

impl<M: SpringModel> LawTwin for SpringElement<M> {
    // Products, a dot product and one exp: a few ulps; 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<SpringParams, SpringHistory> {
        spring_case(rng, i)
    }
}

/// A random case of the spring elements: new, intact or broken; stretched or compressed; with
/// or without rupture, dashpots and relaxation (every model's kernel takes every branch).
pub fn spring_case(rng: &mut SplitMix, i: usize) -> ParityCase<SpringParams, SpringHistory> {
    let geom = random_geom(rng, i);
    let d = geom.lengths[0] + geom.lengths[1] - geom.delta;
    let rest = d * rng.range(0.7, 1.3) as f32;
    let state = match i % 5 {
        0 => SPRING_NEW,
        1 => SPRING_BROKEN,
        _ => SPRING_INTACT,
    };
    let stretch = rng.log_uniform(1e-2, 1e6);
    ParityCase {
        geom,
        params: SpringParams {
            stretch,
            compression: if rng.chance(0.5) {
                stretch
            } else {
                rng.log_uniform(1e-2, 1e6)
            },
            rest_length: if rng.chance(0.5) { -1.0 } else { rest },
            rupture_length: if rng.chance(0.5) {
                0.0
            } else {
                d * rng.range(0.8, 1.5) as f32
            },
            damping: if rng.chance(0.5) {
                0.0
            } else {
                rng.log_uniform(1e-4, 1e2)
            },
            relaxation_time: if rng.chance(0.5) {
                0.0
            } else {
                rng.log_uniform(1e-7, 1e-2)
            },
            slip_threshold: if rng.chance(0.5) {
                0.0
            } else {
                rng.range(0.9, 1.1) as f32
            },
        },
        history: SpringHistory {
            rest,
            state,
            age: (rng.next_u64() % 1000) as u32,
            f_prev: rng.range(-1.0, 1.0) as f32,
        },
        force: ContactForce::default(),
    }
}
