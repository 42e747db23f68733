//! What the CPU backend holds: its memory model by what holds the bytes, for the estimates
//! `grains check` prints and `grains run` compares its peak with, and the floor per particle a
//! scene's size is checked against while it is read.

use crate::backend::{CONTACTS_PER_PARTICLE, ENTRIES_PER_PARTICLE, RECORDS_PER_PARTICLE};
use crate::world::World;

/// Bytes per particle any scene needs at least on the CPU backend, known before its walls and
/// laws are: the world's copy of the particle, every per-particle array of the state, and
/// `ENTRIES_PER_PARTICLE` neighbour-list entries as the CPU keeps them (4 bytes each, the
/// fewest of any backend) with `RECORDS_PER_PARTICLE` records and
/// `CONTACTS_PER_PARTICLE` slots as the CPU keeps them (history excluded, as it depends on the
/// laws).
pub fn memory_per_particle_at_least() -> u64 {
    use crate::kernels::sources::SourceKind;
    use crate::state::{Extent, STATE_ARRAYS};
    let state: usize = STATE_ARRAYS
        .iter()
        .map(|a| match a.extent {
            Extent::Particles | Extent::ParticlesPlusOne => a.elem,
            // The full list's owners, partners and records: the CPU keeps 4 bytes an entry
            // (below), fewer than any backend holds.
            Extent::Entries => 0,
            Extent::Slots(SourceKind::Neighbour) => a.elem * RECORDS_PER_PARTICLE,
            // What the CPU keeps of a slot, the fewest bytes of any backend.
            Extent::Contacts => {
                std::mem::size_of::<crate::kernels::sources::neighbour::FarSlot>()
                    * CONTACTS_PER_PARTICLE
            }
            Extent::Slots(_) | Extent::History(_) => 0,
            Extent::ShellEdges | Extent::ShellEdgeNodes | Extent::Shells => 0,
            Extent::SurfaceNodes => 0,
            // A sphere keeps no orientation unless the scene asks.
            Extent::Walls
            | Extent::ParticlesIfWallsMove
            | Extent::ParticlesIfTurning
            | Extent::ParticlesIfKinematic
            | Extent::ParticlesIfApplied => 0,
        })
        .sum();
    (state + 4 * ENTRIES_PER_PARTICLE) as u64 + CPU_WORLD_BYTES_PER_PARTICLE
}

/// What the CPU backend's world keeps of a particle: material, mass, inertia and shape. Its
/// positions move into the backend with its velocities, and the broad phase's per-particle
/// scratch ([`CPU_REBUILD_SCRATCH_PER_PARTICLE`]) exists only during a rebuild.
const CPU_WORLD_BYTES_PER_PARTICLE: u64 = 4 * 4;

/// The CPU broad phase's per-particle scratch (cell, particles in cell order), held while a
/// rebuild finds the candidates.
const CPU_REBUILD_SCRATCH_PER_PARTICLE: usize = 2 * 4;

/// What the CPU backend's memory depends on besides its neighbour list and contacts
/// ([`CpuMemoryModel::of`]).
#[derive(Clone, Copy, Debug)]
pub struct CpuMemoryModel {
    sizes: crate::state::Sizes,
    /// The broad phase's cell starts and counts (bytes).
    cells: u64,
    /// A pair-source history record (bytes).
    history: usize,
}

/// Where the CPU backend's bytes go ([`CpuMemoryModel::parts`]), each in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuMemoryParts {
    /// The per-particle arrays: the state's, the world's (material, mass, inertia, shape) and
    /// the sweep's flags of particles in contact and of owners whose side it summed.
    pub particles: u64,
    /// The neighbour list as the CPU keeps it: a word per entry, the starts, and per record
    /// its flag and the sweep's mark.
    pub list: u64,
    /// What is kept of the slots of the records in contact (`FarSlot`) and their history,
    /// with their regions' margin.
    pub contacts: u64,
    /// Walls, bonds, shells and the broad phase's cells.
    pub other: u64,
    /// What a rebuild holds for a moment beside the list.
    pub rebuild: u64,
}

impl CpuMemoryParts {
    /// All of it.
    pub fn total(&self) -> u64 {
        self.particles + self.list + self.contacts + self.other + self.rebuild
    }
}

/// What a CPU rebuild holds beyond the steps' arrays (bytes), at the largest of its moments
/// (`CpuBackend::rebuild`): the old list's pairs in contact kept (a partner and a flag, 8 bytes
/// each, and a start per particle) once its head and marks are freed; then, the old list
/// freed, the candidate search's per-particle scratch, counts and starts beside the new
/// records' partners; then their flags and the entry starts; then the new head with a cursor
/// per particle.
fn rebuild_extra(entries: usize, records: usize, contacts: usize, n: usize) -> u64 {
    let (e, r, c, n) = (entries as i64, records as i64, contacts as i64, n as i64);
    let kept = 8 * c + 4 * n;
    // The list the steps hold: a word per entry, two starts, a flag and a mark per record.
    let list = 4 * e + 8 * n + 5 * r;
    let old_head_and_marks = 4 * (e - r) + r;
    let with_old = kept - old_head_and_marks;
    let with_new = kept + 12 * n + 8 * r - list;
    let scratch = (8 + CPU_REBUILD_SCRATCH_PER_PARTICLE as i64) * n + 4 * r - list + kept;
    let head = 4 * n;
    with_old.max(with_new).max(scratch).max(head).max(0) as u64
}

