//! CPU twins of every WGSL kernel. `kernels/<dir>/<stem>.rs` pairs with
//! `shaders/<dir>/<stem>.wgsl`: same function names, same parameter structs
//! ([`crate::gpu_types`]), same order of operations, so CPU/GPU parity is a few ulps.

pub mod clipped_dashpot;
pub mod established;
pub mod laws;
pub mod passes;
pub mod resolvers;
pub mod shell;
pub mod sources;

pub use passes::load_sphere;

use glam::Vec3;

#[inline]
pub(crate) fn v3(a: [f32; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

#[inline]
pub(crate) fn v4xyz(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}
