//! Geometry resolvers: from two bodies to a [`crate::gpu_types::ContactGeom`].

pub mod sphere_plane;
pub mod sphere_point;
pub mod sphere_sphere;

pub use sphere_plane::resolve_sphere_plane;
pub use sphere_point::resolve_sphere_point;
pub use sphere_sphere::resolve_sphere_sphere;

use crate::gpu_types::{DomainParams, PlaneWall, StepParams};

/// What a resolver may read of the world for a pair (the contact template's bindings): the
/// particle arrays, the walls and the domain.
#[derive(Clone, Copy, Debug)]
pub struct Bodies<'a> {
    pub step: &'a StepParams,
    pub domain: &'a DomainParams,
    pub walls: &'a [PlaneWall],
    pub pos: &'a [[f32; 4]],
    pub vel: &'a [[f32; 4]],
    pub omega: &'a [[f32; 4]],
}
