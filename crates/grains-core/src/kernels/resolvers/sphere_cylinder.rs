//! Sphere against an infinite cylinder wall. WGSL twin: `shaders/resolvers/sphere_cylinder.wgsl`.
//!
//! The cylinder's axis passes through `point` along the unit `normal`, at `radius`. A solid
//! cylinder keeps spheres outside (`delta = R + r_c - rho`), a hollow one inside, as a
//! drum's shell (`delta = R + rho - r_c`), with `rho` the centre's distance from the axis. The
//! normal points from the sphere to the cylinder's surface along the radial direction; the
//! rest is the shared wall contact ([`super::sphere_plane::wall_geom`]), with the sphere's
//! curvature alone (valid for cylinders much larger than the spheres).

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernel_types::SourcePair;
use crate::kernels::walls::WALL_CYLINDER;
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

/// The radial unit vector of `x` from the axis, and the distance from the axis (m). On the
/// axis, a direction across it (the one nearest +x or +y).
pub fn cylinder_radial(x: Vec3, w: &Wall) -> (Vec3, f32) {
    let a = v3(w.normal);
    let d = x - v3(w.point);
    let radial = d - d.dot(a) * a;
    let rho = radial.length();
    if rho > 0.0 {
        return (radial / rho, rho);
    }
    let mut across = a.cross(Vec3::Z);
    if across.dot(across) < 0.25 {
        across = a.cross(Vec3::X);
    }
    (across.normalize(), 0.0)
}

/// Overlap (m) of the sphere at `x` with cylinder `w`, as [`resolve_sphere_cylinder`]
/// computes `delta`.
pub fn sphere_cylinder_overlap(x: [f32; 4], w: &Wall) -> f32 {
    let (_, rho) = cylinder_radial(Vec3::new(x[0], x[1], x[2]), w);
    if w.hollow != 0 {
        x[3] + rho - w.radius
    } else {
        x[3] + w.radius - rho
    }
}

/// Resolve the contact between sphere `b1` and cylinder wall `w`.
pub fn resolve_sphere_cylinder(b1: &SphereBody, w: &Wall, dt: f32) -> ContactGeom {
    let (e, rho) = cylinder_radial(v3(b1.pos), w);
    if w.hollow != 0 {
        wall_geom(b1, w, e, b1.radius + rho - w.radius, dt)
    } else {
        wall_geom(b1, w, -e, b1.radius + w.radius - rho, dt)
    }
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SphereCylinderResolver;

impl Resolver for SphereCylinderResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Wall];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_cylinder_overlap(pos[pr.p], walls[pr.q]);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    return resolve_sphere_cylinder(b1, walls[pr.q], step.dt);
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        let _ = rb;
        ra
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_sphere_cylinder(
            &load_sphere(pr.p as usize, b.pos, b.vel, b.omega),
            &b.walls[pr.q as usize],
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_cylinder_overlap(b.pos[pr.p as usize], &b.walls[pr.q as usize])
    }

    type Body1 = SphereBody;
    type Body2 = Wall;
    const TWIN_ARGS: &'static str = "b1, b2, dt";

    fn twin(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> ContactGeom {
        resolve_sphere_cylinder(&c.b1, &c.b2, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, Wall> {
        sphere_wall_case(WALL_CYLINDER, rng, i)
    }

    /// The normal comes from the wall's geometry (a curved wall's radial direction amplifies
    /// the rounding of the sphere's centre): measured, as [`wall_spread`] describes.
    fn rounding_spread(c: &ResolverCase<SphereBody, Wall>, _: &DomainParams, dt: f32) -> [f32; 4] {
        wall_spread(|b, w| resolve_sphere_cylinder(b, w, dt), &c.b1, &c.b2)
    }
}
