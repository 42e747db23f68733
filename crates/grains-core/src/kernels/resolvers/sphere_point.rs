//! A sphere against a point of a surface: a node of a triangulated shell (Mpacts Sphere_Point,
//! `shared/reference/000`). WGSL twin: `shaders/resolvers/sphere_point.wgsl`.
//!
//! The node stands for the membrane around it, not for a ball: the overlap is the sphere's
//! radius plus the node's contact radius minus the distance, as for two spheres, but the
//! contact has the curvature of the sphere alone, `R* = R1` (a sphere on a flat membrane), and
//! no lever on the node, which has no rotational freedom. Body 1 is the sphere: shell nodes are
//! the last particles of a world, so the owning entry of a sphere-node pair has the sphere
//! first.

use crate::gpu_types::{ContactGeom, DomainParams, SphereBody};
use crate::kernels::resolvers::sphere_sphere::resolve_sphere_sphere;

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
