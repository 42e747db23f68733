//! The contact blocks' slot regions: where each block of particles writes the slots and
//! history of its records in contact, laid out again as blocks outgrow them.

use super::CONTACT_BLOCK;
use crate::kernels::sources::neighbour::{FarSlot, OwnSums};
use rayon::prelude::*;

/// `v` cut into consecutive disjoint mutable slices of the given lengths, which the blocks
/// fill in parallel.
pub(super) fn cut<T>(v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    let mut rest = v;
    for len in lens {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        out.push(head);
        rest = tail;
    }
    out
}

/// An array of `per` elements per record, cut into the records of each block of
/// `CONTACT_BLOCK` particles (those of their owning entries, from `pair_start[first]`).
pub(super) fn record_blocks<'a, T>(
    v: &'a mut [T],
    per: usize,
    pair_start: &[u32],
) -> Vec<&'a mut [T]> {
    let n = pair_start.len().saturating_sub(1);
    let lens = (0..n).step_by(CONTACT_BLOCK).map(|first| {
        let last = (first + CONTACT_BLOCK).min(n);
        (pair_start[last] - pair_start[first]) as usize * per
    });
    cut(v, lens)
}

/// The records of block `b`'s particles (`CONTACT_BLOCK` of the `n`), as `(k, (p, r))` in
/// record order, with the block's first record: the records its slices of [`record_blocks`]
/// start from, so record `r` is the block's `k`-th.
pub(super) fn block_records(
    b: usize,
    n: usize,
    pair_start: &[u32],
) -> (usize, impl Iterator<Item = (usize, (usize, usize))> + '_) {
    let first = b * CONTACT_BLOCK;
    let records = (first..(first + CONTACT_BLOCK).min(n)).flat_map(move |p| {
        (pair_start[p] as usize..pair_start[p + 1] as usize).map(move |r| (p, r))
    });
    (pair_start[first] as usize, records.enumerate())
}

/// The slots a contact block with `used` pairs in contact is given for the next steps: its
/// count with a thirty-second and four more, so that a block whose contacts grow by a few
/// keeps writing in place. At 3 contacts per sphere (a dense pack) the margin is 5% of the
/// slots; with an eighth it was 15%, 28 B per sphere of slots and history that a settled pack
/// never uses, while a settling bed outgrows a region rarely either way (a relay moves the
/// slots within their arrays, and costs about one sweep's writes).
pub(super) fn slot_capacity(used: usize) -> u32 {
    (used + used / SLOT_MARGIN + 4) as u32
}

/// A contact block's region holds `1 / SLOT_MARGIN` more slots than it used.
pub const SLOT_MARGIN: usize = 32;

/// Where each contact block's region of the packed slots starts, for blocks with `used` pairs
/// in contact each (the last element is the total).
pub(super) fn slot_layout(used: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut base = vec![0u32];
    for u in used {
        base.push(base[base.len() - 1] + slot_capacity(u));
    }
    base
}

/// Where each contact block's slots start when they are packed, `used` each with no margin
/// (the last element is the total).
pub(super) fn slot_layout_packed(used: &[usize]) -> Vec<u32> {
    let mut base = vec![0u32];
    for &u in used {
        base.push(base[base.len() - 1] + u as u32);
    }
    base
}

/// `v` cut at `base` (`per` elements per slot): each block's region.
pub(super) fn regions<'a, T>(v: &'a mut [T], base: &[u32], per: usize) -> Vec<&'a mut [T]> {
    cut(v, base.windows(2).map(|w| (w[1] - w[0]) as usize * per))
}

