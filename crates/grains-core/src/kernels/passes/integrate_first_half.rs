//! First half of velocity Verlet. WGSL twin: `shaders/passes/integrate_first_half.wgsl`.
//!
//! `v += (F/m + g) dt/2; x += v dt; omega += T/I dt/2; q += dt/2 (0, omega) q`, normalised (a
//! particle without spin keeps its orientation as it is, and so does a sphere whose orientation
//! is not tracked, [`ShapeRecord::turns`]; a capsule is kicked in angular
//! momentum, turned exactly and its spin read back at the new orientation, so a free capsule
//! keeps its angular momentum: [`angular_momentum`], [`spin_of`]).
//! The drift is a Kahan-compensated sum (`pos_comp` holds what f32 positions could not take):
//! without it, a slow particle far from the origin stops moving once `v dt` falls below half an
//! ulp of its coordinate (at 0.1 m and dt = 1e-5 s, below 4e-4 m/s), and a settling packing
//! freezes with residual velocities its dashpots keep turning into phantom forces.
//! Then the squared displacement since the last rebuild is returned as f32 bits, which the GPU
//! folds into `max_disp2` with `atomicMax` (for non-negative floats the bit patterns order like
//! the values) and the CPU backend reduces with `max`. The per-particle outputs are the elements
//! at `gid` of the WGSL bindings of the same names.
//! Fixed particles (inverse mass 0) keep their velocities and move with
//! them.
//!
//! The pass is also the run's guard ([`particle_fault`]): it already holds every particle's new
//! position and velocity, so checking them costs no extra memory traffic. A faulty particle's
//! index is folded into `fault` with `atomicMin` on the GPU (`u32::MAX` when none), and the CPU
//! backend reduces with `min`: both name the lowest faulty index of the step.

use crate::kernel_types::{DomainParams, StepParams};
use crate::kernels::passes::integrate_second_half::{spin_kick, velocity_kick};
use crate::kernels::resolvers::sphere_sphere::min_image_a;
use crate::kernels::{a3, len2, v4xyz};
use crate::shapes::{angular_momentum, quat_turn, spin_of, ShapeRecord, KIND_MEMBER};
use glam::{Vec3, Vec3A, Vec4};

/// Wrap a coordinate into `[min, min + L)` on periodic axes.
pub fn wrap_position(x: Vec3, domain: &DomainParams) -> Vec3 {
    wrap_position_a(Vec3A::from(x), domain).into()
}

/// [`wrap_position`] on a vector: inside the box, clear of its far end, the floor is 0 and the
/// result `x - L * 0`, x itself: the same bits without the divide (every particle but the few
/// crossing), decided for the three lanes at once.
#[inline]
pub fn wrap_position_a(x: Vec3A, domain: &DomainParams) -> Vec3A {
    if domain.periodic_mask == 0 {
        return x;
    }
    let o = x - Vec3A::from_array(domain.min);
    let l = Vec3A::from_array(domain.length);
    let inside = (o.cmpgt(Vec3A::ZERO) & o.cmplt(0.999_999 * l)).bitmask();
    if domain.periodic_mask & !inside & 7 == 0 {
        return x;
    }
    let mut a = x.to_array();
    for (k, ak) in a.iter_mut().enumerate() {
        if domain.periodic_mask & (1 << k) != 0 {
            let l = domain.length[k];
            let o = *ak - domain.min[k];
            if o > 0.0 && o < 0.999_999 * l {
                continue;
            }
            *ak -= l * (o / l).floor();
        }
    }
    Vec3A::from_array(a)
}

/// What `integrate_first_half` reports for one particle: the squared displacement since the
/// last rebuild as f32 bits (the WGSL `max_disp2` operand) and whether the particle is a fault
/// (the WGSL `fault` operand is then its `gid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstHalf {
    pub disp2_bits: u32,
    pub fault: bool,
}

/// Whether a free particle's new state stops a guarded run: a non-finite position or velocity,
/// a speed above `step.max_speed`, or a centre outside the domain on a non-periodic axis.
/// Fixed particles (inverse mass 0) are prescribed and never faults. WGSL twin: `particle_fault`
/// in the same pass.
pub fn particle_fault(
    step: &StepParams,
    domain: &DomainParams,
    x: Vec3A,
    v: Vec3A,
    inv_m: f32,
) -> bool {
    if inv_m <= 0.0 {
        return false;
    }
    if !x.is_finite() || velocity_fault(v, step.max_speed) {
        return true;
    }
    let lo = Vec3A::from_array(domain.min);
    let hi = lo + Vec3A::from_array(domain.length);
    let out = (x.cmplt(lo) | x.cmpgt(hi)).bitmask();
    out & !domain.periodic_mask & 7 != 0
}

