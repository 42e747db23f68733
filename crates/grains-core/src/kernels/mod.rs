//! CPU twins of every WGSL kernel. `kernels/<dir>/<stem>.rs` pairs with
//! `shaders/<dir>/<stem>.wgsl`: same function names, same parameter structs
//! ([`crate::kernel_types`]), same order of operations, so CPU/GPU parity is a few ulps.

pub mod clipped_dashpot;
pub mod established;
pub mod laws;
pub mod passes;
pub mod resolvers;
pub mod shell;
pub mod solve;
pub mod sources;
pub mod walls;

pub use passes::load_sphere;

use glam::{Vec3, Vec3A, Vec4};

/// The xyz of a vec4 record as one SSE register (its w lane ignored). Lane-wise arithmetic on
/// it gives the bits the scalar form gives, in a quarter of the instructions.
#[inline(always)]
pub(crate) fn a3(a: [f32; 4]) -> Vec3A {
    Vec3A::from_vec4(Vec4::from_array(a))
}

/// `x*x + y*y + z*z`, summed in that order (the scalar form's bits).
#[inline(always)]
pub(crate) fn len2(a: Vec3A) -> f32 {
    let m = a * a;
    m.x + m.y + m.z
}

#[inline]
pub(crate) fn v3(a: [f32; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

#[inline]
pub(crate) fn v4xyz(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}