impl CpuMemoryModel {
    /// Bytes for a list of `entries` candidates (each pair from both sides, walls once),
    /// `records` of them pairs (each once) and `contacts` records in contact: the total of
    /// [`CpuMemoryModel::parts`].
    pub fn at(&self, entries: usize, records: usize, contacts: usize) -> u64 {
        self.parts(entries, records, contacts).total()
    }

    /// [`CpuMemoryModel::at`] by what holds it. A rebuild holds, beyond the steps' arrays, at
    /// most what [`rebuild_extra`] gives; frames and checkpoints are written from the
    /// backend's own arrays.
    pub fn parts(&self, entries: usize, records: usize, contacts: usize) -> CpuMemoryParts {
        use crate::kernels::sources::SourceKind;
        use crate::state::Extent;
        let sizes = crate::state::Sizes {
            entries,
            records,
            contacts,
            ..self.sizes
        };
        let n = sizes.particles;
        let of = |keep: &dyn Fn(Extent) -> bool| crate::state::state_bytes_where(&sizes, keep);
        // What the CPU keeps of a slot (the owner's side is summed in its sweep).
        let slot = std::mem::size_of::<crate::kernels::sources::neighbour::FarSlot>();
        // The regions hold `1 / SLOT_MARGIN` more than the contacts and four more slots per
        // block of `CONTACT_BLOCK` particles (`slot_capacity`).
        let margin = contacts / super::SLOT_MARGIN + 4 * n.div_ceil(super::CONTACT_BLOCK);
        let neighbour = SourceKind::Neighbour;
        CpuMemoryParts {
            // And per contact block, the sweep's bits of owners whose side it summed.
            particles: of(&|e| e == Extent::Particles || e == Extent::ParticlesIfTurning)
                + n as u64 * (CPU_WORLD_BYTES_PER_PARTICLE + 1)
                + 8 * n.div_ceil(super::CONTACT_BLOCK) as u64,
            // The CPU keeps each pair once (`crate::cpu::NeighbourList`): a record's
            // partner or a reference to the partner's record per entry and the records' starts
            // beside the state's entry starts and flags, where the state's full list has each
            // entry's owner, partner and record; and a byte per record, the sweep's mark of
            // pairs found apart.
            list: (4 * entries + 4 * (n + 1) + records) as u64
                + of(&|e| e == Extent::ParticlesPlusOne || e == Extent::Slots(neighbour)),
            contacts: of(&|e| e == Extent::History(neighbour))
                + ((contacts + margin) * slot + margin * self.history) as u64,
            other: of(&|e| {
                !matches!(
                    e,
                    Extent::Particles
                        | Extent::ParticlesIfTurning
                        | Extent::ParticlesPlusOne
                        | Extent::Entries
                        | Extent::Contacts
                ) && e != Extent::Slots(neighbour)
                    && e != Extent::History(neighbour)
            }) + self.cells,
            rebuild: rebuild_extra(entries, records, contacts, n),
        }
    }
}

impl CpuMemoryModel {
    /// The model of `w`'s backend: what it holds besides its list and contacts. Taken before a
    /// run hands the particles to its backend, to set its measured peak beside the estimate
    /// for the list it reached.
    pub fn of(w: &World) -> CpuMemoryModel {
        // The CPU keeps the list's history records unpadded (the state's are whole vec4s).
        let words = w.table.nbr_history_words;
        let mut sizes = crate::state::Sizes::of(w, 0, 0, 0);
        sizes.history_strides[0] = words;
        sizes.history_strides[1] = words;
        CpuMemoryModel {
            sizes,
            cells: w.grid().map(|g| g.n_cells as u64 * 2 * 4).unwrap_or(0),
            history: 4 * words,
        }
    }

    /// The estimate for a dense pack of `w`: the backend state (every array of
    /// [`crate::state::STATE_ARRAYS`], with a dense-pack neighbour list that the CPU keeps
    /// with each pair once), the margin of the contact sweep's slot regions (the sweep writes
    /// its history in place), the world's copy of the particles, the broad-phase scratch and
    /// cells, and what a rebuild holds for a moment beside the list, by what holds it.
    pub fn dense_pack(w: &World) -> CpuMemoryParts {
        let n = w.particles.len();
        CpuMemoryModel::of(w).parts(
            n * ENTRIES_PER_PARTICLE,
            n * RECORDS_PER_PARTICLE,
            n * CONTACTS_PER_PARTICLE,
        )
    }
}