/// Move each contact block's `kept` leading elements (`per` per slot) of `v` from its region
/// at `old` to its region at `new`, then its `spill` after them, within `v` itself: the
/// array never exists twice, so laying the regions out anew costs no more memory than the
/// larger of the two layouts. Blocks keep their order, so a first pass (last block first)
/// moves every block to the later of its two starts, where it overlaps neither neighbour, and
/// a second (first block first) to its new start.
pub(super) fn relay_in_place<T: Copy + Default>(
    v: &mut Vec<T>,
    per: usize,
    old: &[u32],
    new: &[u32],
    kept: &[usize],
    spill: &[&[T]],
) {
    let nb = kept.len();
    let total = |b: &[u32]| b[nb] as usize * per;
    fit(v, total(old).max(total(new)));
    let later = |b: usize| old[b].max(new[b]) as usize * per;
    for b in (0..nb).rev() {
        let from = old[b] as usize * per;
        v.copy_within(from..from + kept[b] * per, later(b));
    }
    for b in 0..nb {
        let to = new[b] as usize * per;
        let k = kept[b] * per;
        v.copy_within(later(b)..later(b) + k, to);
        v[to + k..to + k + spill[b].len()].copy_from_slice(spill[b]);
    }
    fit(v, total(new));
}

/// Renumber the flags of the records in contact `1, 2, ...` in record order and move each
/// one's history (`stride` words a slot) to that slot, dropping the history no flag names:
/// the packing a state's arrays have ([`crate::state::check_packing`]). Flags naming slots
/// past the history (which no backend writes) are cleared, their history lost, rather than
/// read out of bounds. A no-op on flags already packed.
pub(super) fn pack_in_record_order(nbr_slot: &mut [u32], history: &mut Vec<f32>, stride: usize) {
    let slots = history.len() / stride.max(1);
    let mut next = 0u32;
    let packed = nbr_slot.iter().all(|&a| {
        next += (a != 0) as u32;
        a == 0 || a == next
    });
    if packed && history.len() == next as usize * stride {
        return;
    }
    let mut out = Vec::with_capacity(next as usize * stride);
    let mut next = 0u32;
    for a in nbr_slot.iter_mut().filter(|a| **a != 0) {
        let old = *a as usize - 1;
        if old >= slots {
            *a = 0;
            continue;
        }
        out.extend_from_slice(&history[old * stride..(old + 1) * stride]);
        next += 1;
        *a = next;
    }
    *history = out;
}

/// Resize `v` to `len` (new elements default) holding about what it needs: grown exactly (the
/// slot arrays grow by a little most steps of a settling bed, and doubling would hold up to
/// twice the slots), and given back when it holds an eighth more than `len` (a loosening pack,
/// whose freed pages would otherwise stay resident), not at every small shrink, which would
/// churn the allocator.
pub(super) fn fit<T: Clone + Default>(v: &mut Vec<T>, len: usize) {
    v.reserve_exact(len.saturating_sub(v.len()));
    v.resize(len, T::default());
    if v.capacity() > len + len / 8 {
        v.shrink_to_fit();
    }
}

/// Lay the contact blocks' regions out anew for `used` slots each: each block's slots and
/// history (`stride` words per slot; those past its old region from its spill) move to its new
/// region, in order, and its flags shift by the move. Run after a sweep in which a block
/// outgrew its region or the regions hold far more than the contacts; the slots keep their
/// order, so the gather's sums and the bits are the same.
#[allow(clippy::too_many_arguments)]
pub(super) fn relay_slots(
    slots: &mut Vec<FarSlot>,
    history: &mut Vec<f32>,
    base: &mut Vec<u32>,
    spill: &mut [(Vec<FarSlot>, Vec<f32>)],
    used: &[usize],
    stride: usize,
    nbr_slot: &mut [u32],
    pair_start: &[u32],
) {
    let new_base = slot_layout(used.iter().copied());
    let kept: Vec<usize> = (0..used.len())
        .map(|b| used[b].min((base[b + 1] - base[b]) as usize))
        .collect();
    let spilled: Vec<&[FarSlot]> = spill.iter().map(|s| &s.0[..]).collect();
    relay_in_place(slots, 1, base, &new_base, &kept, &spilled);
    let spilled: Vec<&[f32]> = spill.iter().map(|s| &s.1[..]).collect();
    relay_in_place(history, stride, base, &new_base, &kept, &spilled);
    // Free what the spills took: they are rare, and their lists would stay allocated.
    spill.iter_mut().for_each(|s| *s = Default::default());
    shift_flags(nbr_slot, pair_start, base, &new_base);
    *base = new_base;
}

