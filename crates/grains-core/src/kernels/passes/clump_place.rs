//! Clumps, after the drift: each member sphere follows its body. WGSL twin:
//! `shaders/passes/clump_place.wgsl`.
//!
//! A member sits at its body's centre plus its offset turned by the body's orientation, moves
//! with the body's velocity at that point and spins with it. Members are placed from bodies
//! only (a body is never written here), so every invocation is independent.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernels::passes::integrate_first_half::wrap_position;
use crate::kernels::v4xyz;
use crate::shapes::{quat_rotate, ShapeRecord, KIND_MEMBER};

/// The placed `(pos, vel, omega, quat)` of particle `gid` if it is a member of a clump, from its
/// body's arrays (`pos`, `vel`, `omega`, `quat` are the whole arrays; the member keeps its own
/// `w` components).
#[allow(clippy::too_many_arguments)]
pub fn clump_place(
    gid: usize,
    domain: &DomainParams,
    shape: &[u32],
    shapes: &[ShapeRecord],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    quat: &[[f32; 4]],
) -> Option<[[f32; 4]; 4]> {
    let rec = shapes[shape[gid] as usize];
    if rec.kind != KIND_MEMBER {
        return None;
    }
    let b = gid - rec.data[3].to_bits() as usize;
    let q = quat[b];
    let arm = quat_rotate(q, Vec3::new(rec.data[0], rec.data[1], rec.data[2]));
    let x = wrap_position(v4xyz(pos[b]) + arm, domain);
    let w = v4xyz(omega[b]);
    let v = v4xyz(vel[b]) + w.cross(arm);
    Some([
        [x.x, x.y, x.z, pos[gid][3]],
        [v.x, v.y, v.z, vel[gid][3]],
        [w.x, w.y, w.z, omega[gid][3]],
        q,
    ])
}
