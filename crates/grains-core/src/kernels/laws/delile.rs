//! The cell-cell force of Delile et al. (2017). WGSL twin: `shaders/laws/delile.wgsl`.
//!
//! Two cells at centre distance `r` share an effective contact area
//! `A_c = a (r - r_max)^2` and push or pull along the line of centres with
//! `F = w A_c (r_eq - r)` (repulsive when positive), for `r < r_max`, where
//! `r_max = c_max (R1 + R2)` and `r_eq = c_eq (R1 + R2)` (Delile, Herrmann, Peyriéras and
//! Doursat 2017, Nat. Commun. 8:13929, supplementary note on the mechanical model; Mpacts
//! N_Delile, `shared/reference/000`). The force vanishes at `r_eq` and at `r_max`, and
//! attracts most, `(4/27) w a (r_max - r_eq)^3`, at `r* = (2 r_eq + r_max)/3`. `R1 + R2` is the
//! sum of the resolver's contact lengths (the two radii for spheres, twice the radius against
//! a wall, which acts as a mirrored cell).
//!
//! Declared beside the force: the stored energy `U(r) = w a (x^4/4 - (r_eq - r_max) x^3/3)`
//! with `x = r - r_max` (zero at `r_max`, negative in the adhesive well), the area `A_c`, and
//! the tangent stiffness `dF/d delta = w a x (3 r - r_max - 2 r_eq)`, floored at zero: past `r*`
//! the force softens, and the implicit modes' matrix takes only a stiffness that keeps it
//! positive (the softening part is then explicit, as in the inertial mode).
//!
//! Scene keys (in the `normal` slot): `stiffness` (w, N/m^3, required), `area_factor` (a,
//! required, dimensionless), `max_distance_ratio` (c_max, default 1.2, Delile et al.'s
//! interaction cut-off), `rest_distance_ratio` (c_eq, default `pi / (2 sqrt 3)`, the area of a
//! disk over that of the hexagon around it); `0 < c_eq < c_max`.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the Delile force.
    pub struct DelileParams {
        /// `w` (N/m^3).
        pub stiffness: f32,
        /// `a` (dimensionless).
        pub area_factor: f32,
        /// `c_max`: the cut-off over `R1 + R2`.
        pub max_ratio: f32,
        /// `c_eq`: the rest distance over `R1 + R2`.
        pub rest_ratio: f32,
    }
}

/// Scene settings of `delile`.
#[derive(Clone, Debug, PartialEq)]
pub struct DelileSpec {
    pub stiffness: f64,
    pub area_factor: f64,
    pub max_ratio: f64,
    pub rest_ratio: f64,
}

/// `c_eq`'s default: a disk's area over its circumscribed hexagon's, `pi / (2 sqrt 3)`.
pub const HEXAGON_RATIO: f64 = std::f64::consts::PI / (2.0 * 1.732_050_807_568_877_2);

/// `c_max`'s default, Delile et al.'s cut-off of the interaction at 1.2 (R1 + R2).
pub const DEFAULT_MAX_RATIO: f64 = 1.2;

/// The Delile force: adds `-n F` with `F = w a (r - r_max)^2 (r_eq - r)` for `r < r_max`.
pub fn law_delile(geom: &ContactGeom, params: &DelileParams, force: &mut ContactForce) {
    let sum = geom.lengths[0] + geom.lengths[1];
    let r = sum - geom.delta;
    let r_max = params.max_ratio * sum;
    if r >= r_max {
        return;
    }
    let r_eq = params.rest_ratio * sum;
    let x = r - r_max;
    let area = params.area_factor * x * x;
    let f = params.stiffness * area * (r_eq - r);
    let n = v3(geom.normal);
    force.force = (v3(force.force) - n * f).to_array();
    force.normal_force += f.max(0.0);
    let k = params.stiffness * params.area_factor * x * (3.0 * r - r_max - 2.0 * r_eq);
    force.stiffness += k.max(0.0);
    let well = r_eq - r_max;
    force.elastic +=
        params.stiffness * params.area_factor * x * x * x * (0.25 * x - well / 3.0);
    force.area += area;
}