/// Whether velocity `v` is a fault: non-finite, or faster than `max_speed` (m/s). The part
/// of [`particle_fault`] a step's second half (which moves no particle) can change, which a
/// guarded run checks at its end ([`crate::backend::end_of_step_fault`]).
#[inline(always)]
pub fn velocity_fault(v: Vec3A, max_speed: f32) -> bool {
    !v.is_finite() || len2(v) > max_speed * max_speed
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
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
    shape: &[u32],
    shapes: &[ShapeRecord],
) -> FirstHalf {
    let half = 0.5 * step.dt;
    let inv_m = vel[3];
    let inv_i = omega[3];
    let mut v = a3(*vel);
    let mut w = a3(*omega);
    let rec = &shapes[shape[gid] as usize];
    if rec.kind == KIND_MEMBER {
        // A clump's member follows its body (`clump_place`); its last placement still counts
        // towards the rebuild.
        let d = min_image_a(a3(*pos) - a3(ref_pos[gid]), domain);
        return FirstHalf {
            disp2_bits: len2(d).to_bits(),
            fault: false,
        };
    }
    let k = [rec.data[2], rec.data[3], rec.data[4]];
    // A capsule of zero length has isotropic inertia: the scalar path is exact for it.
    let rigid = inv_m > 0.0 && rec.turns_rigidly();
    let mut l = Vec3::ZERO;
    if inv_m > 0.0 {
        v += velocity_kick(step, a3(force[gid]), inv_m);
        if rigid {
            l = angular_momentum(w.into(), *quat, k, inv_m) + v4xyz(torque[gid]) * half;
            w = spin_of(l, *quat, k, inv_m).into();
        } else {
            w += spin_kick(step, a3(torque[gid]), inv_i);
        }
    }
    let turn = if rigid { Some((l, k)) } else { None };
    drift(
        step,
        domain,
        pos,
        pos_comp,
        vel,
        omega,
        quat,
        v,
        w,
        turn,
        rec.turns(),
        ref_pos[gid],
    )
}

/// The drift of [`integrate_first_half`] once the particle is kicked to velocity `v` and spin
/// `w`: position (compensated), orientation, the stored velocities, the displacement since
/// the last rebuild and the guard. `turn` is a rigid body's angular momentum and inertia per
/// mass; `turns`, whether any other body's orientation follows its spin
/// ([`ShapeRecord::turns`]: not an untracked sphere's). The CPU backend's fused sweep calls it too, after kicking a free sphere through both
/// half-steps at once.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn drift(
    step: &StepParams,
    domain: &DomainParams,
    pos: &mut [f32; 4],
    pos_comp: &mut [f32; 4],
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    quat: &mut [f32; 4],
    v: Vec3A,
    mut w: Vec3A,
    turn: Option<(Vec3, [f32; 3])>,
    turns: bool,
    ref_pos: [f32; 4],
) -> FirstHalf {
    let half = 0.5 * step.dt;
    let (inv_m, inv_i) = (vel[3], omega[3]);
    // The turn first: its square root and divide then run while the position moves on.
    if let Some((l, k)) = turn {
        let q = *quat;
        // Turn by the spin at the half-turned orientation (midpoint rule): second order, where
        // the spin at the start alone would be first order.
        let mid = quat_turn(q, w.into(), half);
        *quat = quat_turn(q, spin_of(l, mid, k, inv_m), step.dt);
        w = spin_of(l, *quat, k, inv_m).into();
    } else if turns && w != Vec3A::ZERO {
        // Without spin the orientation stays as it is: a frictionless sphere never turns, and
        // most of a gas' spheres skip the square root and divides below. An untracked
        // sphere's never turns (`turns`), which spares a spinning bed the same work.
        // dq = (omega, 0) * q, written out so the WGSL twin can follow the same operations:
        // component k is `(a_k + b_k) - c_k`, the last `-((a + b) + c)`, which is
        // `((-a) + (-b)) - c` exactly. Here as four lanes at once, each lane rounding as the
        // WGSL's scalar operations do.
        let q = *quat;
        let p1 = Vec4::new(w.x, w.y, w.z, -w.x) * Vec4::new(q[3], q[3], q[3], q[0]);
        let p2 = Vec4::new(w.y, w.z, w.x, -w.y) * Vec4::new(q[2], q[0], q[1], q[1]);
        let p3 = Vec4::new(w.z, w.x, w.y, w.z) * Vec4::new(q[1], q[2], q[0], q[2]);
        let dq = p1 + p2 - p3;
        let qn = Vec4::from_array(q) + half * dq;
        let m = qn * qn;
        let qlen = (m.x + m.y + m.z + m.w).sqrt();
        *quat = (qn / qlen).to_array();
    }
    let x0 = a3(*pos);
    let y = v * step.dt - a3(*pos_comp);
    let t = x0 + y;
    let c = (t - x0 * step.unit) - y;
    *pos_comp = c.extend(0.0).to_array();
    let x = wrap_position_a(t, domain);
    *pos = x.extend(pos[3]).to_array();
    *vel = v.extend(inv_m).to_array();
    *omega = w.extend(inv_i).to_array();
    let d = min_image_a(x - a3(ref_pos), domain);
    FirstHalf {
        disp2_bits: len2(d).to_bits(),
        fault: particle_fault(step, domain, x, v, inv_m),
    }
}
