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

use crate::gpu_types::{
    DomainParams, SphereBody, StepParams, Wall, WALL_CONE, WALL_CYLINDER, WALL_DISK,
};

/// The unit normal from a sphere at `x` (centre xyz, radius w) into wall `w`, and their
/// overlap (m), as the wall's resolver computes them: for contact records and the initial
/// overlap check.
pub fn wall_contact(x: [f32; 4], w: &Wall) -> ([f32; 3], f32) {
    let b = SphereBody {
        pos: [x[0], x[1], x[2]],
        radius: x[3],
        ..Default::default()
    };
    let g = match w.kind {
        WALL_CYLINDER => resolve_sphere_cylinder(&b, w, 0.0),
        WALL_CONE => resolve_sphere_cone(&b, w, 0.0),
        WALL_DISK => resolve_sphere_disk(&b, w, 0.0),
        _ => resolve_sphere_plane(&b, w, 0.0),
    };
    (g.normal, g.delta)
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
