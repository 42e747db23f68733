//! Cundall-Strack tangential spring with a Coulomb limit. WGSL twin:
//! `shaders/laws/cundall_strack.wgsl`.
//!
//! The spring displacement `xi` grows by the tangential relative velocity times `dt`; before
//! that it is rotated into the current tangent plane (its normal component removed and its
//! length kept), so a rolling contact does not leak force into the normal direction
//! (Cundall & Strack 1979; Woo's "Linear contact model", shared/reference/001; Luding 2008).
//! `k_t` is `stiffness_ratio * k_n` or Mindlin's `8 G* sqrt(R* delta)` (Mindlin 1949).
//! While sticking the limit is `mu_static F_n`; once it slips the limit is `mu_dynamic F_n`
//! until the trial force falls below it again.
//!
//! Energy: with a stiffness that follows the overlap (Mindlin, or a ratio of a Hertz tangent
//! stiffness) the spring is not conservative, so `|F|^2 / 2 k_t` is not the energy it holds.
//! The law books instead the work the applied force does on the spring over the step, the
//! trapezoid `-(F_prev + F) / 2 . dxi` (previous force from the previous `k_t` kept in the
//! history), keeps the sum in the history, and on a slip books as friction dissipation
//! whatever exceeds the energy `|F_limit|^2 / 2 k_t` the spring keeps. In steady sliding that is
//! `F_limit |dxi|` per step, the friction work; the ledger closes to O(dt^2). When the overlap
//! opens, the energy still held is booked as friction dissipation.
//!
//! Why this slip dissipation and not another. An explicit Coulomb return takes a trial force
//! `F_trial = F_prev - k_t dxi` and scales it back to the cone. Three bookings are in use:
//! (a) the trial-force parallelogram, `F_limit |xi_trial - xi_returned|`; (b) its half-step
//! variant, with the mean of the old and new limits; (c) the work done on the spring less the
//! change of its elastic potential, `W - (U_new - U_old)`. The integrator moves kinetic energy
//! by the trapezoid work of the contact forces (velocity Verlet), so the ledger closes exactly
//! when the dissipation is that same trapezoid work less what the spring keeps: (c), with the
//! trapezoid for `W`. (a) and (b) agree with (c) in steady sliding (`U` unchanged, both give
//! `F_limit |dxi|`) but not on the step that crosses from stick to slip, nor when `k_t` or
//! `F_n` changes within a step (Mindlin, a bouncing contact): there they book the slip with
//! the limit force while the integrator used the trial force for half a step, and the ledger
//! drifts by O(dt) per slip event. Hence (c).
//!
//! Scene keys: `friction` (required), `friction_static` (>= friction, default friction),
//! `stiffness_ratio` (k_t/k_n) or `stiffness = "mindlin"` (the default after a Hertz-type
//! normal law; after a linear one, a ratio of 0.2), `form` (`"cundall_strack"`, the default,
//! or `"liggghts"` with `restitution`).
//!
//! `form = "liggghts"` is LIGGGHTS' `tangential history` (its documentation, spelled out in
//! shared/peers/README.md): `xi += v_t dt`, then `xi -= (xi . n) n` (the length not kept); past
//! the Coulomb bound the force is scaled to it and `xi = -F_t / k_t`, with no damping; while
//! sticking `F_t -= gamma_t v_t` with `gamma_t = 2 sqrt(5/6) |beta| sqrt(k_t m*)` (`beta` of
//! `restitution`), booked as damping (`-F_d . v_t dt`). It is the form for comparing with
//! LIGGGHTS; the ledger's spring bookkeeping is the same as above.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, required_restitution, CollisionContext, Law, LawKeys, LawTwin, PairContext,
    ParityCase, SpringShape, Word,
};
use crate::material::effective_shear;
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

/// `k_t / k_n` when neither a ratio nor Mindlin is asked for after a linear normal law.
pub const DEFAULT_STIFFNESS_RATIO: f64 = 0.2;

