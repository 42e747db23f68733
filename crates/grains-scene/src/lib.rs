//! grains-scene: the TOML scene format of grains (docs/architecture.md), its validation with
//! `file:line:column: key: message` errors, and the particle generators.
//!
//! Units are SI throughout: metres, seconds, kilograms, pascals.
//!
//! ```no_run
//! let scene = grains_scene::load_scene(std::path::Path::new("scenes/settle.toml"))?;
//! println!("{}", scene.summary());
//! # Ok::<(), grains_scene::SceneError>(())
//! ```
//!
//! Defaults the contract leaves open, chosen here:
//! - `simulation.dt` defaults to `"auto"`, `gravity` to `[0, 0, 0]`, `backend` to `"auto"`,
//!   `skin` to 0.25 × the largest particle diameter.
//! - `domain.periodic` defaults to `[false, false, false]`.
//! - `lattice.origin` defaults to `domain.min + spacing/2` on each axis, so a lattice of
//!   `count` sites fills `[min, min + count*spacing]` with its sites centred in their cells
//!   (the layout of the peer benchmark scenes); `jitter` defaults to 0 and `seed` to 0; the
//!   optional `speed` (m/s) gives each site that speed in a random isotropic direction.
//! - `[output]`: `checkpoint_every` (s) or `checkpoint_every_steps` are optional (no
//!   checkpoints by default).
//! - `[output]`: `dir = "out"`, `every_steps = max(1, steps/100)`, `formats = ["vtk"]`,
//!   `energy = true`.
//! - A particle's velocity is, by priority: its `velocities` entry, its pack-file line's
//!   velocity, the block's `velocity`, zero.

mod checks;
mod error;
pub mod generators;
mod law_keys;
pub mod mesh_file;
mod messages;
mod parse;
mod sections;
mod walk;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use grains_core::timestep::TimestepReport;
use grains_core::units::{qty, sig4};
use grains_core::World;

pub use error::SceneError;

/// Which backend a scene asks for (`simulation.backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when an adapter exists, else the CPU.
    Auto,
    /// The GPU, or fail.
    Gpu,
    /// The CPU reference backend.
    Cpu,
}

impl BackendChoice {
    /// The scene keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Cpu => "cpu",
        }
    }
}

/// How long and where to run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Number of steps: `steps`, or `ceil(duration / dt)`.
    pub steps: u64,
    /// Requested backend.
    pub backend: BackendChoice,
}

/// What to write and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSettings {
    /// Output folder, as written in the scene (relative paths are relative to the current
    /// directory, not to the scene file); default `out`.
    pub dir: PathBuf,
    /// Write every this many steps: `every_steps`, or `round(every / dt)`, at least 1;
    /// default `max(1, steps / 100)`.
    pub every_steps: u64,
    /// Write ParaView `.vtu` frames and `particles.pvd`.
    pub vtk: bool,
    /// Write `particles.csv`.
    pub csv: bool,
    /// Write `contacts.csv` (and, with `vtk`, the contact-line frames).
    pub contacts: bool,
    /// Write `energy.csv`.
    pub energy: bool,
    /// Write `checkpoint.bin` (the whole state, to resume with `grains run --resume`) every
    /// this many steps and at the end: `checkpoint_every_steps`, or `round(checkpoint_every /
    /// dt)`; none by default.
    pub checkpoint_every_steps: Option<u64>,
}

/// Most steps a scene may ask for: 1e15, some thirty years at a million steps per second; a
/// larger count is a typo, and output intervals derived from it would be meaningless.
pub const MAX_STEPS: u64 = 1_000_000_000_000_000;

/// Default of `simulation.max_initial_overlap`: the deepest initial overlap `grains run`
/// accepts, as a fraction of the smaller radius of the pair (5%).
pub const DEFAULT_MAX_INITIAL_OVERLAP: f64 = 0.05;

