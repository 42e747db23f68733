//! Sphere inside a hopper cone. WGSL twin: `shaders/resolvers/sphere_cone.wgsl`.
//!
//! The cone is open at both ends: its orifice of `radius` is at `point`, its axis `normal`
//! points up into the hopper and its radius grows by `slope` (the tangent of the half-angle
//! `a`) per metre. In the meridional plane of a sphere's centre `(rho, h)` the wall is the
//! half-line from the rim `(radius, 0)` along `(sin a, cos a)`: the nearest point is the
//! centre's projection on it, or the rim for a centre below where the line starts, so a sphere
//! leaving through the orifice touches its edge. The normal points from the sphere to that
//! point; the rest is the shared wall contact ([`super::sphere_plane::wall_geom`]). A sphere
//! whose centre is outside the cone is pushed back in only while it overlaps the surface:
//! scenes start the particles inside.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernel_types::SourcePair;
use crate::kernels::walls::WALL_CONE;
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_cylinder::cylinder_radial;
use crate::kernels::resolvers::sphere_plane::wall_geom;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::v3;
use crate::parity::sphere_wall_case;
use crate::parity::wall_spread;
use crate::parity::SplitMix;

/// The vector from `x` to the cone's nearest point (m).
pub fn cone_nearest(x: Vec3, w: &Wall) -> Vec3 {
    let (e, rho0) = cylinder_radial(x, w);
    let a = v3(w.normal);
    let h = (x - v3(w.point)).dot(a);
    let c = 1.0 / (1.0 + w.slope * w.slope).sqrt();
    let s = w.slope * c;
    let along = ((rho0 - w.radius) * s + h * c).max(0.0);
    let rho = w.radius + along * s;
    let up = along * c;
    v3(w.point) + e * rho + a * up - x
}

/// Overlap (m) of the sphere at `x` with cone `w`, as [`resolve_sphere_cone`] computes
/// `delta`.
pub fn sphere_cone_overlap(x: [f32; 4], w: &Wall) -> f32 {
    x[3] - cone_nearest(Vec3::new(x[0], x[1], x[2]), w).length()
}

/// Resolve the contact between sphere `b1` and cone wall `w`.
pub fn resolve_sphere_cone(b1: &SphereBody, w: &Wall, dt: f32) -> ContactGeom {
    let v = cone_nearest(v3(b1.pos), w);
    let dist = v.length();
    let n = if dist > 0.0 { v / dist } else { -v3(w.normal) };
    wall_geom(b1, w, n, b1.radius - dist, dt)
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SphereConeResolver;

impl Resolver for SphereConeResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Wall];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_cone_overlap(pos[pr.p], walls[pr.q]);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    return resolve_sphere_cone(b1, walls[pr.q], step.dt);
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        let _ = rb;
        ra
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_sphere_cone(
            &load_sphere(pr.p as usize, b.pos, b.vel, b.omega),
            &b.walls[pr.q as usize],
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_cone_overlap(b.pos[pr.p as usize], &b.walls[pr.q as usize])
    }

    type Body1 = SphereBody;
    type Body2 = Wall;
    const TWIN_ARGS: &'static str = "b1, b2, dt";

    fn twin(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> ContactGeom {
        resolve_sphere_cone(&c.b1, &c.b2, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, Wall> {
        sphere_wall_case(WALL_CONE, rng, i)
    }

    /// The normal comes from the wall's geometry (a curved wall's radial direction amplifies
    /// the rounding of the sphere's centre): measured, as [`wall_spread`] describes.
    fn rounding_spread(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> [f32; 4] {
        wall_spread(|b, w| resolve_sphere_cone(b, w, dt), &c.b1, &c.b2)
    }
}