/// Each contact block's flags moved with its slots from its region at `old` to its region at
/// `new` (the slots keep their order within the block).
pub(super) fn shift_flags(nbr_slot: &mut [u32], pair_start: &[u32], old: &[u32], new: &[u32]) {
    record_blocks(nbr_slot, 1, pair_start)
        .into_par_iter()
        .enumerate()
        .for_each(|(b, flags)| {
            let (from, to) = (old[b], new[b]);
            for a in flags.iter_mut().filter(|a| **a != 0) {
                *a = *a - from + to;
            }
        });
}

/// Store the owner's side the sweep summed for particle `k` of a contact block, if it summed
/// any record: force and torque in the particle's `force` and `torque`, the damping and
/// friction dissipation in their `w`, and bit `k` of the block's `mask`. The gather starts
/// from them (`owns`) and stores the particle's totals over them.
#[inline(always)]
pub(super) fn take_own(
    own: &mut OwnSums,
    k: usize,
    force: &mut [[f32; 4]],
    torque: &mut [[f32; 4]],
    mask: &mut u64,
) {
    if own.any {
        force[k] = own.force.extend(own.damping).to_array();
        torque[k] = own.torque.extend(own.friction).to_array();
        *mask |= 1 << k;
        *own = OwnSums::default();
    }
}

/// The arrays a first sweep lays out: the records' flags, the history, the regions' bases and
/// the blocks' spills.
pub(super) struct FirstSweep<'a> {
    pub nbr_slot: &'a mut Vec<u32>,
    pub history: &'a mut Vec<f32>,
    pub slot_base: &'a mut Vec<u32>,
    pub spill: &'a mut Vec<(Vec<FarSlot>, Vec<f32>)>,
}

/// Lay out the contact blocks' regions for a first sweep (or a state just taken up), for the
/// list whose records start at `pair_start` with partners `pair_j` (`stride` history words a
/// slot), a record clearly apart where `clearly_idle(owner, partner, flag)`.
pub(super) fn first_sweep_regions(
    s: FirstSweep<'_>,
    pair_start: &[u32],
    pair_j: &[u32],
    stride: usize,
    clearly_idle: impl Fn(usize, usize, u32) -> bool + Sync,
) {
    let n = pair_start.len() - 1;
    let nb = n.div_ceil(CONTACT_BLOCK);
    // First sweep (or a state just taken up): regions for the records that may be in
    // contact, those in contact last step and those whose spheres are not clearly
    // apart (every record of other shapes and walls), so that no block outgrows its
    // region. Spilling a whole first sweep instead would hold every slot twice and
    // leave the allocator with the spills' freed memory.
    // A state taken up and rebuilt before its first sweep (a resumed step whose
    // particles moved past the skin) carries the flags of the pairs still in the
    // list, with gaps where the rebuild dropped pairs in contact: packed again here.
    pack_in_record_order(s.nbr_slot, s.history, stride);
    let active = &*s.nbr_slot;
    let counts: Vec<usize> = (0..nb)
        .into_par_iter()
        .map(|b| {
            let (first, records) = block_records(b, n, pair_start);
            records
                .filter(|&(k, (p, r))| !clearly_idle(p, pair_j[r] as usize, active[first + k]))
                .count()
        })
        .collect();
    let new_base = slot_layout(counts.into_iter());
    *s.spill = vec![Default::default(); nb];
    // Until then the slots are packed in record order: none in a new backend's
    // first list, a validated state's otherwise. Each block's pairs in contact lie
    // together, in order, so their history moves to the new regions within its own
    // array, as a relay moves it.
    let used: Vec<usize> = (0..nb)
        .into_par_iter()
        .map(|b| {
            let (first, records) = block_records(b, n, pair_start);
            records.filter(|&(k, _)| active[first + k] != 0).count()
        })
        .collect();
    let old_base = slot_layout_packed(&used);
    let none: Vec<&[f32]> = vec![&[]; nb];
    relay_in_place(s.history, stride, &old_base, &new_base, &used, &none);
    shift_flags(s.nbr_slot, pair_start, &old_base, &new_base);
    *s.slot_base = new_base;
}