/// What a run does with a particle that leaves a non-periodic domain
/// (`simulation.lost_particles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostParticles {
    /// Stop the run with an error naming the particle (the default).
    Error,
    /// Remove it from the simulation and count it, as LIGGGHTS' `thermo_modify lost ignore`.
    Delete,
}

/// Checks a run makes of its state (`[simulation]` keys).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardSettings {
    /// Deepest initial overlap accepted, as a fraction of the smaller radius
    /// (`max_initial_overlap`, default [`DEFAULT_MAX_INITIAL_OVERLAP`]).
    pub max_initial_overlap: f64,
    /// What to do with particles that leave the domain (`lost_particles`).
    pub lost: LostParticles,
}

/// A validated scene, ready to run.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene file.
    pub path: PathBuf,
    /// The initial state, with `world.dt` (s) already chosen.
    pub world: World,
    /// Steps and backend.
    pub run: RunSettings,
    /// Output settings.
    pub output: OutputSettings,
    /// Rayleigh and collision times of the world (s).
    pub timestep: TimestepReport,
    /// Whether `dt` was chosen automatically (`dt = "auto"`).
    pub dt_auto: bool,
    /// The run's checks of its state.
    pub guards: GuardSettings,
    /// The initial overlaps (particle pairs and particle-wall pairs).
    pub overlaps: grains_core::overlaps::OverlapReport,
    /// What the scene holds that a run accepts but the user should know of (a mesh wall's
    /// degenerate triangles left out, its needles), each `file:line:column: key: message`;
    /// [`Scene::summary`] lists them.
    pub warnings: Vec<String>,
    /// Where the keys that checks after parsing name are (`file:line:column: key`).
    pub places: Places,
    /// Wall blocks (`[[wall]]`): a box is one block of six planes, a mesh one of many
    /// triangles.
    pub wall_blocks: usize,
    /// Whether `output.every_steps` was the default (so a step override rescales it).
    every_default: bool,
}

/// `file:line:column: key` of the scene's keys that the run's checks name, as a located
/// error starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// Each material's `young`, in `[[material]]` order.
    pub young: Vec<String>,
    /// Each `[[insert]]` block's region (`box` or `cylinder`), in block order.
    pub inserts: Vec<String>,
}

/// The memory a scene may take (bytes), and how to name that budget in a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes available.
    pub bytes: u64,
    /// What the budget is, completing "but ...": e.g. `"this machine has available"`.
    pub what: String,
}

/// Read a scene file and validate it.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    load_scene_within(path, None)
}

/// As [`load_scene`], refusing before any particle is generated a scene whose particles would
/// not fit in `memory` (see [`memory_per_particle_at_least`]).
pub fn load_scene_within(path: &Path, memory: Option<&MemoryBudget>) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|err| SceneError::Read {
        path: path.to_path_buf(),
        err,
    })?;
    parse_scene_within(&text, path, memory)
}

/// Validate scene text. `path` names the file in messages and anchors relative `file =`
/// paths (relative to the folder holding `path`).
pub fn parse_scene(text: &str, path: &Path) -> Result<Scene, SceneError> {
    parse_scene_within(text, path, None)
}

/// As [`parse_scene`], with a memory budget (see [`load_scene_within`]).
pub fn parse_scene_within(
    text: &str,
    path: &Path,
    memory: Option<&MemoryBudget>,
) -> Result<Scene, SceneError> {
    let p = parse::parse(text, path, memory)?;
    let steps = p.steps;
    let (every_steps, every_default) = match p.every_steps {
        Some(n) => (n, false),
        None => (default_every(steps), true),
    };
    Ok(Scene {
        path: path.to_path_buf(),
        world: p.world,
        run: RunSettings {
            steps,
            backend: p.backend,
        },
        output: OutputSettings {
            dir: p.dir,
            every_steps,
            vtk: p.vtk,
            csv: p.csv,
            contacts: p.contacts,
            energy: p.energy,
            checkpoint_every_steps: p.checkpoint_every_steps,
        },
        timestep: p.timestep,
        dt_auto: p.dt_auto,
        guards: GuardSettings {
            max_initial_overlap: p.max_initial_overlap,
            lost: p.lost,
        },
        overlaps: p.overlaps,
        warnings: p.warnings,
        places: p.places,
        wall_blocks: p.wall_blocks,
        every_default,
    })
}

