//! First half of velocity Verlet. WGSL twin: `shaders/passes/integrate_first_half.wgsl`.
//!
//! `v += (F/m + g) dt/2; x += v dt; omega += T/I dt/2; q += dt/2 (0, omega) q` (normalised),
//! The drift is a Kahan-compensated sum (`pos_comp` holds what f32 positions could not take):
//! without it, a slow particle far from the origin stops moving once `v dt` falls below half an
//! ulp of its coordinate (at 0.1 m and dt = 1e-5 s, below 4e-4 m/s), and a settling packing
//! freezes with residual velocities its dashpots keep turning into phantom forces.
//! then the squared displacement since the last rebuild is returned as f32 bits, which the GPU
//! folds into `max_disp2` with `atomicMax` (for non-negative floats the bit patterns order like
//! the values) and the CPU backend reduces with `max`. The per-particle outputs are the elements
//! at `gid` of the WGSL bindings of the same names.
//! Fixed particles (inverse mass 0) keep their velocities and move with
//! them.

use crate::gpu_types::{DomainParams, StepParams};
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::v4xyz;
use glam::Vec3;

/// Wrap a coordinate into `[min, min + L)` on periodic axes.
pub fn wrap_position(x: Vec3, domain: &DomainParams) -> Vec3 {
    let mut a = x.to_array();
    for (k, ak) in a.iter_mut().enumerate() {
        if domain.periodic_mask & (1 << k) != 0 {
            let l = domain.length[k];
            *ak -= l * ((*ak - domain.min[k]) / l).floor();
        }
    }
    Vec3::from_array(a)
}

#[allow(clippy::too_many_arguments)]
pub fn integrate_first_half(
    gid: usize,
    step: &StepParams,
    domain: &DomainParams,
    pos: &mut [f32; 4],
    pos_comp: &mut [f32; 4],
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    quat: &mut [f32; 4],
    force: &[[f32; 4]],
    torque: &[[f32; 4]],
    ref_pos: &[[f32; 4]],
) -> u32 {
    let half = 0.5 * step.dt;
    let inv_m = vel[3];
    let inv_i = omega[3];
    let mut v = v4xyz(*vel);
    let mut w = v4xyz(*omega);
    if inv_m > 0.0 {
        v += (v4xyz(force[gid]) * inv_m + Vec3::from_array(step.gravity)) * half;
        w += v4xyz(torque[gid]) * inv_i * half;
    }
    let x0 = v4xyz(*pos);
    let y = v * step.dt - v4xyz(*pos_comp);
    let t = x0 + y;
    let c = (t - x0 * step.unit) - y;
    *pos_comp = [c.x, c.y, c.z, 0.0];
    let x = wrap_position(t, domain);
    let q = *quat;
    // dq = (omega, 0) * q, written out so the WGSL twin can follow the same operations.
    let dq = [
        w.x * q[3] + w.y * q[2] - w.z * q[1],
        w.y * q[3] + w.z * q[0] - w.x * q[2],
        w.z * q[3] + w.x * q[1] - w.y * q[0],
        -(w.x * q[0] + w.y * q[1] + w.z * q[2]),
    ];
    let qn = [
        q[0] + half * dq[0],
        q[1] + half * dq[1],
        q[2] + half * dq[2],
        q[3] + half * dq[3],
    ];
    let qlen = (qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]).sqrt();
    *quat = [qn[0] / qlen, qn[1] / qlen, qn[2] / qlen, qn[3] / qlen];
    *pos = [x.x, x.y, x.z, pos[3]];
    *vel = [v.x, v.y, v.z, inv_m];
    *omega = [w.x, w.y, w.z, inv_i];
    let d = min_image((x - v4xyz(ref_pos[gid])).to_array(), domain);
    let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    d2.to_bits()
}
