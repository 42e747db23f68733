//! The sweep of the neighbour list's records in blocks of particles
//! ([`super::CpuBackend::sweep_list`]): what every block reads ([`ListSweep`]), what each writes
//! ([`SweepBlock`]), and the walk of one block's records.

use std::sync::atomic::{AtomicU8, Ordering};

use super::regions::take_own;
use super::skip::ApartSkip;
use super::{CONTACT_BLOCK, IN_CONTACT};
use crate::kernel_types::Wall;
use crate::kernels::passes::{ChainRun, SlotSink};
use crate::kernels::resolvers::sphere_plane::sphere_plane_overlap;
use crate::kernels::resolvers::sphere_sphere::sphere_sphere_apart_by;
use crate::kernels::resolvers::{Bodies, ResolverKind};
use crate::kernels::sources::list_record_pair;
use crate::kernels::sources::neighbour::{FarSlot, OwnSums, SlotRegion};
use crate::materials::PairTable;

/// What every block of the sweep reads.
pub(super) struct ListSweep<'a> {
    pub table: &'a PairTable,
    pub bodies: &'a Bodies<'a>,
    pub material: &'a [u32],
    /// Every chain, by id.
    pub runs: &'a [ChainRun<'a>],
    pub n: usize,
    pub pair_start: &'a [u32],
    pub pair_j: &'a [u32],
    pub walls: &'a [Wall],
    /// The fixed pairs' flags: which division pairs are in cytokinesis.
    pub fixed_active: &'a [u32],
    /// Words of a history record of the list (`PairTable::nbr_history_words`).
    pub stride: usize,
    /// The largest reach of the list's chains where every one of them is sphere-sphere.
    pub sphere_reach: Option<f32>,
    pub skip: ApartSkip,
    /// Per particle, whether this step's sweep left one of its records in contact.
    pub touched: &'a [AtomicU8],
}

/// What one block of particles writes: its region of the slots and history, its spill, its
/// records' flags and apart marks, its particles' force and torque (the owners' sums) and the
/// bits of those whose sums it took.
pub(super) struct SweepBlock<'b> {
    /// The region's first slot (`slot_base`).
    pub base: u32,
    pub slots: &'b mut [FarSlot],
    pub history: &'b mut [f32],
    pub spill: &'b mut (Vec<FarSlot>, Vec<f32>),
    pub flags: &'b mut [u32],
    pub apart: &'b mut [u8],
    pub force: &'b mut [[f32; 4]],
    pub torque: &'b mut [[f32; 4]],
    pub owns: &'b mut u64,
}

