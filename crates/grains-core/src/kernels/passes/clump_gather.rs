//! Clumps, after the gather: each body takes its members' forces. WGSL twin:
//! `shaders/passes/clump_gather.wgsl`.
//!
//! A body's force is the sum of its members' (Newton's third law already holds pair by pair);
//! its torque about its centre of mass adds each member's own torque and the moment of its
//! force about the body's centre, `(x_m - x_b) x F_m` (minimum image on periodic axes). The
//! members follow in a fixed order, so the sum is the same on both backends.

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::v4xyz;
use crate::shapes::{ShapeRecord, KIND_CLUMP};

/// The `(force, torque)` of particle `gid` if it is a clump's body, from its members' entries
/// of the whole `force` and `torque` arrays.
pub fn clump_gather(
    gid: usize,
    domain: &DomainParams,
    shape: &[u32],
    shapes: &[ShapeRecord],
    pos: &[[f32; 4]],
    force: &[[f32; 4]],
    torque: &[[f32; 4]],
) -> Option<([f32; 4], [f32; 4])> {
    let rec = shapes[shape[gid] as usize];
    if rec.kind != KIND_CLUMP {
        return None;
    }
    let count = rec.data[0].to_bits() as usize;
    let xb = v4xyz(pos[gid]);
    let (mut f, mut t) = (glam::Vec3::ZERO, glam::Vec3::ZERO);
    for m in gid + 1..=gid + count {
        let fm = v4xyz(force[m]);
        let r = glam::Vec3::from(min_image((v4xyz(pos[m]) - xb).to_array(), domain));
        f += fm;
        t += v4xyz(torque[m]) + r.cross(fm);
    }
    Some(([f.x, f.y, f.z, 0.0], [t.x, t.y, t.z, 0.0]))
}
