//! Sphere against a flat disk wall, touched from either side. WGSL twin:
//! `shaders/resolvers/sphere_disk.wgsl`.
//!
//! The disk is centred on `point` with unit `normal` and `radius`. Its point nearest the
//! sphere's centre is on its face (the centre projected onto its plane) or, beyond the radius,
//! on its rim; the normal points from the sphere to that point and the overlap is the radius
//! minus the distance. The rest is the shared wall contact
//! ([`super::sphere_plane::wall_geom`]).

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernel_types::SourcePair;
use crate::kernels::walls::WALL_DISK;
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_plane::wall_geom;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::v3;
use crate::parity::sphere_wall_case;
use crate::parity::wall_spread;
use crate::parity::SplitMix;

/// The vector from `x` to the disk's nearest point (m).
pub fn disk_nearest(x: Vec3, w: &Wall) -> Vec3 {
    let a = v3(w.normal);
    let d = x - v3(w.point);
    let inplane = d - d.dot(a) * a;
    let q = inplane.length();
    let onto = if q > w.radius {
        inplane * (w.radius / q)
    } else {
        inplane
    };
    v3(w.point) + onto - x
}

/// Overlap (m) of the sphere at `x` with disk `w`, as [`resolve_sphere_disk`] computes
/// `delta`.
pub fn sphere_disk_overlap(x: [f32; 4], w: &Wall) -> f32 {
    x[3] - disk_nearest(Vec3::new(x[0], x[1], x[2]), w).length()
}

/// Resolve the contact between sphere `b1` and disk wall `w`.
pub fn resolve_sphere_disk(b1: &SphereBody, w: &Wall, dt: f32) -> ContactGeom {
    let v = disk_nearest(v3(b1.pos), w);
    let dist = v.length();
    let n = if dist > 0.0 { v / dist } else { -v3(w.normal) };
    wall_geom(b1, w, n, b1.radius - dist, dt)
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SphereDiskResolver;

impl Resolver for SphereDiskResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Wall];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_disk_overlap(pos[pr.p], walls[pr.q]);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    return resolve_sphere_disk(b1, walls[pr.q], step.dt);
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        let _ = rb;
        ra
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_sphere_disk(
            &load_sphere(pr.p as usize, b.pos, b.vel, b.omega),
            &b.walls[pr.q as usize],
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_disk_overlap(b.pos[pr.p as usize], &b.walls[pr.q as usize])
    }

    type Body1 = SphereBody;
    type Body2 = Wall;
    const TWIN_ARGS: &'static str = "b1, b2, dt";

    fn twin(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> ContactGeom {
        resolve_sphere_disk(&c.b1, &c.b2, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, Wall> {
        sphere_wall_case(WALL_DISK, rng, i)
    }

    /// The normal comes from the wall's geometry (a curved wall's radial direction amplifies
    /// the rounding of the sphere's centre): measured, as [`wall_spread`] describes.
    fn rounding_spread(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> [f32; 4] {
        wall_spread(|b, w| resolve_sphere_disk(b, w, dt), &c.b1, &c.b2)
    }
}