fn default_every(steps: u64) -> u64 {
    (steps / 100).max(1)
}

/// Neighbour-list entries per particle assumed by the memory estimate: a dense pack has about
/// 6-8 partners within a skin of a quarter diameter, and the list stores each pair from both
/// sides.
pub const ENTRIES_PER_PARTICLE: usize = 16;

/// Neighbour-list records (pairs, each once) per particle assumed by the memory estimate: half
/// the entries (a record is shared by a pair's two entries).
pub const RECORDS_PER_PARTICLE: usize = ENTRIES_PER_PARTICLE / 2;

/// Records in contact per particle assumed by the memory estimate, each with a packed force
/// slot: a settled pack of spheres touches about 6 neighbours, each pair once.
pub const CONTACTS_PER_PARTICLE: usize = 3;

/// Bytes per particle any scene needs at least on the CPU backend, known before its walls and
/// laws are: the world's copy of the particle, every per-particle array of the state, and
/// `ENTRIES_PER_PARTICLE` neighbour-list entries as the CPU keeps them (4 bytes each, the
/// fewest of any backend) with `RECORDS_PER_PARTICLE` records and
/// `CONTACTS_PER_PARTICLE` slots as the CPU keeps them (history excluded, as it depends on the
/// laws).
pub fn memory_per_particle_at_least() -> u64 {
    use grains_core::kernels::sources::SourceKind;
    use grains_core::state::{Extent, STATE_ARRAYS};
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
                std::mem::size_of::<grains_core::kernels::sources::neighbour::FarSlot>()
                    * CONTACTS_PER_PARTICLE
            }
            Extent::Slots(_) | Extent::History(_) => 0,
            Extent::ShellEdges | Extent::ShellEdgeNodes | Extent::Shells => 0,
            // A sphere keeps no orientation unless the scene asks.
            Extent::Walls
            | Extent::ParticlesIfWallsMove
            | Extent::ParticlesIfTurning
            | Extent::ParticlesIfKinematic => 0,
        })
        .sum();
    (state + 4 * ENTRIES_PER_PARTICLE) as u64 + CPU_WORLD_BYTES_PER_PARTICLE
}

/// What the GPU backend's device keeps of a particle beyond the state: its material and shape
/// (its mass and inertia ride in the `w` lanes of `vel` and `omega`). The broad phase's
/// per-particle scratch (cell, cell order, counts) lives in buffers dead during a rebuild
/// (`force`, `torque`, `ref_pos`), and the scans' outputs are counted as the record starts.
const GPU_WORLD_BYTES_PER_PARTICLE: u64 = 2 * 4;

/// What the CPU backend's world keeps of a particle: material, mass, inertia and shape. Its
/// positions move into the backend with its velocities, and the broad phase's per-particle
/// scratch ([`CPU_REBUILD_SCRATCH_PER_PARTICLE`]) exists only during a rebuild.
const CPU_WORLD_BYTES_PER_PARTICLE: u64 = 4 * 4;

/// The CPU broad phase's per-particle scratch (cell, particles in cell order), held while a
/// rebuild finds the candidates.
const CPU_REBUILD_SCRATCH_PER_PARTICLE: usize = 2 * 4;

/// `bytes` in binary units with four significant digits (`1.953 GiB`).
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{} {}", grains_core::units::sig4(x), UNITS[u])
    }
}

