//! JKR adhesive elastic contact (Johnson, Kendall & Roberts 1971). WGSL twin:
//! `shaders/laws/jkr.wgsl`.
//!
//! With `a0 = (2 pi W R*^2 / E*)^(1/3)` (the contact radius at zero overlap) and
//! `delta0 = a0^2 / R*`, the contact radius `a = a0 s^2` follows from the overlap through
//! `delta / delta0 = s^4 - s`, the JKR relation `delta = a^2/R* - sqrt(2 pi W a / E*)` in
//! dimensionless form. The force is
//! `F = 4 E* a^3 / (3 R*) - sqrt(8 pi W E* a^3) = pi W R* (8/3 s^6 - 4 s^3)`,
//! repulsive when positive: `-4/3 pi W R*` at zero overlap and `-3/2 pi W R*` at its minimum
//! (the pull-off force). `s` is the largest root of `s^4 - s - d = 0`, found by Newton's method
//! from `s = max(d, 0)^(1/4) + 1`, which lies right of the root (the quartic is convex there),
//! so the iterates fall monotonically onto it; a fixed 24 iterations reach f32 precision even
//! next to the break, where the root is nearly double and convergence only linear.
//!
//! Hysteresis (Johnson 1985, §5.5): a contact forms when the surfaces touch (`delta >= 0`) and
//! then holds, attractive, until the overlap falls to the break point
//! `delta_f = -(3/4) (pi^2 W^2 R* / E*^2)^(1/3)` (`s^3 = 1/4`, where the displacement-controlled
//! branch ends); the "established" flag is kept in the history. The law declares a range of
//! 1.25 |delta_f| at the largest `R*` it meets, so the broad phase keeps a separating pair
//! until it breaks.
//!
//! Energy: the contact stores the JKR total energy (elastic minus surface),
//! `U = pi W a0^2 (16/15 s^10 - 8/3 s^7 + s^4)`, whose derivative along the curve is the force
//! (`dU = F d delta`), booked in the elastic column. The jumps of `U` when the contact snaps in
//! (from 0 to `U(delta)`) and snaps off (from `U` to 0) are the adhesion hysteresis; they are
//! booked as damping dissipation so the ledger closes (both are losses: `U < 0` at snap-in,
//! `U > 0` at the break). The force jumps at those two steps, and velocity Verlet lets a jump
//! act for half the step (the trapezoid of the old and new force over the step's
//! displacement); that half-step work is booked with the jump, with the previous overlap and
//! force kept in the history, so the ledger closes to O(dt^2) rather than O(dt) per event.
//!
//! For `dt = "auto"` the law asks for at least 4 steps across `|delta_f|` at the expected
//! impact speed, besides the Hertz collision time.
//!
//! Coulomb limits see the effective load `F + 2 F_c`, `F_c = 3/2 pi W R*` (Thornton & Yin
//! 1991), never negative on the JKR curve. Damping laws see the contact stiffness `2 E* a`.
//!
//! Scene keys: `work_of_adhesion` (J/m^2, required; `W = 2 gamma` for like surfaces).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::material::effective_young;
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

/// Newton iterations of the contact-radius solve.
pub const JKR_ITERATIONS: u32 = 24;

crate::gpu_struct! {
    /// Per-pair parameters of JKR contact.
    pub struct JkrParams {
        /// Effective modulus `E*` (Pa).
        pub e_eff: f32,
        /// Work of adhesion `W` (J/m^2).
        pub work: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of JKR contact.
    pub struct JkrHistory {
        /// 1 once the surfaces have touched, until the contact breaks at `delta_f`.
        pub established: f32,
        /// Energy the contact held at the previous step (J), booked as dissipated if it breaks.
        pub u_prev: f32,
        /// Overlap at the previous step (m), kept while apart too.
        pub delta_prev: f32,
        /// Repulsive force at the previous step (N).
        pub f_prev: f32,
    }
}

/// Scene settings of `jkr`.
#[derive(Clone, Debug, PartialEq)]
pub struct JkrSpec {
    /// Work of adhesion (J/m^2).
    pub work_of_adhesion: f64,
}

/// Scale `delta0 = a0^2 / R*` (m) of the overlap, and `a0` (m).
pub fn jkr_scales(e_eff: f32, work: f32, r_eff: f32) -> (f32, f32) {
    let a0 = (2.0 * std::f32::consts::PI * work * r_eff * r_eff / e_eff).powf(1.0 / 3.0);
    (a0 * a0 / r_eff, a0)
}

/// The largest root `s` of `s^4 - s - d = 0` (`d >= -(3/4) 4^(-1/3)`).
pub fn jkr_root(d: f32) -> f32 {
    let mut s = d.max(0.0).sqrt().sqrt() + 1.0;
    for _ in 0..JKR_ITERATIONS {
        let s3 = s * s * s;
        let g = s3 * s - s - d;
        let dg = 4.0 * s3 - 1.0;
        if dg > 0.0 {
            s -= g / dg;
        }
    }
    s
}

/// JKR spring with hysteresis.
pub fn law_jkr(
    geom: &ContactGeom,
    params: &JkrParams,
    history: &mut JkrHistory,
    force: &mut ContactForce,
) {
    let (delta0, a0) = jkr_scales(params.e_eff, params.work, geom.r_eff);
    let d = geom.delta / delta0;
    // -(3/4) 4^(-1/3): where s^4 - s has its minimum.
    let d_break = -0.472_470_3;
    if history.established == 0.0 && geom.delta < 0.0 {
        history.delta_prev = geom.delta;
        return;
    }
    if d <= d_break {
        // The energy held is lost, plus the work of this last step under the previous force
        // (the integrator applies half of it across the step).
        let last = 0.5 * history.f_prev * (geom.delta - history.delta_prev);
        force.damping_dissipated += history.u_prev + last;
        *history = JkrHistory {
            delta_prev: geom.delta,
            ..Default::default()
        };
        return;
    }
    let s = jkr_root(d);
    let s3 = s * s * s;
    let pw = std::f32::consts::PI * params.work;
    let fc = 1.5 * pw * geom.r_eff;
    let f = pw * geom.r_eff * (8.0 / 3.0 * s3 * s3 - 4.0 * s3);
    let s4 = s3 * s;
    let u = pw * a0 * a0 * s4 * (16.0 / 15.0 * s3 * s3 - 8.0 / 3.0 * s3 + 1.0);
    if history.established == 0.0 {
        // Snap-in: the energy released on forming the contact is lost, less the work the
        // integrator lets the new force do over this step (half of it across the step).
        force.damping_dissipated += 0.5 * f * (geom.delta - history.delta_prev) - u;
    }
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * f).to_array();
    force.normal_force += f + 2.0 * fc;
    force.stiffness += 2.0 * params.e_eff * a0 * s * s;
    force.elastic += u;
    history.established = 1.0;
    history.u_prev = u;
    history.delta_prev = geom.delta;
    history.f_prev = f;
}

