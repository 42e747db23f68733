//! A friction block weighted by the contact area. WGSL twin:
//! `shaders/laws/area_weighted_resistance.wgsl` (the area in `shaders/lib/contact_area.wgsl`).
//!
//! `Gamma = A_c [gamma_n n n^T + gamma_t (I - n n^T)]` (Mpacts N_T_AreaWeightedResistance,
//! `shared/reference/000`), the coefficients per unit contact area (Pa s/m), so that a wider
//! contact resists more. `A_c` is the area the normal law declared (`ContactForce::area`) where
//! it declared one; otherwise the area of the circle where the two bodies' surfaces cross
//! ([`contact_area`]). Like `constant_resistance` it adds no force: the block enters the
//! implicit solve through `contact_matrix`, which books its power as damping.
//!
//! Scene keys (in the `resistance` slot): `normal` (Pa s/m, required), `tangential` (Pa s/m,
//! default 0).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::constant_resistance::parse_coefficients;
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the area-weighted resistance.
    pub struct AreaWeightedResistanceParams {
        /// Friction along the line of centres per unit contact area (Pa s/m).
        pub normal: f32,
        /// Friction across it per unit contact area (Pa s/m).
        pub tangential: f32,
    }
}

/// Scene settings of `area_weighted_resistance`.
#[derive(Clone, Debug, PartialEq)]
pub struct AreaWeightedResistanceSpec {
    pub normal: f64,
    pub tangential: f64,
}

/// The contact area `A_c` (m^2) the area-weighted resistances scale by: the normal law's
/// `force.area` where it declared one (> 0); else, for overlapping surfaces, the area
/// `pi a^2` of the circle where two spheres of radii `R1, R2 = geom.lengths` cross at centre
/// distance `d = R1 + R2 - delta`. With `x1 = (d^2 + R1^2 - R2^2) / (2 d)` the distance from
/// centre 1 to the circle's plane, `a^2 = R1^2 - x1^2`, which is written here as the
/// equivalent product
/// `a^2 = delta (2 R1 - delta) (2 R2 - delta) (2 R1 + 2 R2 - delta) / (4 d^2)`: the difference
/// of squares loses in f32 about `R1 / (2 delta)` ulps (6 % at `delta = 1e-6 R1`), the product
/// a few ulps. A flat body 2 (a wall or a mesh triangle, whose resolvers give `r_eff = R1`)
/// is the limit `R2 -> infinity`, `a^2 = R1^2 - (R1 - delta)^2 = delta (2 R1 - delta)`. Zero
/// for surfaces apart, and where one sphere lies inside the other (no circle; the product is
/// then not positive).
pub fn contact_area(geom: &ContactGeom, force: &ContactForce) -> f32 {
    if force.area > 0.0 {
        return force.area;
    }
    let delta = geom.delta;
    if delta <= 0.0 {
        return 0.0;
    }
    let (r1, r2) = (geom.lengths[0], geom.lengths[1]);
    let a2 = if geom.r_eff >= r1 {
        delta * (2.0 * r1 - delta)
    } else {
        let d = r1 + r2 - delta;
        let num = delta * (2.0 * r1 - delta) * (2.0 * r2 - delta) * (2.0 * (r1 + r2) - delta);
        if num > 0.0 && d > 0.0 {
            num / (4.0 * d * d)
        } else {
            0.0
        }
    };
    std::f32::consts::PI * a2.max(0.0)
}

/// The area-weighted resistance: adds `A_c` times its coefficients to the chain's block.
pub fn law_area_weighted_resistance(
    geom: &ContactGeom,
    params: &AreaWeightedResistanceParams,
    _history: &mut (),
    force: &mut ContactForce,
) {
    let area = contact_area(geom, force);
    force.gamma_n += area * params.normal;
    force.gamma_t += area * params.tangential;
}

/// A parity case of a law weighted by [`contact_area`]: edge cases first (touching, so no
/// area; two equal spheres; a flat body 2; a declared area), then random overlaps, some
/// declaring an area.
pub fn area_parity_inputs(rng: &mut SplitMix, i: usize) -> (ContactGeom, ContactForce) {
    let mut geom = random_geom(rng, i);
    let mut force = random_prior_force(rng, &geom);
    match i {
        1 => {
            // Two equal spheres: the circle lies in the middle plane.
            geom.lengths[1] = geom.lengths[0];
            geom.r_eff = 0.5 * geom.lengths[0];
            geom.delta = geom.lengths[0] * 0.1;
        }
        2 => {
            // A wall: the resolvers of flat bodies give `r_eff = l1 = l2 = R`.
            geom.lengths[1] = geom.lengths[0];
            geom.r_eff = geom.lengths[0];
        }
        3 => force.area = geom.r_eff * geom.r_eff * 0.3,
        _ if rng.chance(0.1) => {
            geom.lengths[1] = geom.lengths[0];
            geom.r_eff = geom.lengths[0];
        }
        _ if rng.chance(0.1) => force.area = geom.r_eff * geom.r_eff * rng.log_uniform(1e-6, 1.0),
        _ => {}
    }
    if i > 0 {
        force.gamma_n = rng.log_uniform(1e-6, 1e2);
        force.gamma_t = rng.log_uniform(1e-6, 1e2);
    }
    (geom, force)
}

/// The `area_weighted_resistance` law.
pub struct AreaWeightedResistance;

impl Law for AreaWeightedResistance {
    const KEYWORD: &'static str = "area_weighted_resistance";
    const SLOT: Slot = Slot::Resistance;
    const KEYS: &'static [&'static str] = &["normal", "tangential"];
    const HISTORY_WORDS: &'static [Word] = &[];
    const ENERGY: &'static [&'static str] = &["damping"];
    type Params = AreaWeightedResistanceParams;
    type History = ();
    type Spec = AreaWeightedResistanceSpec;

    fn parse<K: LawKeys>(keys: &K) -> Result<AreaWeightedResistanceSpec, K::Error> {
        let (normal, tangential) = parse_coefficients(keys, "Pa s/m")?;
        Ok(AreaWeightedResistanceSpec { normal, tangential })
    }

    fn spring(_: &AreaWeightedResistanceSpec) -> Option<SpringShape> {
        None
    }

    fn mix(spec: &AreaWeightedResistanceSpec, _: &PairContext<'_>) -> AreaWeightedResistanceParams {
        AreaWeightedResistanceParams {
            normal: spec.normal as f32,
            tangential: spec.tangential as f32,
        }
    }

    fn range(_: &AreaWeightedResistanceSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &AreaWeightedResistanceSpec, _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &AreaWeightedResistanceParams,
        h: &mut (),
        f: &mut ContactForce,
    ) {
        law_area_weighted_resistance(g, p, h, f)
    }
}

impl LawTwin for AreaWeightedResistance {
    // The area is a product of four factors and a quotient (a few ulps each, a fused
    // multiply-add on the GPU rounding differently), then a product and a sum: 1e-5.
    const PARITY_TOLERANCE: f32 = 1e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<AreaWeightedResistanceParams, ()> {
        let (geom, force) = area_parity_inputs(rng, i);
        ParityCase {
            geom,
            params: AreaWeightedResistanceParams {
                normal: rng.log_uniform(1e-3, 1e7),
                tangential: if i == 1 { 0.0 } else { rng.log_uniform(1e-3, 1e7) },
            },
            history: (),
            force,
        }
    }
}
