//! The shape table: what each particle is, beyond the bounding sphere the broad phase sees.
//!
//! Every particle holds an index into the world's table (`Particles::shape`); `pos.w` stays
//! the bounding radius, so the broad phase and the sphere resolvers do not change when a shape
//! is added. Today every particle is a sphere (entry 0). A capsule's half-length and axis, a
//! clump's member range and principal inertia will be entries of this table, read by their
//! resolvers and by the integrator, one record per distinct shape (not per particle).

use bytemuck::{Pod, Zeroable};

/// The kind of a shape record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ShapeKind {
    /// A solid sphere of the particle's radius (`pos.w`); no data.
    Sphere = 0,
}

/// One entry of the shape table, as the kernels will read it (32 bytes, two vec4s).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShapeRecord {
    /// [`ShapeKind`] as a number.
    pub kind: u32,
    /// Shape data whose meaning depends on the kind (lengths in m, inertia in kg m^2); unused
    /// for a sphere.
    pub data: [f32; 7],
}

impl ShapeRecord {
    /// The sphere: a particle of the radius its `pos.w` gives.
    pub fn sphere() -> ShapeRecord {
        ShapeRecord {
            kind: ShapeKind::Sphere as u32,
            data: [0.0; 7],
        }
    }
}

/// Index of the sphere in every world's shape table.
pub const SPHERE: u32 = 0;
