//! One particle's part of the step after the contact sweep ([`super::CpuBackend::forces`]): its
//! gather and, fused into the same loop, its second half-step and the next step's first half.

use std::sync::atomic::{AtomicU8, Ordering};

use super::{
    adds_zero_exactly, drift_bits, DriftBits, NeighbourList, CONTACT_BLOCK, IN_CONTACT, NOT_IDLE,
};
use crate::kernel_types::{DomainParams, StepParams};
use crate::kernels::a3;
use crate::kernels::passes::gather::{gather_fixed, gather_head, GatherSlots};
use crate::kernels::passes::integrate_first_half::drift as first_half_drift;
use crate::kernels::passes::integrate_second_half::{spin_kick, velocity_kick};
use crate::kernels::passes::{integrate_first_half, integrate_second_half};
use crate::kernels::sources::neighbour::FarSlot;
use crate::shapes::{ShapeRecord, KIND_MEMBER};

/// What every particle's gather and halves read.
pub(super) struct ParticlePass<'a> {
    pub step: &'a StepParams,
    pub domain: &'a DomainParams,
    pub list: &'a NeighbourList,
    /// The packed slots, read through their flags.
    pub far: &'a [FarSlot],
    pub nbr_slot: &'a [u32],
    /// Per block of particles, the bits of those whose owner's sums the sweep took.
    pub owns: &'a [u64],
    /// The fixed pairs' slots.
    pub sums: GatherSlots<'a>,
    pub shape: &'a [u32],
    pub shapes: &'a [ShapeRecord],
    pub ref_pos: &'a [[f32; 4]],
    pub touched: &'a [AtomicU8],
    /// Whether the sweep ran (the world has chains on the list).
    pub swept: bool,
    /// Whether a particle whose stored force, torque and dissipation are a contact-free
    /// step's is left as it is.
    pub idle_skips: bool,
    /// Whether the second half-step follows the gather.
    pub fused: bool,
    /// Whether the next step's first half follows too.
    pub drift: bool,
}

impl ParticlePass<'_> {
    /// Particle `gid`'s gather and halves; `q` its orientation, or a scratch one where the
    /// world keeps none (nothing then turns it). Inlined into each of the caller's two loops
    /// (as a closure called from both it was not, and its call cost the settle 7% more
    /// instructions, callgrind).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn particle(
        &self,
        gid: usize,
        f: &mut [f32; 4],
        t: &mut [f32; 4],
        d: &mut [f32; 4],
        v: &mut [f32; 4],
        o: &mut [f32; 4],
        q: &mut [f32; 4],
        x: &mut [f32; 4],
        c: &mut [f32; 4],
    ) -> DriftBits {
        // Each field is read where it is used, not all up front: most particles of a gas take
        // the idle path, which reads a few of them (loading every field first cost the gas 8%
        // more instructions, callgrind).
        // A particle the sweep did not flag has none of its records in contact: it
        // sums its fixed pairs alone, in the same order, so the same bits.
        let flags = if self.swept {
            self.touched[gid].load(Ordering::Relaxed)
        } else {
            IN_CONTACT
        };
        let (fv, tv) = if flags & IN_CONTACT != 0 {
            // From the owner's side the sweep summed over the particle's records,
            // as the twin's gather sums them, then the head's.
            let block = gid / CONTACT_BLOCK;
            let summed = self.swept && self.owns[block] >> (gid % CONTACT_BLOCK) & 1 != 0;
            let (f0, t0, damp, fric) = if summed {
                let (a, b) = (*f, *t);
                (a3(a), a3(b), a[3], b[3])
            } else {
                (glam::Vec3A::ZERO, glam::Vec3A::ZERO, 0.0, 0.0)
            };
            let head = &self.list.head_pair[self.list.head(gid)];
            let slot = |k: usize| {
                let s = &self.far[k];
                (
                    glam::Vec3A::from_array(s.force),
                    glam::Vec3A::from_array(s.torque),
                )
            };
            let (fh, th) = gather_head(head, self.nbr_slot, (f0, t0), slot);
            let ft = gather_fixed(gid, self.step, &self.sums, (fh, th, damp, fric), f, t, d);
            if self.swept {
                self.touched[gid].store(NOT_IDLE, Ordering::Relaxed);
            }
            ft
        } else if flags != 0 || !self.idle_skips {
            let zero = (glam::Vec3A::ZERO, glam::Vec3A::ZERO, 0.0, 0.0);
            let ft = gather_fixed(gid, self.step, &self.sums, zero, f, t, d);
            // Zero force and torque are stored now; the dissipation's compensated
            // sums may take a step or two more to stop changing when nothing is
            // added.
            if self.idle_skips && adds_zero_exactly(d, self.step.unit) {
                self.touched[gid].store(0, Ordering::Relaxed);
            }
            ft
        } else {
            (glam::Vec3A::ZERO, glam::Vec3A::ZERO)
        };
        if !self.fused {
            return (0, 0, None);
        }
        // The gather and the halves pass force, torque and velocities on in
        // registers: read back from memory right after a store of another width,
        // they stall the load (store forwarding).
        let (mut vv, mut oo) = (*v, *o);
        let rec = &self.shapes[self.shape[gid] as usize];
        if self.drift && vv[3] > 0.0 && rec.kind != KIND_MEMBER && !rec.turns_rigidly() {
            // A free body turning about its centre (a sphere): this step's second
            // half and the next step's first half add the same kick (the force does
            // not change between them), computed once and added twice, in the
            // halves' order.
            let dv = velocity_kick(self.step, fv, vv[3]);
            let dw = spin_kick(self.step, tv, oo[3]);
            let (nv, nw) = (a3(vv) + dv + dv, a3(oo) + dw + dw);
            let r = first_half_drift(
                self.step,
                self.domain,
                x,
                c,
                &mut vv,
                &mut oo,
                q,
                nv,
                nw,
                None,
                rec.turns(),
                self.ref_pos[gid],
            );
            (*v, *o) = (vv, oo);
            return drift_bits(gid, r, &vv);
        }
        let (f, t) = (&fv.extend(0.0).to_array(), &tv.extend(0.0).to_array());
        let one = gid..=gid;
        integrate_second_half(
            0,
            self.step,
            &mut vv,
            &mut oo,
            std::slice::from_ref(q),
            std::slice::from_ref(f),
            std::slice::from_ref(t),
            &self.shape[one.clone()],
            self.shapes,
        );
        if !self.drift {
            (*v, *o) = (vv, oo);
            return (0, 0, None);
        }
        let r = integrate_first_half(
            0,
            self.step,
            self.domain,
            x,
            c,
            &mut vv,
            &mut oo,
            q,
            std::slice::from_ref(f),
            std::slice::from_ref(t),
            &self.ref_pos[one.clone()],
            &self.shape[one],
            self.shapes,
        );
        (*v, *o) = (vv, oo);
        drift_bits(gid, r, &vv)
    }
}
