//! Geometry resolvers: from two bodies to a [`crate::gpu_types::ContactGeom`].

pub mod sphere_cone;
pub mod sphere_cylinder;
pub mod sphere_disk;
pub mod sphere_plane;
pub mod sphere_point;
pub mod sphere_sphere;

pub use sphere_cone::resolve_sphere_cone;
pub use sphere_cylinder::resolve_sphere_cylinder;
pub use sphere_disk::resolve_sphere_disk;
pub use sphere_plane::resolve_sphere_plane;
pub use sphere_point::resolve_sphere_point;
pub use sphere_sphere::resolve_sphere_sphere;

pub use glam::Vec3;

use crate::gpu_types::{DomainParams, StepParams, Wall, WALL_CONE, WALL_CYLINDER, WALL_DISK};

/// The unit normal from a sphere at `x` (centre xyz, radius w) into wall `w`, and their
/// overlap (m), as the wall's resolver computes them: for contact records and the initial
/// overlap check.
pub fn wall_contact(x: [f32; 4], w: &Wall) -> ([f32; 3], f32) {
    let c = glam::Vec3::new(x[0], x[1], x[2]);
    match w.kind {
        WALL_CYLINDER => {
            let (e, _) = sphere_cylinder::cylinder_radial(c, w);
            let n = if w.hollow != 0 { e } else { -e };
            (n.to_array(), sphere_cylinder::sphere_cylinder_overlap(x, w))
        }
        WALL_CONE => {
            let v = sphere_cone::cone_nearest(c, w);
            let d = v.length();
            let n = if d > 0.0 {
                v / d
            } else {
                -glam::Vec3::from(w.normal)
            };
            (n.to_array(), x[3] - d)
        }
        WALL_DISK => {
            let v = sphere_disk::disk_nearest(c, w);
            let d = v.length();
            let n = if d > 0.0 {
                v / d
            } else {
                -glam::Vec3::from(w.normal)
            };
            (n.to_array(), x[3] - d)
        }
        _ => (
            w.normal.map(|c| -c),
            sphere_plane::sphere_plane_overlap(x, w),
        ),
    }
}

/// What a resolver may read of the world for a pair (the contact template's bindings): the
/// particle arrays, the walls and the domain.
#[derive(Clone, Copy, Debug)]
pub struct Bodies<'a> {
    pub step: &'a StepParams,
    pub domain: &'a DomainParams,
    pub walls: &'a [Wall],
    pub pos: &'a [[f32; 4]],
    pub vel: &'a [[f32; 4]],
    pub omega: &'a [[f32; 4]],
}