impl ListSweep<'_> {
    /// How far apart an inactive record's spheres are, where they are clearly apart: an
    /// inactive entry clearly beyond the largest reach of the sphere-sphere chains is skipped
    /// on its squared distance alone, before its pair, table and chain are looked up.
    #[inline(always)]
    pub fn idle_by(&self, p: usize, q: usize, active: u32) -> Option<f32> {
        if q >= self.n || active != 0 {
            return None;
        }
        let pos = self.bodies.pos;
        sphere_sphere_apart_by(pos[p], pos[q], self.bodies.domain, self.sphere_reach?)
    }

    /// Sweep block `b`'s records in record order, writing the slots and history of its pairs
    /// in contact into its own region; returns the slots it took. `copy` is the task's
    /// scratch for last step's history.
    #[inline(always)]
    pub fn block(&self, b: usize, blk: SweepBlock<'_>, copy: &mut Vec<f32>) -> usize {
        let SweepBlock {
            base,
            slots,
            history,
            spill,
            flags: a,
            apart,
            force,
            torque,
            owns,
        } = blk;
        // The flags name last step's history in the block's own region, which the block now
        // writes this step's into: it reads a copy (one task's scratch), so the history is
        // held once, not in a second whole array.
        copy.clear();
        copy.extend_from_slice(history);
        let history_in = &copy[..];
        let mut region = SlotRegion {
            base,
            slots,
            history,
            used: 0,
            spill,
            own: OwnSums::default(),
            wall: false,
        };
        let (skip, pair_start) = (&self.skip, self.pair_start);
        let first = b * CONTACT_BLOCK;
        let r0 = pair_start[first] as usize;
        let mut p = first;
        // The particle whose records `region.own` sums, and the block's bits of particles
        // whose sums were taken.
        let (mut owner, mut mask) = (first, 0u64);
        let mut k = 0;
        while k < a.len() {
            // Marked only while inactive and apart: still apart, as `ApartSkip` shows, without
            // reading the partner. On a gas or a falling bed most records are, so the marks
            // are read sixteen at a time (their least against the bound), and a record's
            // owner is found only for a record tested.
            if let Some(m) = apart.get(k..k + 16) {
                if skip.skips(m.iter().copied().fold(u8::MAX, u8::min)) {
                    k += 16;
                    continue;
                }
            }
            if skip.skips(apart[k]) {
                k += 1;
                continue;
            }
            let r = r0 + k;
            while pair_start[p + 1] as usize <= r {
                p += 1;
            }
            if p != owner {
                take_own(&mut region.own, owner - first, force, torque, &mut mask);
                owner = p;
            }
            let q = self.pair_j[r] as usize;
            self.record(p, q, (&mut a[k], &mut apart[k]), &mut region, history_in);
            // The gather reads only the records of particles flagged here.
            if a[k] != 0 {
                self.touched[p].store(IN_CONTACT, Ordering::Relaxed);
                if q < self.n {
                    self.touched[q].store(IN_CONTACT, Ordering::Relaxed);
                }
            }
            k += 1;
        }
        take_own(&mut region.own, owner - first, force, torque, &mut mask);
        *owns = mask;
        region.used
    }

    /// Record (`p`, `q`) with its flag and apart mark: marked apart where it clearly is, else
    /// evaluated by its chain into `region`.
    #[inline(always)]
    fn record(
        &self,
        p: usize,
        q: usize,
        (flag, apart): (&mut u32, &mut u8),
        region: &mut SlotRegion<'_>,
        history_in: &[f32],
    ) {
        if let Some(gap) = self.idle_by(p, q, *flag) {
            *apart = self.skip.mark(gap);
            return;
        }
        *apart = 0;
        let (t, bodies) = (self.table, self.bodies);
        let (src, pr) = list_record_pair(
            p as u32,
            q as u32,
            (self.walls, self.fixed_active),
            bodies.step,
            self.material,
        );
        let (map, params) = (t.chain_map(src), t.params_of(src));
        if pr.owns == 0 {
            return;
        }
        let Some(chain) = self.runs.get(map[pr.table as usize] as usize) else {
            return;
        };
        // An inactive record clearly beyond its own chain's reach, of two spheres or of a
        // sphere and a still plane: `evaluate` would find it out of reach and write nothing,
        // so it is marked as `idle_by`'s are.
        if *flag == 0 {
            let x = bodies.pos[p];
            let gap = match chain.spec.resolver {
                ResolverKind::SphereSphere => {
                    sphere_sphere_apart_by(x, bodies.pos[q], bodies.domain, chain.range)
                }
                ResolverKind::SpherePlane => {
                    let w = &self.walls[pr.q as usize];
                    let o = sphere_plane_overlap(x, w);
                    self.skip.plane_gap(o, chain.range, x[3], w)
                }
                _ => None,
            };
            if let Some(gap) = gap {
                *apart = self.skip.mark(gap);
                return;
            }
        }
        region.wall = q >= self.n;
        (chain.evaluate)(
            &pr,
            chain,
            bodies,
            params,
            t.params_stride,
            SlotSink::Packed {
                region,
                history_in,
                stride: self.stride,
            },
            flag,
        )
    }
}
