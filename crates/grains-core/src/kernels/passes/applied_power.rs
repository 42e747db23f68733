//! Applied forces: each free particle's held force joins its gathered force, and its work is
//! booked. WGSL twin: `shaders/passes/applied_power.wgsl`.
//!
//! A force applied from outside (`applied_force`, set between steps by
//! [`crate::Backend::apply_forces`]) acts on its particle every step until changed. One
//! invocation per particle adds it to the particle's force after the gather and what adds to
//! it (shell nodes' shares, a clump body's members), so the second half-step kicks with it,
//! and the next step's first half too (the gathered force is what the first half reads); the
//! implicit modes' solve takes it in its right-hand side. A kinematic particle (inverse mass
//! 0, which keeps its set velocity), a removed or dormant one and one without an applied force
//! are left as they are, so a world holding no forces runs as one without the array.
//!
//! The ledger: the force does work `F . (x_{n+1} - x_n)` over the step. Velocity Verlet drifts
//! by the mid-step velocity, `x_{n+1} - x_n = v_{n+1/2} dt`, which `vel` holds between the first
//! half and the second, here; so `F . v dt` is booked, Kahan-compensated, into the particle's
//! `kinematic_work` (work done on the system from outside, subtracted from the ledger's
//! total). For a free particle under a constant force alone the kinetic energy grows by
//! exactly that each step (`m/2 (v_{n+1}^2 - v_n^2) = F . v_{n+1/2} dt`), so the total stays
//! constant to rounding. Run in the steps only, with the ledger's other bookings
//! ([`crate::schedule::Schedule::booked`]); dispatched only in a world holding applied forces
//! ([`crate::world::World::applied_forces`]).

use crate::kernel_types::StepParams;
use crate::kernels::passes::gather::kahan_add;
use crate::kernels::v4xyz;
use glam::Vec3;

/// Add particle `gid`'s applied force to its gathered `force` and its work this step to `work`.
#[inline]
pub fn applied_power(
    gid: usize,
    step: &StepParams,
    vel: &[[f32; 4]],
    applied_force: &[[f32; 4]],
    force: &mut [f32; 4],
    work: &mut [f32; 2],
) {
    let a = v4xyz(applied_force[gid]);
    let v = vel[gid];
    if v[3] == 0.0 || a == Vec3::ZERO {
        return;
    }
    let f = v4xyz(*force) + a;
    *force = [f.x, f.y, f.z, force[3]];
    let p = a.dot(v4xyz(v));
    let (s, c) = kahan_add(work[0], work[1], p * step.dt, step.unit);
    *work = [s, c];
}