/// What the CPU backend's memory depends on besides its neighbour list and contacts
/// ([`Scene::cpu_memory_model`]).
#[derive(Clone, Copy, Debug)]
pub struct CpuMemoryModel {
    sizes: grains_core::state::Sizes,
    /// The broad phase's cell starts and counts (bytes).
    cells: u64,
    /// A pair-source history record (bytes).
    history: usize,
}

/// What the GPU backend's device memory depends on besides its list capacities
/// ([`Scene::gpu_memory_model`]).
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
        use grains_core::kernels::sources::SourceKind;
        use grains_core::state::Extent;
        let sizes = grains_core::state::Sizes {
            entries,
            records,
            contacts,
            ..self.sizes
        };
        let n = sizes.particles;
        let of =
            |keep: &dyn Fn(Extent) -> bool| grains_core::state::state_bytes_where(&sizes, keep);
        // What the CPU keeps of a slot (the owner's side is summed in its sweep).
        let slot = std::mem::size_of::<grains_core::kernels::sources::neighbour::FarSlot>();
        // The regions hold `1 / SLOT_MARGIN` more than the contacts and four more slots per
        // block of `CONTACT_BLOCK` particles (`slot_capacity`).
        let margin = contacts / grains_core::cpu::SLOT_MARGIN
            + 4 * n.div_ceil(grains_core::cpu::CONTACT_BLOCK);
        let neighbour = SourceKind::Neighbour;
        CpuMemoryParts {
            // And per contact block, the sweep's bits of owners whose side it summed.
            particles: of(&|e| e == Extent::Particles || e == Extent::ParticlesIfTurning)
                + n as u64 * (CPU_WORLD_BYTES_PER_PARTICLE + 1)
                + 8 * n.div_ceil(grains_core::cpu::CONTACT_BLOCK) as u64,
            // The CPU keeps each pair once (`grains_core::cpu::NeighbourList`): a record's
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

impl Scene {
    /// The same scene run for `n` steps (the CLI's `--steps`). A default output interval
    /// (`steps / 100`) follows the new count; an explicit one is kept.
    pub fn with_steps(mut self, n: u64) -> Scene {
        self.run.steps = n;
        if self.every_default {
            self.output.every_steps = default_every(n);
        }
        self
    }

    /// Estimated memory of the CPU backend for this scene (bytes), for a dense pack: the
    /// backend state (every array of [`grains_core::state::STATE_ARRAYS`], with a dense-pack
    /// neighbour list that the CPU keeps with each pair once), the margin of the contact
    /// sweep's slot regions (the sweep writes its history in place), the world's copy of the
    /// particles, the broad-phase scratch and cells, and what a rebuild holds for a moment
    /// beside the list (see [`CpuMemoryModel::at`]).
    pub fn cpu_memory_estimate(&self) -> u64 {
        self.cpu_memory_parts().total()
    }

    /// [`Scene::cpu_memory_estimate`] by what holds it.
    pub fn cpu_memory_parts(&self) -> CpuMemoryParts {
        let n = self.world.particles.len();
        self.cpu_memory_model().parts(
            n * ENTRIES_PER_PARTICLE,
            n * RECORDS_PER_PARTICLE,
            n * CONTACTS_PER_PARTICLE,
        )
    }

    /// The CPU estimate for any list: taken before a run hands the particles to its backend,
    /// to set its measured peak beside the estimate for the list it reached.
    pub fn cpu_memory_model(&self) -> CpuMemoryModel {
        let w = &self.world;
        // The CPU keeps the list's history records unpadded (the state's are whole vec4s).
        let words = w.table.nbr_history_words;
        let mut sizes = grains_core::state::Sizes::of(w, 0, 0, 0);
        sizes.history_strides[0] = words;
        sizes.history_strides[1] = words;
        CpuMemoryModel {
            sizes,
            cells: w.grid().map(|g| g.n_cells as u64 * 2 * 4).unwrap_or(0),
            history: 4 * words,
        }
    }

    /// Estimated device memory of the GPU backend for this scene (bytes), for a dense pack:
    /// the buffers ([`GpuMemoryModel::at`]) of a list of `ENTRIES_PER_PARTICLE` entries,
    /// `RECORDS_PER_PARTICLE` records and `CONTACTS_PER_PARTICLE` records in contact per
    /// particle, each with the share the backend adds when it grows its buffers.
    pub fn gpu_memory_estimate(&self) -> u64 {
        self.gpu_memory_parts().total()
    }

    /// [`Scene::gpu_memory_estimate`] by what holds it.
    pub fn gpu_memory_parts(&self) -> GpuMemoryParts {
        let n = self.world.particles.len();
        self.gpu_memory_model().grown_to(
            n * ENTRIES_PER_PARTICLE,
            n * RECORDS_PER_PARTICLE,
            n * CONTACTS_PER_PARTICLE,
        )
    }

    /// The GPU estimate for any list capacities: what the scene's world needs besides them.
    pub fn gpu_memory_model(&self) -> GpuMemoryModel {
        let w = &self.world;
        GpuMemoryModel {
            sizes: grains_core::state::Sizes::of(w, 0, 0, 0),
            history_words: w.table.nbr_history_words as u64,
            cells: w.grid().map(|g| g.n_cells as u64 * 4 * 4).unwrap_or(0),
        }
    }

    /// A multi-line human summary: counts, domain, time step and its limits, steps, memory,
    /// and the scene's [`warnings`](Scene::warnings).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "scene       {}", self.path.display());
        self.summarise_particles(&mut s);
        self.summarise_walls_and_blocks(&mut s);
        self.summarise_run(&mut s);
        self.summarise_memory(&mut s);
        for warning in &self.warnings {
            let _ = write!(s, "\nwarning: {warning}");
        }
        s
    }

    /// The scene's bodies as `grains check` and `grains run` both state them: its particles
    /// (those an `[[insert]]` block will place included), its mesh walls' triangles (which
    /// the solver holds as fixed particles) and its `[[wall]]` blocks.
    pub fn counts(&self) -> String {
        let tris = self.world.triangle_tail();
        let n = self.world.particles.len() - tris;
        let plural =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{}, {}, {}",
            plural(n, "particle", "particles"),
            plural(tris, "mesh triangle", "mesh triangles"),
            plural(self.wall_blocks, "wall", "walls")
        )
    }

    /// The summary's particle lines: counts of bodies, particles by shape, radii,
    /// orientation, materials.
    fn summarise_particles(&self, s: &mut String) {
        let _ = writeln!(s, "counts      {}", self.counts());
        let w = &self.world;
        let tris = w.triangle_tail();
        let n = w.particles.len() - tris;
        let count = |k: u32| {
            (0..n)
                .filter(|&i| w.particles.shape_of(i).kind == k)
                .count()
        };
        let (capsules, clumps) = (
            count(grains_core::shapes::KIND_CAPSULE),
            count(grains_core::shapes::KIND_CLUMP),
        );
        let mut shapes = Vec::new();
        if capsules > 0 {
            shapes.push(format!("{capsules} capsules"));
        }
        if clumps > 0 {
            let members = count(grains_core::shapes::KIND_MEMBER);
            shapes.push(format!("{clumps} clumps of {members} spheres"));
        }
        let _ = if shapes.is_empty() {
            writeln!(s, "particles   {n}")
        } else {
            writeln!(s, "particles   {n} ({})", shapes.join(", "))
        };
        // Dormant particles to insert count with the radius they will have.
        let (rmin, rmax) = w.particles.pos[..n]
            .iter()
            .map(|p| p[3])
            .filter(|&r| r > 0.0)
            .chain(w.insertions.iter().flat_map(|i| i.radii.iter().copied()))
            .fold((f32::INFINITY, 0.0f32), |(lo, hi), r| {
                (lo.min(r), hi.max(r))
            });
        let _ = writeln!(
            s,
            "radius      {} .. {}",
            sig4(rmin as f64),
            qty(rmax as f64, "m")
        );
        // Frames write the identity for a sphere that keeps no orientation: say which it is.
        if count(grains_core::shapes::ShapeKind::Sphere as u32) > 0 {
            let _ = writeln!(
                s,
                "orientation {}",
                if w.particles.sphere_orientation() {
                    "spheres' tracked (simulation.sphere_orientation = true)"
                } else {
                    "none kept for spheres (the identity in frames; simulation.sphere_orientation \
                     = true tracks it)"
                }
            );
        }
        let names: Vec<&str> = w.materials.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(
            s,
            "materials   {} ({})",
            w.materials.len(),
            names.join(", ")
        );
    }

    /// The summary's wall (by block, with what they hold), bond, insertion, shell and chain
    /// lines.
    fn summarise_walls_and_blocks(&self, s: &mut String) {
        let w = &self.world;
        let tris = w.triangle_tail();
        let kinds = |k: u32| w.walls.iter().filter(|x| x.kind == k).count();
        let mut what: Vec<String> = grains_core::kernels::walls::WallKind::ALL
            .iter()
            .map(|k| (k.id(), k.keyword()))
            .filter(|(k, _)| kinds(*k) > 0)
            .map(|(k, name)| format!("{} {name}{}", kinds(k), if kinds(k) > 1 { "s" } else { "" }))
            .collect();
        let moving = w.walls.iter().filter(|x| x.moves()).count();
        if moving > 0 {
            what.push(format!("{moving} moving"));
        }
        if tris > 0 {
            what.push(format!("mesh walls of {tris} triangles"));
        }
        let _ = if what.is_empty() {
            writeln!(s, "walls       {}", self.wall_blocks)
        } else {
            writeln!(s, "walls       {} ({})", self.wall_blocks, what.join(", "))
        };
        if !w.fixed_pairs.is_empty() {
            let _ = writeln!(s, "bonds       {}", w.fixed_pairs.len());
        }
        for (k, ins) in w.insertions.iter().enumerate() {
            let _ = writeln!(
                s,
                "insert[{k}]   {} particles at {} particles/s from t = {}, batches every {} steps",
                ins.radii.len(),
                sig4(ins.rate),
                qty(ins.start, "s"),
                w.insert_every
            );
        }
        if !w.shells.is_empty() {
            let sh = &w.shells;
            let nodes: u32 = sh.nodes.iter().map(|n| n.1).sum();
            let _ = writeln!(
                s,
                "shells      {} ({nodes} nodes, {} edges, {} triangles; element time {})",
                sh.shells.len(),
                sh.edges.len(),
                sh.triangles.len(),
                sh.element_time(&w.particles)
                    .map_or("none".to_string(), |t| qty(t, "s"))
            );
        }
        let _ = writeln!(s, "chains      {}", w.table.chains.len());
        for c in &w.table.chains {
            let _ = writeln!(s, "            {}", c.name());
        }
    }

    /// The summary's domain, gravity, time-step, step-count, backend and output lines.
    fn summarise_run(&self, s: &mut String) {
        let w = &self.world;
        let per: Vec<&str> = w
            .domain
            .periodic
            .iter()
            .map(|&p| if p { "periodic" } else { "open" })
            .collect();
        let (lo, hi) = (&w.domain.min, &w.domain.max);
        let _ = writeln!(
            s,
            "domain      [{}, {}] x [{}, {}] x [{}, {}] m ({})",
            sig4(lo[0]),
            sig4(hi[0]),
            sig4(lo[1]),
            sig4(hi[1]),
            sig4(lo[2]),
            sig4(hi[2]),
            per.join(", ")
        );
        let _ = writeln!(
            s,
            "gravity     [{}, {}, {}] m/s^2",
            sig4(w.gravity[0]),
            sig4(w.gravity[1]),
            sig4(w.gravity[2])
        );
        let _ = writeln!(
            s,
            "dt          {} ({})",
            qty(w.dt, "s"),
            if self.dt_auto { "auto" } else { "given" }
        );
        let t = &self.timestep;
        let _ = writeln!(
            s,
            "rayleigh    {} (dt = {}% of it)",
            qty(t.rayleigh, "s"),
            sig4(100.0 * w.dt / t.rayleigh)
        );
        let _ = writeln!(
            s,
            "collision   {} at impact speed {} ({:.0} steps per collision)",
            qty(t.collision, "s"),
            qty(t.impact_speed, "m/s"),
            t.collision / w.dt
        );
        let _ = writeln!(s, "skin        {}", qty(w.skin, "m"));
        let _ = writeln!(
            s,
            "steps       {} ({} simulated)",
            self.run.steps,
            qty(self.run.steps as f64 * w.dt, "s")
        );
        let _ = writeln!(s, "backend     {}", self.run.backend.keyword());
        let mut formats = Vec::new();
        if self.output.vtk {
            formats.push("vtk");
        }
        if self.output.csv {
            formats.push("csv");
        }
        if self.output.contacts {
            formats.push("contacts");
        }
        if self.output.energy {
            formats.push("energy");
        }
        let _ = writeln!(
            s,
            "output      {} every {} steps ({})",
            self.output.dir.display(),
            self.output.every_steps,
            if formats.is_empty() {
                "nothing".to_string()
            } else {
                formats.join(", ")
            }
        );
    }

    /// The summary's memory lines: the CPU and GPU estimates and where their bytes go.
    fn summarise_memory(&self, s: &mut String) {
        let w = &self.world;
        // Beside the dense pack the estimate assumes (and a settled bed reaches), the list the
        // run starts from: a falling or loose start holds less until it packs.
        let start = grains_core::overlaps::initial_list(w);
        let contacts = (self.overlaps.pairs + self.overlaps.wall_contacts) as usize;
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        let _ = write!(
            s,
            "memory      ~{:.1} MiB (CPU backend estimate, for a dense pack: {ENTRIES_PER_PARTICLE} \
             list entries and {CONTACTS_PER_PARTICLE} pairs in contact per particle); ~{:.1} MiB \
             for the list at the start ({} entries, {contacts} pairs in contact)",
            mib(self.cpu_memory_estimate()),
            mib(self
                .cpu_memory_model()
                .at(start.entries, start.records, contacts)),
            start.entries,
        );
        // Where a dense pack's bytes go, so that a user can see what a change would save (a
        // smaller skin shortens the list; contacts are the pack's own).
        let parts = self.cpu_memory_parts();
        let per = |b: u64| b as f64 / w.particles.len().max(1) as f64;
        let _ = write!(
            s,
            "\n            per particle, dense pack: {:.0} B particle arrays, {:.0} B list, {:.0} B \
             pairs in contact (slots and history), {:.0} B walls, bonds, shells and cells, and \
             {:.0} B more during a rebuild",
            per(parts.particles),
            per(parts.list),
            per(parts.contacts),
            per(parts.other),
            per(parts.rebuild),
        );
        // The GPU backend's device buffers, for the same pack and list: its list buffers grow
        // by an eighth past what they must hold.
        let gpu = self.gpu_memory_parts();
        let _ = write!(
            s,
            "\n            ~{:.1} MiB (GPU backend device buffers, for a dense pack); ~{:.1} MiB for \
             the list at the start\n            per particle, dense pack on the GPU: {:.0} B \
             particle arrays, {:.0} B list, {:.0} B pairs in contact (slots, history, their \
             pairs and the ring of slots given back), {:.0} B walls, bonds, shells and cells",
            mib(gpu.total()),
            mib(self
                .gpu_memory_model()
                .grown_to(start.entries, start.records, contacts)
                .total()),
            per(gpu.particles),
            per(gpu.list),
            per(gpu.contacts),
            per(gpu.other),
        );
    }
}
