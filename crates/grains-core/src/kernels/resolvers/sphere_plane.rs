//! Sphere-plane resolver. WGSL twin: `shaders/resolvers/sphere_plane.wgsl`.
//!
//! Body 1 is the sphere, body 2 the wall; the normal points from the sphere into the wall
//! (the opposite of the wall's inward normal). A moving wall's surface velocity at the contact
//! point enters the relative velocity, and its spin the relative angular velocity. Contact
//! lengths follow Woo's rule for a zero-thickness facet: `l1 = l2 = R`. The helpers shared by
//! the wall resolvers (`wall_geom`, `wall_spin`) are here; their WGSL twins are in
//! `shaders/lib/wall.wgsl`.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernel_types::SourcePair;
use crate::kernels::walls::WALL_PLANE;
use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::v3;
use crate::parity::sphere_wall_case;
use crate::parity::wall_spread;
use crate::parity::SplitMix;

/// Overlap (m) of the sphere at `x` (centre xyz, radius w) with wall `w`, computed exactly as
/// [`resolve_sphere_plane`] computes `delta` (an early out for the wall pass).
pub fn sphere_plane_overlap(x: [f32; 4], w: &Wall) -> f32 {
    let s = (x[0] - w.point[0]) * w.normal[0]
        + (x[1] - w.point[1]) * w.normal[1]
        + (x[2] - w.point[2]) * w.normal[2];
    x[3] - s
}

/// Resolve the contact between sphere `b1` and plane wall `w`.
pub fn resolve_sphere_plane(b1: &SphereBody, w: &Wall, dt: f32) -> ContactGeom {
    let s = (v3(b1.pos) - v3(w.point)).dot(v3(w.normal));
    wall_geom(b1, w, -v3(w.normal), b1.radius - s, dt)
}

/// The wall's angular velocity during this step (rad/s): zero unless it moves.
pub fn wall_spin(w: &Wall) -> Vec3 {
    if w.moving == 0 {
        Vec3::ZERO
    } else {
        v3(w.omega)
    }
}

/// The contact of sphere `b1` with a wall along `n` (unit, from the sphere into the wall) with
/// overlap `delta` (m): the contact point in the middle of the overlap, the wall's surface
/// velocity there, the sphere's curvature (the wall's is neglected, as for a facet), Woo's
/// lengths `l1 = l2 = R`.
pub fn wall_geom(b1: &SphereBody, w: &Wall, n: Vec3, delta: f32, dt: f32) -> ContactGeom {
    let arm1 = n * (b1.radius - 0.5 * delta);
    wall_geom_arm(b1, arm1, w, n, delta, dt)
}

/// [`wall_geom`] with the lever arm `arm1` (m) from the body's centre to the contact point
/// given: a capsule's end sphere sits off its centre, so its arm is longer than the radius.
/// WGSL twin in `shaders/lib/wall.wgsl`.
pub fn wall_geom_arm(
    b1: &SphereBody,
    arm1: Vec3,
    w: &Wall,
    n: Vec3,
    delta: f32,
    dt: f32,
) -> ContactGeom {
    let m_eff = if b1.inv_mass > 0.0 {
        1.0 / b1.inv_mass
    } else {
        0.0
    };
    let point = v3(b1.pos) + arm1;
    let vc1 = v3(b1.vel) + v3(b1.omega).cross(arm1);
    ContactGeom {
        normal: n.to_array(),
        delta,
        point: point.to_array(),
        r_eff: b1.radius,
        vrel: (vc1 - w.velocity_at(point)).to_array(),
        m_eff,
        arm1: arm1.to_array(),
        fraction: 1.0,
        arm2: [0.0; 3],
        dt,
        lengths: [b1.radius, b1.radius],
        _pad: [0.0; 2],
        wrel: (v3(b1.omega) - wall_spin(w)).to_array(),
        _pad2: 0.0,
        alignment: [0.0; 3],
        _pad3: 0.0,
    }
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SpherePlaneResolver;

impl Resolver for SpherePlaneResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Wall];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_plane_overlap(pos[pr.p], walls[pr.q]);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    return resolve_sphere_plane(b1, walls[pr.q], step.dt);
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        let _ = rb;
        ra
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_sphere_plane(
            &load_sphere(pr.p as usize, b.pos, b.vel, b.omega),
            &b.walls[pr.q as usize],
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_plane_overlap(b.pos[pr.p as usize], &b.walls[pr.q as usize])
    }

    type Body1 = SphereBody;
    type Body2 = Wall;
    const TWIN_ARGS: &'static str = "b1, b2, dt";

    fn twin(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> ContactGeom {
        resolve_sphere_plane(&c.b1, &c.b2, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, Wall> {
        sphere_wall_case(WALL_PLANE, rng, i)
    }

    /// The normal comes from the wall's geometry (a curved wall's radial direction amplifies
    /// the rounding of the sphere's centre): measured, as [`wall_spread`] describes.
    fn rounding_spread(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> [f32; 4] {
        wall_spread(|b, w| resolve_sphere_plane(b, w, dt), &c.b1, &c.b2)
    }
}
