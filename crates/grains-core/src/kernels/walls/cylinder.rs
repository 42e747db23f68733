//! An infinite cylinder wall about an axis: solid (particles outside) unless hollow (particles
//! inside, a drum). WGSL twin: `shaders/walls/cylinder.wgsl`.

use super::{round_wall, Near, Outline, ShapeKeys, WallShape, WALL_CYLINDER};
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::resolvers::sphere_cylinder::resolve_sphere_cylinder;
use crate::parity::SplitMix;
use crate::registry::ResolverKind;

/// `cylinder = { point, axis, radius, hollow }`.
pub struct Cylinder;

impl WallShape for Cylinder {
    const KEYWORD: &'static str = "cylinder";
    const KEYS: &'static [&'static str] = &["point", "axis", "radius", "hollow"];
    const RESOLVER: ResolverKind = ResolverKind::SphereCylinder;
    const EXAMPLE: &'static str = "point = [0.05, 0.05, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.05";

    fn read<K: ShapeKeys>(keys: &K, material: u32) -> Result<Wall, K::Error> {
        let point = keys.vec3("point", "a point on the axis [x, y, z] (m)", "m")?;
        let axis = keys.unit_vector("axis", "the axis direction [x, y, z]")?;
        let radius = keys.required_positive("radius", "a positive number (m)", "m")?;
        let hollow = keys.boolean("hollow")?.unwrap_or(false);
        let mut c = round_wall(WALL_CYLINDER, point, axis, radius, material);
        c.hollow = hollow as u32;
        Ok(c)
    }

    /// Exact: the distance from the axis less the radius.
    fn distance_bound(w: &Wall, _a: f32, rho: f32) -> f32 {
        (rho - w.radius).abs()
    }

    fn contact(b: &SphereBody, w: &Wall) -> ContactGeom {
        resolve_sphere_cylinder(b, w, 0.0)
    }

    /// The length of the domain along the axis.
    fn outline(w: &Wall, (lo, hi): (f64, f64)) -> Outline {
        let r = f64::from(w.radius);
        Outline::Band((lo, r), (hi, r))
    }

    /// The axis along `normal`, the sphere's centre `rho` from it along `across`: outside a
    /// solid cylinder (even cases), inside a hollow one (odd cases).
    fn place_near(w: &mut Wall, near: &Near, rng: &mut SplitMix) {
        let Near {
            x,
            rad,
            d,
            normal,
            across,
            i,
        } = *near;
        let big = rad * rng.range(3.0, 10.0) as f32;
        w.kind = WALL_CYLINDER;
        w.radius = big;
        w.hollow = (i % 2) as u32;
        let rho = if w.hollow == 1 { big - d } else { big + d };
        w.point = std::array::from_fn(|k| x[k] - across[k] * rho + normal[k] * rad);
    }
}
