//! Second half of velocity Verlet. WGSL twin: `shaders/passes/integrate_second_half.wgsl`.

use crate::gpu_types::StepParams;
use crate::kernels::v4xyz;
use crate::shapes::{angular_momentum, spin_of, ShapeRecord, KIND_MEMBER};
use glam::Vec3;

/// `v += (F/m + g) dt/2; omega += T/I dt/2` for free particles (a capsule kicked in angular
/// momentum at its orientation after the drift, [`angular_momentum`] and [`spin_of`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn integrate_second_half(
    gid: usize,
    step: &StepParams,
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    quat: &[[f32; 4]],
    force: &[[f32; 4]],
    torque: &[[f32; 4]],
    shape: &[u32],
    shapes: &[ShapeRecord],
) {
    let half = 0.5 * step.dt;
    let inv_m = vel[3];
    let inv_i = omega[3];
    if inv_m > 0.0 {
        let v = v4xyz(*vel) + (v4xyz(force[gid]) * inv_m + Vec3::from_array(step.gravity)) * half;
        let rec = shapes[shape[gid] as usize];
        if rec.kind == KIND_MEMBER {
            return;
        }
        let w = if rec.inertia_per_mass().is_some() {
            let k = [rec.data[2], rec.data[3], rec.data[4]];
            let l =
                angular_momentum(v4xyz(*omega), quat[gid], k, inv_m) + v4xyz(torque[gid]) * half;
            spin_of(l, quat[gid], k, inv_m)
        } else {
            v4xyz(*omega) + v4xyz(torque[gid]) * inv_i * half
        };
        *vel = [v.x, v.y, v.z, inv_m];
        *omega = [w.x, w.y, w.z, inv_i];
    }
}
