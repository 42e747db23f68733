//! Sphere-plane resolver. WGSL twin: `shaders/resolvers/sphere_plane.wgsl`.
//!
//! Body 1 is the sphere, body 2 the wall; the normal points from the sphere into the wall
//! (the opposite of the wall's inward normal). The wall does not move. Contact lengths follow
//! Woo's rule for a zero-thickness facet: `l1 = l2 = R`.

use crate::gpu_types::{ContactGeom, PlaneWall, SphereBody};
use crate::kernels::v3;

/// Overlap (m) of the sphere at `x` (centre xyz, radius w) with wall `w`, computed exactly as
/// [`resolve_sphere_plane`] computes `delta` (an early out for the wall pass).
pub fn sphere_plane_overlap(x: [f32; 4], w: &PlaneWall) -> f32 {
    let s = (x[0] - w.point[0]) * w.normal[0]
        + (x[1] - w.point[1]) * w.normal[1]
        + (x[2] - w.point[2]) * w.normal[2];
    x[3] - s
}

/// Resolve the contact between sphere `b1` and plane wall `w`.
pub fn resolve_sphere_plane(b1: &SphereBody, w: &PlaneWall, dt: f32) -> ContactGeom {
    let p1 = v3(b1.pos);
    let wn = v3(w.normal);
    let s = (p1 - v3(w.point)).dot(wn);
    let n = -wn;
    let delta = b1.radius - s;
    let arm1 = n * (b1.radius - 0.5 * delta);
    let m_eff = if b1.inv_mass > 0.0 {
        1.0 / b1.inv_mass
    } else {
        0.0
    };
    let vc1 = v3(b1.vel) + v3(b1.omega).cross(arm1);
    ContactGeom {
        normal: n.to_array(),
        delta,
        point: (p1 + arm1).to_array(),
        r_eff: b1.radius,
        vrel: vc1.to_array(),
        m_eff,
        arm1: arm1.to_array(),
        fraction: 1.0,
        arm2: [0.0; 3],
        dt,
        lengths: [b1.radius, b1.radius],
        _pad: [0.0; 2],
        wrel: b1.omega,
        _pad2: 0.0,
    }
}
