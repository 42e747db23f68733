//! The neighbour list as the CPU backend keeps it: each pair once, as a record of its owner.

use crate::kernels::passes::pair_record::{first_owned, owned_within, pair_starts};

/// The neighbour list as the CPU keeps it: each pair once, as a record of its owner. The state
/// ([`BackendState`]) and the GPU hold the full list, in which particle p's candidates
/// `nbr_start[p]..nbr_start[p+1]` are sorted by index: first the head, partners below p, then
/// the tail p owns (partners above it, then the walls near it as `n + w`), one record each,
/// `pair_start[p]..pair_start[p+1]`. Here the tail is its records' partners (`pair_j`) and the
/// head is the records its partners own (`head_pair`): 4 bytes per candidate, where the full
/// list's owners, partners and records take 12. The contact sweep and the history carry read
/// only records, and the gather a particle's head and its records, so nothing else is needed;
/// [`NeighbourList::to_full`] gives the state's arrays back.
#[derive(Clone, Debug, Default)]
pub struct NeighbourList {
    /// Where each particle's candidates start in the full list (`n + 1`).
    pub nbr_start: Vec<u32>,
    /// Where each particle's records start (`n + 1`).
    pub pair_start: Vec<u32>,
    /// Each record's partner: a particle above its owner or `n + w` for wall `w`, sorted within
    /// each owner's records.
    pub pair_j: Vec<u32>,
    /// Each particle's head as its pairs' records, from `nbr_start[p] - pair_start[p]`, in
    /// partner order; `u32::MAX` where the partner does not list the particle.
    pub head_pair: Vec<u32>,
    /// Head elements whose record is missing (`u32::MAX`), with their partner, which the full
    /// list names: none in a list the CPU builds, whose candidate test is symmetric.
    pub(super) head_orphans: Vec<(u32, u32)>,
}

impl NeighbourList {
    /// Particle p's elements of `head_pair`.
    pub(super) fn head(&self, p: usize) -> std::ops::Range<usize> {
        let at = |p: usize| (self.nbr_start[p] - self.pair_start[p]) as usize;
        at(p)..at(p + 1)
    }

    /// The partner of head element `h`: the owner of its record (the particle whose records
    /// hold it), or the partner the full list named for a missing record.
    pub(super) fn head_partner(&self, h: usize) -> u32 {
        match self.head_pair[h] {
            u32::MAX => {
                let at = self.head_orphans.partition_point(|o| (o.0 as usize) < h);
                self.head_orphans.get(at).map_or(u32::MAX, |o| o.1)
            }
            r => (self.pair_start.partition_point(|&s| s <= r) - 1) as u32,
        }
    }

    /// Particle p's records.
    pub(super) fn records(&self, p: usize) -> std::ops::Range<u32> {
        self.pair_start[p]..self.pair_start[p + 1]
    }

    /// Owning particle pairs (p < q) in record order, which is the list's sorted order; walls'
    /// records left out.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        let n = self.nbr_start.len().saturating_sub(1) as u32;
        crate::backend::records(&self.pair_start, &self.pair_j)
            .filter(|&(_, _, q)| q < n)
            .map(|(p, _, q)| (p, q))
            .collect()
    }

    /// A list from its kept arrays, as the GPU backend holds them (which keeps no partner for
    /// a head element whose record is missing: a full list with one does not go up to it).
    pub fn from_parts(
        nbr_start: Vec<u32>,
        pair_start: Vec<u32>,
        pair_j: Vec<u32>,
        head_pair: Vec<u32>,
    ) -> NeighbourList {
        NeighbourList {
            nbr_start,
            pair_start,
            pair_j,
            head_pair,
            head_orphans: Vec::new(),
        }
    }

    /// Whether a head element's record is missing (its partner does not list it): never in a
    /// list a backend builds, whose candidate test is symmetric.
    pub fn has_orphans(&self) -> bool {
        !self.head_orphans.is_empty()
    }

    /// The list kept from a full one (the state's `nbr_start`, `nbr_j` and `nbr_pair`), built
    /// within the full list's own arrays: the records' partners are `nbr_j`'s owned entries
    /// moved to its front, the heads' records `nbr_pair`'s head entries likewise, and what is
    /// left of each is given back. Taking a state up thus holds the full list and nothing
    /// beside it.
    pub fn from_full(
        nbr_start: Vec<u32>,
        nbr_j: Vec<u32>,
        mut nbr_pair: Vec<u32>,
    ) -> NeighbourList {
        let pair_start = pair_starts(&nbr_start, &nbr_j);
        let n = nbr_start.len().saturating_sub(1);
        // The heads' records move down within `nbr_pair` (never up: the k-th kept entry is at
        // k or past it) before the partners within `nbr_j`, since an orphan names its partner
        // from the full `nbr_j`.
        let mut head_orphans = Vec::new();
        let mut heads = 0;
        for p in 0..n {
            let owned = first_owned(p, &nbr_start, &pair_start) as usize;
            for k in nbr_start[p] as usize..owned {
                if nbr_pair[k] == u32::MAX {
                    head_orphans.push((heads as u32, nbr_j[k]));
                }
                nbr_pair[heads] = nbr_pair[k];
                heads += 1;
            }
        }
        nbr_pair.truncate(heads);
        nbr_pair.shrink_to_fit();
        let head_pair = nbr_pair;
        let pair_j = owned_within(&nbr_start, &pair_start, nbr_j);
        NeighbourList {
            nbr_start,
            pair_start,
            pair_j,
            head_pair,
            head_orphans,
        }
    }

    /// The full list's partners and records, `(nbr_j, nbr_pair)`, as the state holds them
    /// (each entry's owner is the particle whose range holds it,
    /// [`crate::kernels::passes::pair_record::entry_owners`]).
    pub fn to_full(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.nbr_start.len().saturating_sub(1);
        let total = self.nbr_start.last().copied().unwrap_or(0) as usize;
        let (mut nj, mut np) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for p in 0..n {
            for h in self.head(p) {
                nj.push(self.head_partner(h));
                np.push(self.head_pair[h]);
            }
            for r in self.records(p) {
                nj.push(self.pair_j[r as usize]);
                np.push(r);
            }
        }
        (nj, np)
    }
}
