//! Second half of velocity Verlet. WGSL twin: `shaders/passes/integrate_second_half.wgsl`.

use crate::kernel_types::StepParams;
use crate::kernels::{a3, v4xyz};
use crate::shapes::{angular_momentum, spin_of, ShapeRecord, KIND_MEMBER};
use glam::Vec3A;

/// The velocity kick of half a step, `(F/m + g) dt/2` for force `f` (N) and inverse mass
/// `inv_m` (1/kg), in the operations both half-steps use (and the CPU backend's fused sweep,
/// which adds it twice). In a planar world its z is dropped: the particle stays in its plane.
/// Over [`StepParams::kick`]: zero in the implicit dynamics modes, whose solve sets the
/// velocities.
#[inline(always)]
pub fn velocity_kick(step: &StepParams, f: Vec3A, inv_m: f32) -> Vec3A {
    let k = (f * inv_m + Vec3A::from_array(step.gravity)) * step.kick;
    // A multiply by a mask, not a lane written: the kick stays in its register (a lane store
    // would send it through memory in every particle's kick).
    if step.planar != 0 {
        return k * Vec3A::new(1.0, 1.0, 0.0);
    }
    k
}

/// The spin kick of half a step of a body that turns about its centre, `T/I dt/2` for torque
/// `t` (N m) and inverse moment of inertia `inv_i` (1/(kg m^2)). In a planar world only its z
/// is kept: the body turns about the plane's normal. Zero in the implicit dynamics modes.
#[inline(always)]
pub fn spin_kick(step: &StepParams, t: Vec3A, inv_i: f32) -> Vec3A {
    let k = t * inv_i * step.kick;
    if step.planar != 0 {
        return k * Vec3A::new(0.0, 0.0, 1.0);
    }
    k
}

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
        let v = a3(*vel) + velocity_kick(step, a3(force[gid]), inv_m);
        let rec = &shapes[shape[gid] as usize];
        if rec.kind == KIND_MEMBER {
            return;
        }
        let w: Vec3A = if rec.turns_rigidly() {
            let k = [rec.data[2], rec.data[3], rec.data[4]];
            let l =
                angular_momentum(v4xyz(*omega), quat[gid], k, inv_m) + v4xyz(torque[gid]) * half;
            spin_of(l, quat[gid], k, inv_m).into()
        } else {
            a3(*omega) + spin_kick(step, a3(torque[gid]), inv_i)
        };
        *vel = v.extend(inv_m).to_array();
        *omega = w.extend(inv_i).to_array();
    }
}