crate::gpu_struct! {
    /// Per-pair parameters of the Cundall-Strack spring.
    pub struct CundallStrackParams {
        /// Static friction coefficient (limit while sticking).
        pub mu_static: f32,
        /// Dynamic friction coefficient (limit while sliding).
        pub mu_dynamic: f32,
        /// `k_t = stiffness_ratio * k_n` when `mindlin == 0`.
        pub stiffness_ratio: f32,
        /// Non-zero: Mindlin stiffness `k_t = 8 G* sqrt(R* delta)`.
        pub mindlin: u32,
        /// Effective shear modulus `G*` (Pa) for the Mindlin stiffness.
        pub g_eff: f32,
        /// Non-zero: LIGGGHTS' tangential history (`form = "liggghts"`): the spring is projected
        /// onto the tangent plane after its increment without keeping its length, and damped while
        /// it sticks.
        pub liggghts: u32,
        /// Damping ratio of the sticking spring's dashpot `2 zeta_t sqrt(k_t m*) v_t`
        /// (`form = "liggghts"`: `sqrt(5/6) |beta|` of the normal restitution).
        pub zeta_t: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the Cundall-Strack spring.
    pub struct CundallStrackHistory {
        /// Spring displacement (m), kept in the current tangent plane.
        pub xi: [f32; 3],
        /// 1 while the contact slides (dynamic friction applies), else 0.
        pub sliding: f32,
        /// Energy held by the spring (J): the work done on it.
        pub stored: f32,
        /// Tangential stiffness of the previous step (N/m).
        pub kt_prev: f32,
    }
}

/// Tangential stiffness of the spring.
#[derive(Clone, Debug, PartialEq)]
pub enum TangentialStiffness {
    /// `k_t = ratio * k_n` (tangent normal stiffness).
    Ratio(f64),
    /// Mindlin's `8 G* sqrt(R* delta)`.
    Mindlin,
}

/// Scene settings of `cundall_strack`.
#[derive(Clone, Debug, PartialEq)]
pub struct CundallStrackSpec {
    /// Dynamic (sliding) coefficient.
    pub friction: f64,
    /// Static coefficient (>= friction).
    pub friction_static: f64,
    /// `Some(e)`: LIGGGHTS' form (`form = "liggghts"`, `restitution = e`), whose sticking
    /// dashpot is LIGGGHTS' `gamma_t = 2 sqrt(5/6) |beta(e)| sqrt(S_t m*)`.
    pub liggghts: Option<f64>,
    /// The stiffness; `None` takes Mindlin after a Hertz-type normal law and
    /// [`DEFAULT_STIFFNESS_RATIO`] after a linear one.
    pub stiffness: Option<TangentialStiffness>,
}

/// Tangential spring with static/dynamic Coulomb limit.
pub fn law_cundall_strack(
    geom: &ContactGeom,
    params: &CundallStrackParams,
    history: &mut CundallStrackHistory,
    force: &mut ContactForce,
) {
    if geom.delta <= 0.0 {
        // The spring lets go: what it held is lost, not returned (an adhesive normal law can
        // keep a Coulomb limit, and so spring energy, up to the moment the overlap opens).
        force.friction_dissipated += history.stored;
        *history = CundallStrackHistory::default();
        return;
    }
    let n = v3(geom.normal);
    let vrel = v3(geom.vrel);
    let vt = vrel - n * vrel.dot(n);
    let mut xi = v3(history.xi);
    let dxi = vt * geom.dt;
    let f_prev;
    if params.liggghts != 0 {
        // LIGGGHTS: the increment first, then the projection, the length not kept.
        f_prev = -xi * history.kt_prev;
        xi += dxi;
        xi -= n * xi.dot(n);
    } else {
        let xi_len = xi.length();
        xi -= n * xi.dot(n);
        let xi_plane = xi.length();
        if xi_plane > 0.0 {
            xi *= xi_len / xi_plane;
        }
        f_prev = -xi * history.kt_prev;
        xi += dxi;
    }
    let kt = if params.mindlin != 0 {
        8.0 * params.g_eff * (geom.r_eff * geom.delta).sqrt()
    } else {
        params.stiffness_ratio * force.stiffness
    };
    let mut ft = -xi * kt;
    let ft_trial = ft.length();
    let mu = if history.sliding > 0.0 {
        params.mu_dynamic
    } else {
        params.mu_static
    };
    let stored;
    // Coulomb's bound on the magnitude of the normal force (Cundall & Strack; LIGGGHTS'
    // `mu |F_n|`): an unclipped dashpot or an adhesive law may leave it negative, and a
    // negative bound would flip the spring's force (and divide zero by zero when it is zero).
    let fn_abs = force.normal_force.abs();
    if ft_trial > mu * fn_abs {
        let limit = params.mu_dynamic * fn_abs;
        ft *= limit / ft_trial;
        history.sliding = 1.0;
        let kept = if kt > 0.0 {
            xi = -ft / kt;
            0.5 * limit * limit / kt
        } else {
            xi = glam::Vec3::ZERO;
            0.0
        };
        let worked = history.stored - 0.5 * (f_prev + ft).dot(dxi);
        force.friction_dissipated += worked - kept;
        stored = kept;
    } else {
        history.sliding = 0.0;
        stored = history.stored - 0.5 * (f_prev + ft).dot(dxi);
        if params.liggghts != 0 {
            // The sticking spring's dashpot (LIGGGHTS' tangential damping), booked as
            // damping over the step.
            let fd = -vt * (2.0 * params.zeta_t * (kt * geom.m_eff).sqrt());
            ft += fd;
            force.damping_dissipated -= fd.dot(vt) * geom.dt;
        }
    }
    history.xi = xi.to_array();
    history.stored = stored;
    history.kt_prev = kt;
    force.force = (v3(force.force) + ft).to_array();
    force.elastic += stored;
}

/// The `cundall_strack` law.
pub struct CundallStrack;

impl Law for CundallStrack {
    const KEYWORD: &'static str = "cundall_strack";
    const SLOT: Slot = Slot::Tangential;
    const KEYS: &'static [&'static str] = &[
        "friction",
        "friction_static",
        "stiffness_ratio",
        "stiffness",
        "form",
        "restitution",
    ];
    const HISTORY_WORDS: &'static [Word] = &[
        Word::Length,
        Word::Length,
        Word::Length,
        Word::Exact,
        Word::Energy,
        Word::Own,
    ];
    const ENERGY: &'static [&'static str] = &["elastic", "friction", "damping"];
    type Params = CundallStrackParams;
    type History = CundallStrackHistory;
    type Spec = CundallStrackSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<CundallStrackSpec, K::Error> {
        let what = "a number >= 0 (Coulomb coefficient)";
        let f = keys.non_negative("friction", "Coulomb coefficient")?;
        let friction = required(keys, "friction", what, f)?;
        let friction_static = match keys.non_negative("friction_static", "Coulomb coefficient")? {
            Some(s) if s < friction => {
                let found = keys.found("friction_static");
                return Err(keys.error(
                    "friction_static",
                    format!("expected friction_static >= friction ({friction}), found {found}"),
                ));
            }
            Some(s) => s,
            None => friction,
        };
        let stiffness = match (keys.has("stiffness_ratio"), keys.has("stiffness")) {
            (true, true) => {
                return Err(keys.conflict(
                    "stiffness",
                    "stiffness_ratio",
                    "give either `stiffness_ratio` or `stiffness = \"mindlin\"`, not both".into(),
                ))
            }
            (true, false) => keys
                .positive("stiffness_ratio", "k_t / k_n")?
                .map(TangentialStiffness::Ratio),
            (false, true) => {
                let what = "\"mindlin\" (or use stiffness_ratio = k_t/k_n)";
                match keys.string("stiffness", what)?.as_deref() {
                    Some("mindlin") => Some(TangentialStiffness::Mindlin),
                    Some(_) => {
                        let found = keys.found("stiffness");
                        return Err(
                            keys.error("stiffness", format!("expected {what}, found {found}"))
                        );
                    }
                    None => None,
                }
            }
            (false, false) => None,
        };
        let liggghts = match keys
            .string("form", "\"cundall_strack\" or \"liggghts\"")?
            .as_deref()
        {
            None | Some("cundall_strack") => None,
            Some("liggghts") => Some(required_restitution(keys)?),
            Some(other) => {
                return Err(keys.error(
                    "form",
                    format!("expected \"cundall_strack\" or \"liggghts\", found \"{other}\""),
                ))
            }
        };
        if liggghts.is_none() && keys.has("restitution") {
            return Err(keys.error(
                "restitution",
                "a restitution is read only with form = \"liggghts\"".into(),
            ));
        }
        Ok(CundallStrackSpec {
            friction,
            friction_static,
            liggghts,
            stiffness,
        })
    }

    fn spring(_: &CundallStrackSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &CundallStrackSpec, pair: &PairContext<'_>) -> CundallStrackParams {
        let stiffness = spec.stiffness.clone().unwrap_or(match pair.spring {
            SpringShape::Hertz => TangentialStiffness::Mindlin,
            SpringShape::Linear => TangentialStiffness::Ratio(DEFAULT_STIFFNESS_RATIO),
        });
        let (ratio, mindlin) = match stiffness {
            TangentialStiffness::Ratio(r) => (r as f32, 0),
            TangentialStiffness::Mindlin => (0.0, 1),
        };
        CundallStrackParams {
            mu_static: spec.friction_static as f32,
            mu_dynamic: spec.friction as f32,
            stiffness_ratio: ratio,
            mindlin,
            g_eff: effective_shear(pair.a, pair.b) as f32,
            liggghts: spec.liggghts.is_some() as u32,
            zeta_t: spec
                .liggghts
                .map(crate::kernels::laws::viscous::tsuji_zeta)
                .unwrap_or(0.0) as f32,
        }
    }

    fn range(_: &CundallStrackSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &CundallStrackSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &CundallStrackParams,
        h: &mut CundallStrackHistory,
        f: &mut ContactForce,
    ) {
        law_cundall_strack(g, p, h, f)
    }
}