/// The `jkr` law.
pub struct Jkr;

impl Law for Jkr {
    const KEYWORD: &'static str = "jkr";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["work_of_adhesion"];
    const HISTORY_WORDS: &'static [Word] = &[Word::Exact, Word::Energy, Word::Own, Word::Force];
    const ENERGY: &'static [&'static str] = &["elastic", "damping"];
    type Params = JkrParams;
    type History = JkrHistory;
    type Spec = JkrSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<JkrSpec, K::Error> {
        let w = keys.positive("work_of_adhesion", "J/m^2")?;
        Ok(JkrSpec {
            work_of_adhesion: required(keys, "work_of_adhesion", "a positive number (J/m^2)", w)?,
        })
    }

    fn spring(_: &JkrSpec) -> Option<SpringShape> {
        Some(SpringShape::Hertz)
    }

    fn mix(spec: &JkrSpec, pair: &PairContext<'_>) -> JkrParams {
        JkrParams {
            e_eff: effective_young(pair.a, pair.b) as f32,
            work: spec.work_of_adhesion as f32,
        }
    }

    /// 1.25 |delta_f| at the largest `R*`: the pair stays listed and evaluated until it breaks.
    fn range(spec: &JkrSpec, pair: &PairContext<'_>) -> f64 {
        let e = effective_young(pair.a, pair.b);
        let w = spec.work_of_adhesion;
        let pi = std::f64::consts::PI;
        1.25 * 0.75 * (pi * pi * w * w * pair.r_eff_max / (e * e)).cbrt()
    }

    /// The Hertz collision time, or less: at the expected impact speed the break distance
    /// `|delta_f|` must take at least 4 steps to cross (`dt = auto` takes 1/40 of this time),
    /// or a contact can form deep in compression and break past its adhesive tail unresolved.
    fn collision_time(spec: &JkrSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let e = effective_young(c.material, c.material);
        let w = spec.work_of_adhesion;
        let pi = std::f64::consts::PI;
        let delta_f = 0.75 * (pi * pi * w * w * c.r_eff / (e * e)).cbrt();
        Some(c.hertz_time().min(10.0 * delta_f / c.impact_speed))
    }

    fn apply(g: &ContactGeom, p: &JkrParams, h: &mut JkrHistory, f: &mut ContactForce) {
        law_jkr(g, p, h, f)
    }
}

impl LawTwin for Jkr {
    // Iterative solve: 24 Newton steps on both sides from the same start, each rounding in f32;
    // next to the break the root is nearly double, so an ulp in `d` moves `s` by about
    // sqrt(ulp) there: 1e-4 of the force scale (seen: 6.4e-6 on 10,000 random cases).
    const PARITY_TOLERANCE: f32 = 1e-4;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<JkrParams, JkrHistory> {
        let mut geom = random_geom(rng, i);
        let params = JkrParams {
            e_eff: rng.log_uniform(1e6, 1e11),
            work: rng.log_uniform(1e-3, 1e1),
        };
        // Overlaps on the whole curve, in units of delta0: compressed, the adhesive branch, next
        // to and beyond the break.
        let (delta0, _) = jkr_scales(params.e_eff, params.work, geom.r_eff);
        if i > 0 {
            geom.delta = delta0 * rng.range(-0.55, 20.0) as f32;
        }
        ParityCase {
            geom,
            params,
            history: JkrHistory {
                established: rng.chance(0.7) as u32 as f32,
                u_prev: rng.range(-1e-9, 1e-9) as f32,
                delta_prev: geom.delta * rng.range(0.99, 1.01) as f32,
                f_prev: rng.range(-1e-3, 1e-3) as f32,
            },
            force: ContactForce::default(),
        }
    }
}
