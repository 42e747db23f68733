//! An infinite plane wall: particles stay on the side its normal points to. WGSL twin:
//! `shaders/walls/plane.wgsl`.

use super::{Near, Outline, ShapeKeys, WallShape};
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::resolvers::sphere_plane::resolve_sphere_plane;
use crate::parity::SplitMix;
use crate::registry::ResolverKind;

/// `plane = { point, normal }`, the normal pointing into the domain.
pub struct Plane;

impl WallShape for Plane {
    const KEYWORD: &'static str = "plane";
    const KEYS: &'static [&'static str] = &["point", "normal"];
    const RESOLVER: ResolverKind = ResolverKind::SpherePlane;
    const EXAMPLE: &'static str = "point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0]";

    fn read<K: ShapeKeys>(keys: &K, material: u32) -> Result<Wall, K::Error> {
        let point = keys.vec3("point", "[x, y, z] (m)", "m")?;
        let n = keys.unit_vector("normal", "[x, y, z], pointing into the domain")?;
        Ok(Wall::plane(f32s(point), f32s(n), material))
    }

    /// The signed height above the plane.
    fn distance_bound(_w: &Wall, a: f32, _rho: f32) -> f32 {
        a
    }

    fn contact(b: &SphereBody, w: &Wall) -> ContactGeom {
        resolve_sphere_plane(b, w, 0.0)
    }

    fn outline(_w: &Wall, _along: (f64, f64)) -> Outline {
        Outline::Plane
    }

    /// The plane as given: `d` below the sphere along `normal`.
    fn place_near(_w: &mut Wall, _near: &Near, _rng: &mut SplitMix) {}
}

/// A vector read in f64 as the wall's f32.
fn f32s(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}
