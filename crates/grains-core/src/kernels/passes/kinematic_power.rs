//! The work kinematic particles do on the rest of the system. WGSL twin:
//! `shaders/passes/kinematic_power.wgsl`.
//!
//! A kinematic particle is a fixed body (inverse mass 0 in `vel.w`: no integrator moves it)
//! that keeps a set velocity `v` and spin `omega`. The gather leaves on it, as on any particle,
//! the total force `F` and the torque `T` about its centre that its contacts (and shell
//! elements, fixed pairs, a clump body's members) put on it. Its contacts' forces are internal:
//! for every one, the power of the pair of forces equals the rate of change of its elastic
//! energy plus its dissipation, minus the power it delivers to its two bodies,
//! `dE_el/dt + D = -(F_a . v_a + T_a . omega_a) - (F_b . v_b + T_b . omega_b)`. Summed over
//! the world, the free bodies' share is the rate of their kinetic (and gravitational) energy,
//! so the ledger's terms change at `d(E_kin + E_grav + E_el)/dt + D = -(F . v + T . omega)`
//! summed over the kinematic bodies, whose own kinetic energy is constant (their velocity
//! never changes, and the ledger does not count it). Booking
//! `P = -(F . v + T . omega)` per kinematic body and subtracting its integral from the total
//! (`energy.csv`'s `kinematic_work`) therefore closes the ledger.
//!
//! Each step's gather is booked over one step, `P dt`, after the gather of that step: velocity
//! Verlet moves the energy by the trapezoid of the forces at the step's two ends, so the sum
//! books every force but the first at its full weight and the first at none; the ledger then
//! holds within half a step's work of the first and latest forces, `(|F_0| + |F_n|) |v| dt / 2`.
//! The initial forces are not booked. One invocation per particle adds `P dt` to its
//! `kinematic_work` (Kahan-compensated), after the gather (and the clump and shell passes);
//! dispatched only in a world where a kinematic particle moves ([`crate::world::World::kinematic`]).
//! A free particle and a clump's member (whose body books its members' sum) add nothing.

use crate::kernel_types::StepParams;
use crate::kernels::passes::gather::kahan_add;
use crate::kernels::v4xyz;
use crate::shapes::{ShapeRecord, KIND_MEMBER};

/// Add the work kinematic particle `gid` did on the rest of the system this step to `work`.
#[allow(clippy::too_many_arguments)]
pub fn kinematic_power(
    gid: usize,
    step: &StepParams,
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    force: &[[f32; 4]],
    torque: &[[f32; 4]],
    shape: &[u32],
    shapes: &[ShapeRecord],
    work: &mut [f32; 2],
) {
    if vel[gid][3] != 0.0 || shapes[shape[gid] as usize].kind == KIND_MEMBER {
        return;
    }
    let p = -(v4xyz(force[gid]).dot(v4xyz(vel[gid])) + v4xyz(torque[gid]).dot(v4xyz(omega[gid])));
    let (a, c) = kahan_add(work[0], work[1], p * step.dt, step.unit);
    *work = [a, c];
}
