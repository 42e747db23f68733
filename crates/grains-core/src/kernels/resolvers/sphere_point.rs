//! A sphere against a point of a surface: a node of a triangulated shell (Mpacts Sphere_Point,
//! `shared/reference/000`). WGSL twin: `shaders/resolvers/sphere_point.wgsl`.
//!
//! The node stands for the membrane around it, not for a ball: the overlap is the sphere's
//! radius plus the node's contact radius minus the distance, as for two spheres, but the
//! contact has the curvature of the sphere alone, `R* = R1` (a sphere on a flat membrane), and
//! no lever on the node, which has no rotational freedom. Body 1 is the sphere: shell nodes are
//! the last particles of a world, so the owning entry of a sphere-node pair has the sphere
//! first.

use crate::kernel_types::SourcePair;
use crate::kernel_types::{ContactGeom, DomainParams, SphereBody};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_sphere::resolve_sphere_sphere;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::parity::sphere_pair_case;
use crate::parity::SplitMix;

/// Overlap (m) of sphere `x1` and node `x2` (`w`: radius, contact radius), as
/// [`resolve_sphere_point`] computes `delta`.
#[inline]
pub fn sphere_point_overlap(x1: [f32; 4], x2: [f32; 4], domain: &DomainParams) -> f32 {
    crate::kernels::resolvers::sphere_sphere::sphere_sphere_overlap(x1, x2, domain)
}

/// Resolve the contact between sphere `b1` and shell node `b2`.
pub fn resolve_sphere_point(
    b1: &SphereBody,
    b2: &SphereBody,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let mut g = resolve_sphere_sphere(b1, b2, domain, dt);
    g.r_eff = b1.radius;
    g.arm2 = [0.0; 3];
    g
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SpherePointResolver;

impl Resolver for SpherePointResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_point_overlap(pos[pr.p], pos[pr.q], domain);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    let b2 = load_sphere(pos[pr.q], vel[pr.q], omega[pr.q]);
    return resolve_sphere_point(b1, b2, domain, step.dt);
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        // The sphere's curvature alone; the node's contact radius is the smaller.
        ra.max(rb)
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        let (p, q) = (pr.p as usize, pr.q as usize);
        resolve_sphere_point(
            &load_sphere(p, b.pos, b.vel, b.omega),
            &load_sphere(q, b.pos, b.vel, b.omega),
            b.domain,
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_point_overlap(b.pos[pr.p as usize], b.pos[pr.q as usize], b.domain)
    }

    type Body1 = SphereBody;
    type Body2 = SphereBody;
    const TWIN_ARGS: &'static str = "b1, b2, domain, dt";

    fn twin(
        c: &ResolverCase<SphereBody, SphereBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_sphere_point(&c.b1, &c.b2, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, SphereBody> {
        sphere_pair_case(rng, i)
    }
}
