//! Sphere against a flat disk wall, touched from either side. WGSL twin:
//! `shaders/resolvers/sphere_disk.wgsl`.
//!
//! The disk is centred on `point` with unit `normal` and `radius`. Its point nearest the
//! sphere's centre is on its face (the centre projected onto its plane) or, beyond the radius,
//! on its rim; the normal points from the sphere to that point and the overlap is the radius
//! minus the distance. The rest is the shared wall contact
//! ([`super::sphere_plane::wall_geom`]).

use glam::Vec3;

use crate::gpu_types::{ContactGeom, SphereBody, Wall};
use crate::kernels::resolvers::sphere_plane::wall_geom;
use crate::kernels::v3;

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