/// The `delile` law.
pub struct Delile;

impl Law for Delile {
    const KEYWORD: &'static str = "delile";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &[
        "stiffness",
        "area_factor",
        "max_distance_ratio",
        "rest_distance_ratio",
    ];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["elastic"];
    type Params = DelileParams;
    type History = ();
    type Spec = DelileSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<DelileSpec, K::Error> {
        let w = keys.positive("stiffness", "N/m^3")?;
        let a = keys.positive("area_factor", "(dimensionless)")?;
        let c_max = keys.positive("max_distance_ratio", "(a ratio)")?;
        let c_eq = keys.positive("rest_distance_ratio", "(a ratio)")?;
        let spec = DelileSpec {
            stiffness: required(keys, "stiffness", "a positive number (N/m^3)", w)?,
            area_factor: required(keys, "area_factor", "a positive number", a)?,
            max_ratio: c_max.unwrap_or(DEFAULT_MAX_RATIO),
            rest_ratio: c_eq.unwrap_or(HEXAGON_RATIO),
        };
        if spec.rest_ratio >= spec.max_ratio {
            let at = if keys.has("rest_distance_ratio") {
                "rest_distance_ratio"
            } else {
                "max_distance_ratio"
            };
            return Err(keys.error(
                at,
                format!(
                    "the rest distance ratio ({}) must be below the maximum distance ratio ({}): \
                     the cells would repel wherever they interact",
                    spec.rest_ratio, spec.max_ratio
                ),
            ));
        }
        Ok(spec)
    }

    fn spring(_: &DelileSpec) -> Option<SpringShape> {
        Some(SpringShape::Linear)
    }

    fn mix(spec: &DelileSpec, _: &PairContext<'_>) -> DelileParams {
        DelileParams {
            stiffness: spec.stiffness as f32,
            area_factor: spec.area_factor as f32,
            max_ratio: spec.max_ratio as f32,
            rest_ratio: spec.rest_ratio as f32,
        }
    }

    fn range(spec: &DelileSpec, pair: &PairContext<'_>) -> f64 {
        ((spec.max_ratio - 1.0) * pair.lengths_max).max(0.0)
    }

    /// Two equal cells of radius R oscillating about `r_eq` on the linearised spring
    /// `k = w a (r_max - r_eq)^2`.
    fn collision_time(spec: &DelileSpec, c: &CollisionContext<'_>) -> Option<f64> {
        let gap = (spec.max_ratio - spec.rest_ratio) * 2.0 * c.radius;
        let k = spec.stiffness * spec.area_factor * gap * gap;
        Some(std::f64::consts::PI * (c.m_eff / k).sqrt())
    }

    fn apply(g: &ContactGeom, p: &DelileParams, _: &mut (), f: &mut ContactForce) {
        law_delile(g, p, f)
    }
}

impl LawTwin for Delile {
    // A cubic in a difference of nearly equal lengths near r_max: the force is small there,
    // and relative to the pair's force scale a few f32 ulps of the lengths, 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<DelileParams, ()> {
        let mut geom = random_geom(rng, i);
        let sum = geom.lengths[0] + geom.lengths[1];
        let rest_ratio = rng.range(0.7, 0.95) as f32;
        let max_ratio = rest_ratio + rng.range(0.05, 0.5) as f32;
        // Compressed, at rest, in the well, at the cut-off and beyond it.
        let ratio = match i % 5 {
            0 => rest_ratio,
            1 => max_ratio,
            2 => rng.range(0.5, rest_ratio as f64) as f32,
            3 => rng.range(rest_ratio as f64, max_ratio as f64) as f32,
            _ => max_ratio * rng.range(1.0, 1.2) as f32,
        };
        geom.delta = sum * (1.0 - ratio);
        ParityCase {
            geom,
            params: DelileParams {
                stiffness: rng.log_uniform(1e6, 1e12),
                area_factor: rng.log_uniform(0.1, 10.0),
                max_ratio,
                rest_ratio,
            },
            history: (),
            force: ContactForce::default(),
        }
    }
}
