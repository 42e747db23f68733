//! What the GPU backend holds on the device: its memory model by what holds the bytes, for
//! the estimates `grains check` prints and `grains run` compares its buffers with.

use grains_core::backend::{CONTACTS_PER_PARTICLE, ENTRIES_PER_PARTICLE, RECORDS_PER_PARTICLE};
use grains_core::World;

/// What the GPU backend's device keeps of a particle beyond the state: its material and shape
/// (its mass and inertia ride in the `w` lanes of `vel` and `omega`). The broad phase's
/// per-particle scratch (cell, cell order, counts) lives in buffers dead during a rebuild
/// (`force`, `torque`, `ref_pos`), and the scans' outputs are counted as the record starts.
const GPU_WORLD_BYTES_PER_PARTICLE: u64 = 2 * 4;

/// What the GPU backend's device memory depends on besides its list capacities
/// ([`GpuMemoryModel::of`]).
#[derive(Clone, Copy, Debug)]
pub struct GpuMemoryModel {
    sizes: grains_core::state::Sizes,
    /// Words of a packed history record as the device keeps it, unpadded.
    history_words: u64,
    /// The broad phase's cell counts, starts and cursors (bytes).
    cells: u64,
}

impl GpuMemoryModel {
    /// Device bytes with buffers for `entries` list entries, `records` records and `slots`
    /// packed slots: the state's per-particle arrays, the packed slots as the list keeps them
    /// (`FarSlot`) with their history unpadded, the ring of packed slots given back, the list
    /// as the device keeps it (each pair once: each record's partner and each head entry's
    /// record, in place of the state's full list; `entries` sizes nothing on the device), each
    /// slot's pair, the record starts a rebuild builds beside the live ones, the world's
    /// particle arrays with the broad phase's scratch, and the cells. No copy of the state is
    /// kept: an overflow freezes the step where it is.
    pub fn at(&self, entries: usize, records: usize, slots: usize) -> u64 {
        self.parts(entries, records, slots).total()
    }

    /// [`GpuMemoryModel::parts`] of buffers grown to hold `entries` entries, `records` records
    /// and `slots` packed slots, each with the share the backend adds when it grows them
    /// ([`grains_core::backend::LIST_MARGIN`]).
    pub fn grown_to(&self, entries: usize, records: usize, slots: usize) -> GpuMemoryParts {
        let margin = |k: usize| k + k / grains_core::backend::LIST_MARGIN as usize;
        self.parts(margin(entries), margin(records), margin(slots))
    }

    /// [`GpuMemoryModel::at`] by what holds it.
    pub fn parts(&self, entries: usize, records: usize, slots: usize) -> GpuMemoryParts {
        use grains_core::kernels::sources::SourceKind;
        use grains_core::state::Extent;
        let sizes = grains_core::state::Sizes {
            entries,
            records,
            contacts: slots,
            ..self.sizes
        };
        let n = sizes.particles as u64;
        let of =
            |keep: &dyn Fn(Extent) -> bool| grains_core::state::state_bytes_where(&sizes, keep);
        let neighbour = SourceKind::Neighbour;
        let listed = |e: Extent| e == Extent::Entries || e == Extent::Slots(neighbour);
        // The state's whole slots are `PairSlot`s; the device keeps a `FarSlot` of each.
        let far = std::mem::size_of::<grains_core::kernels::sources::neighbour::FarSlot>() as u64;
        let packed = |e: Extent| e == Extent::Contacts || e == Extent::History(neighbour);
        let per_particle = |e: Extent| {
            matches!(
                e,
                Extent::Particles | Extent::ParticlesPlusOne | Extent::ParticlesIfTurning
            )
        };
        GpuMemoryParts {
            // The state's (the entry starts among them), the world's, the record starts, which
            // the state does not keep, and the entry and record starts a rebuild scans beside
            // the live ones.
            particles: of(&per_particle) + n * GPU_WORLD_BYTES_PER_PARTICLE + 3 * 4 * (n + 1),
            // The records' flags and partners and the heads' references to them (at most one a
            // record): nothing is kept per entry, and a rebuild writes the new list over the
            // old one.
            list: of(&|e| e == Extent::Slots(neighbour)) + 2 * 4 * records as u64,
            // The packed slots and history, each slot's pair (by which a rebuild carries it)
            // and the ring of slots given back.
            contacts: (far + 4 * self.history_words + 8 + 4) * slots as u64,
            other: of(&|e| !(per_particle(e) || listed(e) || packed(e))) + self.cells,
        }
    }
}

/// Where the GPU backend's device bytes go ([`GpuMemoryModel::parts`]), each in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuMemoryParts {
    /// The per-particle arrays: the state's, the world's (material, shape), and the entry and
    /// record starts (the broad phase's scratch lives in buffers dead during a rebuild).
    pub particles: u64,
    /// The neighbour list: each record's partner and flag, and the heads' references.
    pub list: u64,
    /// The packed slots (what the list keeps of each, 28 B) and history of the records in
    /// contact, each slot's pair and the ring of slots given back (12 B a slot).
    pub contacts: u64,
    /// Walls, bonds, shells and the broad phase's cells.
    pub other: u64,
}

impl GpuMemoryParts {
    /// All of it.
    pub fn total(&self) -> u64 {
        self.particles + self.list + self.contacts + self.other
    }
}

impl GpuMemoryModel {
    /// The model of `w`'s backend: what its device needs besides the list capacities.
    pub fn of(w: &World) -> GpuMemoryModel {
        GpuMemoryModel {
            sizes: grains_core::state::Sizes::of(w, 0, 0, 0),
            history_words: w.table.nbr_history_words as u64,
            cells: w.grid().map(|g| g.n_cells as u64 * 4 * 4).unwrap_or(0),
        }
    }

    /// The estimate for a dense pack of `w`: the buffers ([`GpuMemoryModel::at`]) of a list of
    /// `ENTRIES_PER_PARTICLE` entries, `RECORDS_PER_PARTICLE` records and
    /// `CONTACTS_PER_PARTICLE` records in contact per particle, each with the share the
    /// backend adds when it grows its buffers, by what holds it.
    pub fn dense_pack(w: &World) -> GpuMemoryParts {
        let n = w.particles.len();
        GpuMemoryModel::of(w).grown_to(
            n * ENTRIES_PER_PARTICLE,
            n * RECORDS_PER_PARTICLE,
            n * CONTACTS_PER_PARTICLE,
        )
    }
}
