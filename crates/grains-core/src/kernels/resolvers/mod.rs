//! Geometry resolvers: from two bodies to a [`crate::gpu_types::ContactGeom`].

pub mod capsule_capsule;
pub mod capsule_plane;
pub mod capsule_sphere;
pub mod capsule_triangle;
pub mod sphere_cone;
pub mod sphere_cylinder;
pub mod sphere_disk;
pub mod sphere_plane;
pub mod sphere_point;
pub mod sphere_sphere;
pub mod sphere_triangle;

pub use capsule_capsule::resolve_capsule_capsule;
pub use capsule_plane::resolve_capsule_plane;
pub use capsule_sphere::resolve_capsule_sphere;
pub use capsule_triangle::resolve_capsule_triangle;
pub use sphere_cone::resolve_sphere_cone;
pub use sphere_cylinder::resolve_sphere_cylinder;
pub use sphere_disk::resolve_sphere_disk;
pub use sphere_plane::resolve_sphere_plane;
pub use sphere_point::resolve_sphere_point;
pub use sphere_sphere::resolve_sphere_sphere;
pub use sphere_triangle::resolve_sphere_triangle;

pub use glam::Vec3;

use crate::gpu_types::{
    ContactGeom, DomainParams, SphereBody, StepParams, Wall, WALL_CONE, WALL_CYLINDER, WALL_DISK,
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

/// The same contact seen from the other body: normal, arms, relative velocities and lengths
/// exchanged or reversed, the rest unchanged. A resolver of two kinds of body (`capsule_sphere`)
/// is written for one order; the pair source hands pairs in index order (body 1 the lower
/// index), so a pair in the other order is resolved as written and flipped, and the slot's
/// force stays the force on the lower index. WGSL twin `flip_geom` in `shaders/lib/shape.wgsl`.
pub fn flip_geom(g: &ContactGeom) -> ContactGeom {
    let neg = |a: [f32; 3]| [-a[0], -a[1], -a[2]];
    ContactGeom {
        normal: neg(g.normal),
        arm1: g.arm2,
        arm2: g.arm1,
        vrel: neg(g.vrel),
        wrel: neg(g.wrel),
        lengths: [g.lengths[1], g.lengths[0]],
        ..*g
    }
}

/// What a resolver may read of the world for a pair (the contact template's bindings): the
/// particle arrays, the shape and triangle tables, the walls and the domain.
#[derive(Clone, Copy, Debug)]
pub struct Bodies<'a> {
    pub step: &'a StepParams,
    pub domain: &'a DomainParams,
    pub walls: &'a [Wall],
    pub pos: &'a [[f32; 4]],
    pub vel: &'a [[f32; 4]],
    pub omega: &'a [[f32; 4]],
    /// Orientations (x, y, z, w).
    pub quat: &'a [[f32; 4]],
    /// Each particle's index into `shapes`.
    pub shape: &'a [u32],
    /// The shape table ([`crate::shapes`]).
    pub shapes: &'a [crate::shapes::ShapeRecord],
    /// The mesh walls' triangles, relative to their particles' centres.
    pub triangles: &'a [crate::gpu_types::Triangle],
}