impl LawTwin for CundallStrack {
    // Closed form, plus the rotation and rescaling of the history vector (a normalisation):
    // 2e-5.
    const PARITY_TOLERANCE: f32 = 2e-5;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<CundallStrackParams, CundallStrackHistory> {
        let geom = random_geom(rng, i);
        let force = random_prior_force(rng, &geom);
        let (mu_s, mu_d) = if i == 2 {
            (0.0, 0.0)
        } else {
            let s = rng.range(0.0, 1.0) as f32;
            (s, s * rng.range(0.5, 1.0) as f32)
        };
        let xi_scale = (geom.delta.abs() as f64).max(1e-9);
        ParityCase {
            geom,
            params: CundallStrackParams {
                mu_static: mu_s,
                mu_dynamic: mu_d,
                stiffness_ratio: rng.range(0.1, 1.0) as f32,
                mindlin: rng.chance(0.5) as u32,
                g_eff: rng.log_uniform(1e5, 1e10),
                liggghts: (i % 3 == 1) as u32,
                zeta_t: rng.range(0.0, 0.5) as f32,
            },
            history: CundallStrackHistory {
                xi: rng.vec3(xi_scale),
                sliding: rng.chance(0.3) as u32 as f32,
                stored: rng.range(0.0, 1e-9) as f32,
                kt_prev: rng.log_uniform(1e2, 1e6),
            },
            force,
        }
    }
}
