//! Geometry resolvers: from two bodies to a [`crate::gpu_types::ContactGeom`].

pub mod sphere_plane;
pub mod sphere_sphere;

pub use sphere_plane::resolve_sphere_plane;
pub use sphere_sphere::resolve_sphere_sphere;
