//! Broad phase, pass 6: carry the packed slots of the pairs in contact to the rebuilt list.
//! WGSL twin: `shaders/passes/slot_carry.wgsl`. One invocation per packed slot ever taken
//! (`slot_count[SLOT_TAKEN]`): a slot in use knows its pair (`slot_pair`, kept since the pair
//! took it: owner p, partner q), finds the pair's record among p's new records and names
//! itself there (`nbr_slot`: 0 out of contact, else 1 + the pair's packed slot and history
//! record, see [`crate::kernels::passes::contact`]). The slots and history stay where they are,
//! so a rebuild moves 4 bytes per pair in contact, not its history, and reads nothing of the
//! old list. A pair the new list lacks gives its slot back to the ring of free slots
//! ([`give_slot_back`]). The new records' flags start at zero (grains-gpu's `clear_flags`).
//!
//! The CPU backend keeps no pair per slot: it carries each new record's flag from the old
//! list's records instead ([`carried_flag`]), to the same flags.

use crate::kernel_types::StepParams;
use crate::kernels::passes::pair_record::find_sorted;

crate::wgsl_constants! { slot_words_wgsl;
    /// The words of `slot_count` (shaders/lib/slot_ring.wgsl): slots ever taken (every slot
    /// below is in use or in the ring).
    pub SLOT_TAKEN: usize = 0;
    /// Where in the ring the slots given back before this step start, and how many there are.
    pub SLOT_HEAD: usize = 1;
    pub SLOT_FREE: usize = 2;
    /// Slots taken from the ring and given back to it in this step's contact passes (and its
    /// rebuild's carry).
    pub SLOT_POPS: usize = 3;
    pub SLOT_PUSHES: usize = 4;
    /// 1 while the contact passes run again for the records that found no slot.
    pub SLOT_PENDING: usize = 5;
    /// The slots there are, the ring's length.
    pub SLOT_CAPACITY: usize = 6;
    /// Words of `slot_count`.
    pub SLOT_WORDS: usize = 8;
    /// A slot's pair (`slot_pair`) while no pair holds it.
    pub NO_PAIR: u32 = u32::MAX;
}

/// Carry packed slot `gid` to the new list (`pair_start`, `pair_j`), or give it back.
#[allow(clippy::too_many_arguments)]
pub fn slot_carry(
    gid: usize,
    step: &StepParams,
    slot_pair: &mut [[u32; 2]],
    pair_j: &[u32],
    pair_start: &[u32],
    nbr_slot: &mut [u32],
    slot_count: &mut [u32],
    free_slots: &mut [u32],
) {
    if gid >= slot_count[SLOT_TAKEN] as usize {
        return;
    }
    let [p, q] = slot_pair[gid];
    if p == NO_PAIR {
        return;
    }
    let r = if p < step.n_particles {
        let (lo, hi) = (pair_start[p as usize], pair_start[p as usize + 1]);
        find_sorted(pair_j, lo, hi, q)
    } else {
        u32::MAX
    };
    if r != u32::MAX {
        nbr_slot[r as usize] = gid as u32 + 1;
        return;
    }
    slot_pair[gid] = [NO_PAIR; 2];
    give_slot_back(gid as u32, slot_count, free_slots);
}

/// Slot `k` back to the ring of free slots, after those this step's takers read
/// (shaders/lib/slot_ring.wgsl's `give_slot_back`).
pub fn give_slot_back(k: u32, slot_count: &mut [u32], free_slots: &mut [u32]) {
    let cap = slot_count[SLOT_CAPACITY];
    let m = slot_count[SLOT_PUSHES];
    slot_count[SLOT_PUSHES] += 1;
    let at = slot_count[SLOT_HEAD] + slot_count[SLOT_FREE] + m;
    free_slots[(at % cap) as usize] = k;
}

/// The flag pair (p, q) (q > p) had in the old list (0 if it was absent), found among p's old
/// records (`old_pair_start`, `old_j`, their partners): the CPU backend's carry, record by
/// record, which gives the flags [`slot_carry`] gives slot by slot.
#[inline]
pub fn carried_flag(
    p: u32,
    q: u32,
    old_pair_start: &[u32],
    old_j: &[u32],
    old_slot: &[u32],
) -> u32 {
    if (p as usize) + 1 >= old_pair_start.len() {
        return 0;
    }
    let (lo, hi) = (old_pair_start[p as usize], old_pair_start[p as usize + 1]);
    match find_sorted(old_j, lo, hi, q) {
        u32::MAX => 0,
        r => old_slot[r as usize],
    }
}
