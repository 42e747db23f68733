//! Pair sources: where a contact pass finds its pairs. WGSL twins: `shaders/sources/<stem>.wgsl`,
//! which the composer inserts into the one contact template (`shaders/passes/contact.wgsl`).
//!
//! A source owns its pairs (how invocation `gid` maps to two bodies and to a record), where
//! their history and force slots are kept (`source_history`, `place_slot`: per pair for the
//! fixed source, packed for the pairs in contact in the list's), and says whether its history
//! is carried over when the neighbour list is rebuilt. The backends, the gather, the state
//! arrays (checkpoints, save/restore, the memory estimate) and the energy ledger loop over
//! [`SourceKind::ALL`]. Matches on [`SourceKind`] have no wildcard arm: a new source makes the
//! compiler list every place to teach.
//!
//! - [`neighbour`]: the broad phase's candidate list, rebuilt when particles have moved;
//!   history follows a pair across rebuilds.
//! - [`wall`]: the neighbour list's entries of walls (a particle near a wall), sharing the
//!   list's slots and history.
//! - [`fixed`]: pairs given by topology (bonds, mesh edges, bending hinges), never from the
//!   hash and never dropped by it; a fixed slot each.

pub mod fixed;
pub mod neighbour;
pub mod wall;

use crate::kernel_types::{SourcePair, Wall};

/// A kind of pair source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKind {
    /// The broad phase's neighbour list.
    Neighbour,
    /// Particles against walls (planes, cylinders, disks, cones): entries of the neighbour
    /// list.
    Wall,
    /// Pairs from the scene's topology.
    Fixed,
}

impl SourceKind {
    /// Every source, in the order the gather sums their slots.
    pub const ALL: [SourceKind; 3] = [SourceKind::Neighbour, SourceKind::Wall, SourceKind::Fixed];

    /// File stem under `shaders/sources/` and `kernels/sources/`.
    pub fn stem(self) -> &'static str {
        match self {
            SourceKind::Neighbour => "neighbour",
            SourceKind::Wall => "wall",
            SourceKind::Fixed => "fixed",
        }
    }

    /// Whether its pairs are entries of the neighbour list, whose slots and history records it
    /// shares (one array each for both sources).
    pub fn in_list(self) -> bool {
        match self {
            SourceKind::Neighbour => true,
            SourceKind::Wall => true,
            SourceKind::Fixed => false,
        }
    }

    /// Name of the state array (and GPU buffer) of its history records.
    pub fn history_array(self) -> &'static str {
        match self {
            SourceKind::Neighbour => "history",
            SourceKind::Wall => "history",
            SourceKind::Fixed => "fixed_history",
        }
    }

    /// Name of the state array (and GPU buffer) of its force slots (packed for the list's).
    pub fn slots_array(self) -> &'static str {
        match self {
            SourceKind::Neighbour => "slots",
            SourceKind::Wall => "slots",
            SourceKind::Fixed => "fixed_slots",
        }
    }

    /// Name of the state array (and GPU buffer) of its records' slot flags (0 while a record's
    /// history is zero and it has no slot; see [`crate::kernels::passes::contact`]).
    pub fn active_array(self) -> &'static str {
        match self {
            SourceKind::Neighbour => "nbr_slot",
            SourceKind::Wall => "nbr_slot",
            SourceKind::Fixed => "fixed_active",
        }
    }

    /// Name of the pair table's chain map for this source (and its GPU buffer), which the
    /// contact template binds as `pair_chain`.
    pub fn chain_map(self) -> &'static str {
        match self {
            SourceKind::Neighbour => "sphere_chain",
            SourceKind::Wall => "wall_chain",
            SourceKind::Fixed => "fixed_chain",
        }
    }

    /// Whether the contact pass runs one invocation per particle, over the particle's pairs of
    /// the source (`source_range`), rather than one per pair: the list's two sources, whose
    /// invocations sum their particle's side of its pairs in contact as they go (so the packed
    /// slots keep only the other side's, shaders/lib/packed_slots.wgsl); the wall source's
    /// many particles far from every wall cost one short read each.
    pub fn per_particle(self) -> bool {
        match self {
            SourceKind::Neighbour => true,
            SourceKind::Wall => true,
            SourceKind::Fixed => false,
        }
    }

    /// Whether the pairs change at a rebuild, so their history must be carried over by
    /// matching pairs (`slot_carry`). Fixed-slot sources keep theirs in place.
    pub fn rebuilt(self) -> bool {
        match self {
            SourceKind::Neighbour => true,
            SourceKind::Wall => true,
            SourceKind::Fixed => false,
        }
    }
}

/// What a source's pairs index: the arrays `source_pair` reads, per source.
#[derive(Clone, Copy, Debug)]
pub enum SourceView<'a> {
    /// Invocation `gid` is record `gid`, of particle `owner`.
    Neighbour {
        owner: u32,
        pair_j: &'a [u32],
        /// The fixed pairs' flags, which say which division pairs are in cytokinesis.
        fixed_active: &'a [u32],
    },
    /// Invocation `gid` is record `gid`, of particle `owner`.
    Wall {
        walls: &'a [Wall],
        owner: u32,
        pair_j: &'a [u32],
    },
    Fixed {
        fixed_pairs: &'a [[u32; 2]],
    },
}

/// Neighbour-list record of particle `owner` with partner `q` (a wall's index past the
/// particles) as its source reads it, through the sources' own `source_pair` on a one-record
/// list: the record's source (neighbour or wall) and its pair, whose `table` entry names its
/// chain in that source's chain map.
#[inline]
pub fn list_record_pair(
    owner: u32,
    q: u32,
    (walls, fixed_active): (&[Wall], &[u32]),
    step: &crate::kernel_types::StepParams,
    material: &[u32],
) -> (SourceKind, SourcePair) {
    let pair_j = &[q];
    let (view, src) = if q < step.n_particles {
        (
            SourceView::Neighbour {
                owner,
                pair_j,
                fixed_active,
            },
            SourceKind::Neighbour,
        )
    } else {
        let view = SourceView::Wall {
            walls,
            owner,
            pair_j,
        };
        (view, SourceKind::Wall)
    };
    (src, view.pair(0, step, material))
}

impl SourceView<'_> {
    /// Pair `gid` of the source: the CPU form of the `source_pair` the composer inserts.
    #[inline]
    pub fn pair(
        &self,
        gid: usize,
        step: &crate::kernel_types::StepParams,
        material: &[u32],
    ) -> SourcePair {
        match *self {
            SourceView::Neighbour {
                owner,
                pair_j,
                fixed_active,
            } => neighbour::source_pair(gid, owner, step, material, (pair_j, fixed_active)),
            SourceView::Wall {
                walls,
                owner,
                pair_j,
            } => wall::source_pair(gid, owner, step, material, walls, pair_j),
            SourceView::Fixed { fixed_pairs } => {
                fixed::source_pair(gid, step, material, fixed_pairs)
            }
        }
    }
}
