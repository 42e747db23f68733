//! A hopper's cone wall, opening up its axis from an orifice. WGSL twin:
//! `shaders/walls/cone.wgsl`.

use super::{round_wall, Near, Outline, ShapeKeys, WallShape, WALL_CONE};
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::resolvers::sphere_cone::resolve_sphere_cone;
use crate::parity::SplitMix;
use crate::registry::ResolverKind;

/// `cone = { point, axis, radius, half_angle }`: the orifice of `radius` centred on `point`,
/// the wall at `half_angle` degrees from the axis.
pub struct Cone;

impl WallShape for Cone {
    const KEYWORD: &'static str = "cone";
    const KEYS: &'static [&'static str] = &["point", "axis", "radius", "half_angle"];
    const RESOLVER: ResolverKind = ResolverKind::SphereCone;
    const EXAMPLE: &'static str = "point = [0.05, 0.05, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.01, half_angle = 30.0";

    fn read<K: ShapeKeys>(keys: &K, material: u32) -> Result<Wall, K::Error> {
        let point = keys.vec3("point", "the orifice's centre [x, y, z] (m)", "m")?;
        let axis = keys.unit_vector("axis", "the axis, pointing up into the hopper [x, y, z]")?;
        let what = "the orifice's radius, a positive number (m)";
        let radius = keys.required_positive("radius", what, "m")?;
        let what = "the angle between the wall and the axis, in degrees (0 < angle < 90)";
        let angle = keys.required_positive("half_angle", what, "degrees")?;
        if angle >= 90.0 {
            let found = keys.found("half_angle");
            return Err(keys.error(
                "half_angle",
                format!("expected an angle below 90 degrees between the wall and the axis, found {found}"),
            ));
        }
        let mut c = round_wall(WALL_CONE, point, axis, radius, material);
        c.slope = angle.to_radians().tan() as f32;
        Ok(c)
    }

    /// The distance to the cone's generating line in the point's meridian plane, which is at
    /// most the distance to the surface (a half-line of that line).
    fn distance_bound(w: &Wall, a: f32, rho: f32) -> f32 {
        (rho - (w.radius + w.slope * a)).abs() / (1.0 + w.slope * w.slope).sqrt()
    }

    fn contact(b: &SphereBody, w: &Wall) -> ContactGeom {
        resolve_sphere_cone(b, w, 0.0)
    }

    /// From the orifice up to the top of the domain; none of it when the domain lies wholly
    /// below the orifice.
    fn outline(w: &Wall, (_, hi): (f64, f64)) -> Outline {
        let r = f64::from(w.radius);
        if hi > 0.0 {
            Outline::Band((0.0, r), (hi, r + f64::from(w.slope) * hi))
        } else {
            Outline::Nothing
        }
    }

    /// The orifice below the sphere (the rim) or beside it (the slanted wall).
    fn place_near(w: &mut Wall, near: &Near, rng: &mut SplitMix) {
        let Near {
            x,
            rad,
            normal,
            across,
            ..
        } = *near;
        let r0 = rad * rng.range(2.0, 6.0) as f32;
        w.kind = WALL_CONE;
        w.radius = r0;
        w.slope = rng.range(0.2, 1.5) as f32;
        let rho = r0 * rng.range(0.0, 1.4) as f32;
        let h = rad * rng.range(-1.5, 4.0) as f32;
        w.point = std::array::from_fn(|k| x[k] - across[k] * rho - normal[k] * h);
    }
}
