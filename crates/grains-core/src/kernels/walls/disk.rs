//! A flat disk wall, touched from either side. WGSL twin: `shaders/walls/disk.wgsl`.

use super::{round_wall, Near, Outline, ShapeKeys, WallShape, WALL_DISK};
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::resolvers::sphere_disk::resolve_sphere_disk;
use crate::parity::SplitMix;
use crate::registry::ResolverKind;

/// `disk = { center, normal, radius }`.
pub struct Disk;

impl WallShape for Disk {
    const KEYWORD: &'static str = "disk";
    const KEYS: &'static [&'static str] = &["center", "normal", "radius"];
    const RESOLVER: ResolverKind = ResolverKind::SphereDisk;
    const EXAMPLE: &'static str = "center = [0.05, 0.05, 0.0], normal = [0.0, 0.0, 1.0], radius = 0.01";

    fn read<K: ShapeKeys>(keys: &K, material: u32) -> Result<Wall, K::Error> {
        let center = keys.vec3("center", "[x, y, z] (m)", "m")?;
        let n = keys.unit_vector("normal", "the disk's normal [x, y, z]")?;
        let radius = keys.required_positive("radius", "a positive number (m)", "m")?;
        Ok(round_wall(WALL_DISK, center, n, radius, material))
    }

    /// Exact: to the face within the radius, to the rim beyond it.
    fn distance_bound(w: &Wall, a: f32, rho: f32) -> f32 {
        let out = (rho - w.radius).max(0.0);
        (a * a + out * out).sqrt()
    }

    fn contact(b: &SphereBody, w: &Wall) -> ContactGeom {
        resolve_sphere_disk(b, w, 0.0)
    }

    fn outline(_w: &Wall, _along: (f64, f64)) -> Outline {
        Outline::Disk
    }

    /// The centre projected `d` below the sphere, offset across by up to 1.5 disk radii (so
    /// some cases meet the rim).
    fn place_near(w: &mut Wall, near: &Near, rng: &mut SplitMix) {
        let Near {
            x,
            rad,
            d,
            normal,
            across,
            ..
        } = *near;
        let big = rad * rng.range(1.0, 4.0) as f32;
        let off = big * rng.range(0.0, 1.5) as f32;
        w.kind = WALL_DISK;
        w.radius = big;
        w.point = std::array::from_fn(|k| x[k] - normal[k] * d - across[k] * off);
    }
}
