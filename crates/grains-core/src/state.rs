//! The complete state of a backend at the end of a step, for checkpoints and restarts.
//!
//! It is everything a step reads that the world does not define: particle arrays, the
//! neighbour list, and each pair source's history and slots, the dissipation
//! accumulators and the rebuild record. Both backends hold exactly these arrays under these
//! names, so a checkpoint written by one resumes on the other, and a resumed run continues
//! bitwise as the uninterrupted one would on the same backend.

use crate::error::CoreError;
use crate::kernel_types::PairSlot;
use crate::kernels::sources::SourceKind;
use crate::world::World;

/// How many elements an array of the state holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// One per particle.
    Particles,
    /// One per particle, plus one (a CSR offset table).
    ParticlesPlusOne,
    /// One per neighbour-list entry.
    Entries,
    /// One per record (slot) of a pair source: a neighbour-list pair's record is shared by
    /// its two entries (`nbr_pair`).
    Slots(SourceKind),
    /// The source's history stride in words per record: per pair for the fixed source, per
    /// record in contact for the neighbour list's (packed as its slots).
    History(SourceKind),
    /// One per neighbour-list record in contact: the list's force slots are packed, a record's
    /// `nbr_slot` naming its own (see [`crate::kernels::passes::contact`]).
    Contacts,
    /// One per shell edge.
    ShellEdges,
    /// Four per shell edge (one record per node of its hinge).
    ShellEdgeNodes,
    /// One per shell.
    Shells,
    /// [`crate::kernels::passes::surface_contact::SURFACE_RECORDS`] per particle in a world
    /// with node-to-surface contact, else none.
    SurfaceNodes,
    /// One per wall, and one per mesh wall's body after them.
    Walls,
    /// One per particle in a world with a moving wall, else none.
    ParticlesIfWallsMove,
    /// One per particle in a world where a particle keeps an orientation
    /// ([`crate::world::Particles::orientations_kept`]), else none.
    ParticlesIfTurning,
    /// One per particle in a world that books work done on particles from outside the
    /// contacts: where a kinematic particle moves ([`crate::world::World::kinematic`]) or
    /// applied forces are held ([`crate::world::World::applied_forces`]); else none
    /// ([`crate::world::World::books_particle_work`]).
    ParticlesIfKinematic,
    /// One per particle in a world holding applied forces
    /// ([`crate::world::World::applied_forces`]), else none.
    ParticlesIfApplied,
}

/// The sizes an [`Extent`] is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub particles: usize,
    pub walls: usize,
    /// Neighbour-list entries.
    pub entries: usize,
    /// Neighbour-list records: pairs, each once (owning entries).
    pub records: usize,
    /// Neighbour-list records in contact (their packed slots).
    pub contacts: usize,
    /// Fixed-topology pairs.
    pub fixed: usize,
    /// History words per slot of each source, in [`SourceKind::ALL`] order.
    pub history_strides: [usize; 3],
    /// Shell edges.
    pub shell_edges: usize,
    /// Shells.
    pub shells: usize,
    /// Whether a wall moves.
    /// Whether rings meet through node-to-segment contact.
    pub surface_contact: bool,
    pub walls_move: bool,
    /// Whether a particle keeps an orientation.
    pub turning: bool,
    /// Whether a kinematic particle moves.
    pub kinematic: bool,
    /// Whether applied forces are held.
    pub applied: bool,
}

impl Sizes {
    /// The sizes of `world` with `entries` neighbour-list entries holding `records` pairs, of
    /// which `contacts` have a slot.
    pub fn of(world: &World, entries: usize, records: usize, contacts: usize) -> Sizes {
        Sizes {
            particles: world.particles.len(),
            walls: world.walls.len() + world.meshes.bodies.len(),
            entries,
            records,
            contacts,
            fixed: world.fixed_pairs.len(),
            history_strides: SourceKind::ALL.map(|s| world.table.history_stride(s)),
            shell_edges: world.shells.edges.len(),
            shells: world.shells.shells.len(),
            surface_contact: world.shells.has_surface_contact(),
            walls_move: world.walls.iter().any(|w| w.moves()),
            turning: world.particles.orientations_kept(),
            kinematic: world.kinematic,
            applied: world.applied_forces,
        }
    }

    /// Slots (records) of source `s`.
    pub fn slots(&self, s: SourceKind) -> usize {
        match s {
            SourceKind::Neighbour => self.records,
            SourceKind::Wall => self.records,
            SourceKind::Fixed => self.fixed,
        }
    }

    /// History records of source `s`: one per pair in contact for the list's (packed with the
    /// slots), one per pair for the fixed source.
    pub fn history_records(&self, s: SourceKind) -> usize {
        match s {
            SourceKind::Neighbour => self.contacts,
            SourceKind::Wall => self.contacts,
            SourceKind::Fixed => self.fixed,
        }
    }

    /// History words per slot of source `s`.
    pub fn history_stride(&self, s: SourceKind) -> usize {
        match s {
            SourceKind::Neighbour => self.history_strides[0],
            SourceKind::Wall => self.history_strides[1],
            SourceKind::Fixed => self.history_strides[2],
        }
    }
}

impl Extent {
    /// Elements of an array of this extent.
    pub fn len(self, s: &Sizes) -> usize {
        match self {
            Extent::Particles => s.particles,
            Extent::ParticlesPlusOne => s.particles + 1,
            Extent::Entries => s.entries,
            Extent::Slots(k) => s.slots(k),
            Extent::History(k) => s.history_records(k) * s.history_stride(k),
            Extent::Contacts => s.contacts,
            Extent::ShellEdges => s.shell_edges,
            Extent::ShellEdgeNodes => 4 * s.shell_edges,
            Extent::Shells => s.shells,
            Extent::SurfaceNodes if s.surface_contact => {
                crate::kernels::passes::surface_contact::SURFACE_RECORDS * s.particles
            }
            Extent::SurfaceNodes => 0,
            Extent::Walls => s.walls,
            Extent::ParticlesIfWallsMove if s.walls_move => s.particles,
            Extent::ParticlesIfWallsMove => 0,
            Extent::ParticlesIfTurning if s.turning => s.particles,
            Extent::ParticlesIfTurning => 0,
            Extent::ParticlesIfKinematic if s.kinematic || s.applied => s.particles,
            Extent::ParticlesIfKinematic => 0,
            Extent::ParticlesIfApplied if s.applied => s.particles,
            Extent::ParticlesIfApplied => 0,
        }
    }
}

/// Turn on in `world` the optional bookkeeping that a state of its scene carries in array
/// `name` of `count` elements: applied forces where it holds them (`applied_force`, one per
/// particle), and kinematic particles' work where it books work (`kinematic_work`: a run that
/// fixed particles between steps, [`crate::Backend::set_fixed`], has moving kinematic
/// particles its scene does not; one that only held applied forces gets a pass that books
/// nothing). A state of the world as it is changes nothing. Called before the arrays' lengths
/// are checked.
pub fn fit_world(world: &mut World, name: &str, count: usize) {
    let n = world.particles.len();
    match name {
        "applied_force" if count == n => world.applied_forces = true,
        "kinematic_work" if count == n => world.kinematic = true,
        _ => {}
    }
}

/// [`fit_world`] to every array of `state`.
pub fn fit_world_to(world: &mut World, state: &BackendState) {
    fit_world(world, "applied_force", state.applied_force.len());
    fit_world(world, "kinematic_work", state.kinematic_work.len());
}

/// The orientations a backend of `world` keeps, from a state's `quat`: none where no particle
/// keeps one ([`crate::world::Particles::orientations_kept`]), else one per particle, the
/// identity for each where the state held none.
pub fn orientations_for(world: &World, quat: Vec<[f32; 4]>) -> Vec<[f32; 4]> {
    let n = world.particles.len();
    match world.particles.orientations_kept() {
        false => Vec::new(),
        true if quat.len() == n => quat,
        true => vec![crate::shapes::IDENTITY; n],
    }
}

/// One array of the state: its name (also the GPU buffer's and the CPU field's), extent and
/// element size (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateArray {
    pub name: &'static str,
    pub extent: Extent,
    pub elem: usize,
}

/// Declares the state's arrays once: the struct, and the list ([`STATE_ARRAYS`]) that the GPU's
/// save/restore and readback, checkpoints, validation and the memory estimate loop over.
macro_rules! state_arrays {
    ($($(#[doc = $doc:literal])* $name:ident : $ty:ty = $extent:expr),* $(,)?) => {
        /// A backend's state after `step` steps.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct BackendState {
            /// Steps taken.
            pub step: u64,
            /// Steps at which the neighbour list was rebuilt (0 for the initial build).
            pub rebuild_steps: Vec<u64>,
            /// Particles removed from the run ([`crate::Backend::remove_particles`]).
            pub removed: u64,
            /// Kinetic, rotational and gravitational energy they carried when removed (J).
            pub removed_energy: f64,
            /// Particles inserted ([`crate::Backend::insert_particles`]).
            pub inserted: u64,
            /// Kinetic, rotational and gravitational energy they brought when inserted (J).
            pub inserted_energy: f64,
            $($(#[doc = $doc])* pub $name: Vec<$ty>,)*
        }

        /// Every array of [`BackendState`], in declaration order (the checkpoint's order).
        pub const STATE_ARRAYS: &[StateArray] = &[$(StateArray {
            name: stringify!($name),
            extent: $extent,
            elem: std::mem::size_of::<$ty>(),
        }),*];

        impl BackendState {
            /// The arrays as bytes, in [`STATE_ARRAYS`] order.
            pub fn array_bytes(&self) -> Vec<&[u8]> {
                vec![$(bytemuck::cast_slice(&self.$name)),*]
            }

            /// Set array `name` from its bytes (whole elements; the caller checks the length
            /// against the extent).
            pub fn set_array_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(), CoreError> {
                match name {
                    $(stringify!($name) => {
                        let elem = std::mem::size_of::<$ty>();
                        if bytes.len() % elem != 0 {
                            return Err(CoreError::BadState(format!(
                                "{name}: {} bytes is not whole elements of {elem}",
                                bytes.len()
                            )));
                        }
                        self.$name = bytes
                            .chunks_exact(elem)
                            .map(bytemuck::pod_read_unaligned)
                            .collect();
                    })*
                    other => {
                        return Err(CoreError::BadState(format!("no state array `{other}`")))
                    }
                }
                Ok(())
            }

            /// Set array `name` to `count` elements whose bytes `fill` writes in place (a
            /// checkpoint's, read without a second copy); a name no array has is `unknown`'s
            /// error.
            pub fn fill_array<E>(
                &mut self,
                name: &str,
                count: usize,
                fill: impl FnOnce(&mut [u8]) -> Result<(), E>,
                unknown: impl FnOnce(CoreError) -> E,
            ) -> Result<(), E> {
                match name {
                    $(stringify!($name) => {
                        let mut v = vec![<$ty as bytemuck::Zeroable>::zeroed(); count];
                        fill(bytemuck::cast_slice_mut(&mut v))?;
                        self.$name = v;
                    })*
                    other => {
                        return Err(unknown(CoreError::BadState(format!(
                            "no state array `{other}`"
                        ))))
                    }
                }
                Ok(())
            }
        }
    };
}

state_arrays! {
    pos: [f32; 4] = Extent::Particles,
    pos_comp: [f32; 4] = Extent::Particles,
    vel: [f32; 4] = Extent::Particles,
    omega: [f32; 4] = Extent::Particles,
    /// Orientations (x, y, z, w), where a particle keeps one; none where none does (every
    /// orientation is then the identity).
    quat: [f32; 4] = Extent::ParticlesIfTurning,
    force: [f32; 4] = Extent::Particles,
    torque: [f32; 4] = Extent::Particles,
    ref_pos: [f32; 4] = Extent::Particles,
    dissipated: [f32; 4] = Extent::Particles,
    nbr_start: u32 = Extent::ParticlesPlusOne,
    nbr_j: u32 = Extent::Entries,
    /// Each entry's record: the index of its pair's history, slot and flag
    /// ([`crate::kernels::passes::pair_record`]).
    nbr_pair: u32 = Extent::Entries,
    /// Each record's slot, plus one: 0 while the pair is out of contact (its history zero and
    /// no slot), else `1 + k` for `slots[k]`. Slots are packed in record order.
    nbr_slot: u32 = Extent::Slots(SourceKind::Neighbour),
    /// History of the neighbour list's records in contact (particle pairs and walls), packed
    /// as `slots`: record r's is at `nbr_slot[r] - 1`.
    history: f32 = Extent::History(SourceKind::Neighbour),
    /// The force slots of the neighbour list's records in contact, in record order.
    slots: PairSlot = Extent::Contacts,
    /// History records of the fixed-topology pairs.
    fixed_history: f32 = Extent::History(SourceKind::Fixed),
    fixed_slots: PairSlot = Extent::Slots(SourceKind::Fixed),
    fixed_active: u32 = Extent::Slots(SourceKind::Fixed),
    /// Current rest length of each shell edge (m): Maxwell relaxation moves it.
    shell_rest: f32 = Extent::ShellEdges,
    /// The shell edges' records for the gather: force on each hinge node, energies, tension.
    shell_forces: [f32; 4] = Extent::ShellEdgeNodes,
    /// Each shell's `(volume, pressure, energy, 0)`.
    shell_volumes: [f32; 4] = Extent::Shells,
    /// Each ring node's node-to-segment records as a slave
    /// ([`crate::kernels::passes::surface_contact`]), `SURFACE_RECORDS` per particle.
    surface_records: [f32; 4] = Extent::SurfaceNodes,
    /// The walls as they stand (moving walls move).
    walls: crate::kernel_types::Wall = Extent::Walls,
    /// Work done on each particle by moving walls (J) and its Kahan compensation.
    wall_work: [f32; 2] = Extent::ParticlesIfWallsMove,
    /// The force (N) applied to each particle from outside, held until changed
    /// ([`crate::Backend::apply_forces`]; `w` 0); empty in a state of a world without applied
    /// forces, which a backend that holds them takes up as zero.
    applied_force: [f32; 4] = Extent::ParticlesIfApplied,
    /// Work done on the rest of the system by each kinematic particle, and on each particle by
    /// its applied force (J), with its Kahan compensation
    /// ([`crate::kernels::passes::kinematic_power`], [`crate::kernels::passes::applied_power`]);
    /// empty in a state written before it was kept, which a backend takes up as zero.
    kinematic_work: [f32; 2] = Extent::ParticlesIfKinematic,
    /// Where each wall's (and mesh wall's body's) motion counts from: the world's walls, until
    /// a servo re-bases a wall at its pose when it changes its velocity
    /// ([`crate::servo`]); empty in a state written before it was kept, which a backend takes
    /// up as the world's.
    wall_origin: crate::kernel_types::Wall = Extent::Walls,
}

/// A state's scalars: everything of a [`BackendState`] but its arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateHeader {
    /// Steps taken.
    pub step: u64,
    /// Steps at which the neighbour list was rebuilt.
    pub rebuild_steps: Vec<u64>,
    /// Particles removed from the run, and the energy they carried (J).
    pub removed: u64,
    pub removed_energy: f64,
    /// Particles inserted, and the energy they brought (J).
    pub inserted: u64,
    pub inserted_energy: f64,
}

/// Where a state goes as a backend hands it out piece by piece
/// ([`crate::Backend::stream_state`]): its header, then each array of [`STATE_ARRAYS`] in
/// order, announced with its element count and then given as bytes in one or more pieces. A
/// checkpoint written this way never holds a second copy of the state.
pub trait StateSink {
    /// The state's scalars, first.
    fn header(&mut self, h: &StateHeader) -> std::io::Result<()>;
    /// The start of array `name`, of `elements` elements.
    fn array(&mut self, name: &'static str, elements: u64) -> std::io::Result<()>;
    /// The next bytes of the array last started.
    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()>;
}

/// Elements of `T` a streamed array is handed to a [`StateSink`] in at a time: 64 KiB of
/// `u32`s, a buffer small beside any state.
pub const STREAM_CHUNK: usize = 16 * 1024;

/// Hand `items` to `sink` as array `name` of `count` elements, `STREAM_CHUNK` at a time
/// through a buffer. `count` must be the number of items.
pub fn stream_array<T: bytemuck::Pod>(
    sink: &mut dyn StateSink,
    name: &'static str,
    count: usize,
    items: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    sink.array(name, count as u64)?;
    let mut buf = Vec::with_capacity(STREAM_CHUNK.min(count));
    let mut given = 0usize;
    for x in items {
        buf.push(x);
        if buf.len() == STREAM_CHUNK {
            sink.bytes(bytemuck::cast_slice(&buf))?;
            given += buf.len();
            buf.clear();
        }
    }
    given += buf.len();
    if given != count {
        return Err(std::io::Error::other(format!(
            "{name}: {given} elements streamed where {count} were announced"
        )));
    }
    sink.bytes(bytemuck::cast_slice(&buf))
}

impl BackendState {
    /// A state with `h`'s scalars and no arrays yet.
    pub fn with_header(h: StateHeader) -> BackendState {
        BackendState {
            step: h.step,
            rebuild_steps: h.rebuild_steps,
            removed: h.removed,
            removed_energy: h.removed_energy,
            inserted: h.inserted,
            inserted_energy: h.inserted_energy,
            ..Default::default()
        }
    }

    /// The state's scalars.
    pub fn header(&self) -> StateHeader {
        StateHeader {
            step: self.step,
            rebuild_steps: self.rebuild_steps.clone(),
            removed: self.removed,
            removed_energy: self.removed_energy,
            inserted: self.inserted,
            inserted_energy: self.inserted_energy,
        }
    }

    /// Hand the whole state to `sink`, each array in one piece.
    pub fn stream(&self, sink: &mut dyn StateSink) -> std::io::Result<()> {
        sink.header(&self.header())?;
        for (a, bytes) in STATE_ARRAYS.iter().zip(self.array_bytes()) {
            sink.array(a.name, (bytes.len() / a.elem) as u64)?;
            sink.bytes(bytes)?;
        }
        Ok(())
    }
}

/// Bytes of a backend's state for these sizes.
pub fn state_bytes(s: &Sizes) -> u64 {
    state_bytes_where(s, |_| true)
}

/// Bytes of the state's arrays whose extent `keep` takes, for these sizes (the memory models'
/// parts).
pub fn state_bytes_where(s: &Sizes, keep: impl Fn(Extent) -> bool) -> u64 {
    STATE_ARRAYS
        .iter()
        .filter(|a| keep(a.extent))
        .map(|a| (a.extent.len(s) * a.elem) as u64)
        .sum()
}

impl BackendState {
    /// Check that the state fits `world` (particles, walls, fixed pairs, history strides) and
    /// that its neighbour list is well formed, so a damaged or foreign checkpoint is refused
    /// with a reason instead of indexing out of bounds later.
    pub fn validate(&self, world: &World) -> Result<(), CoreError> {
        let pair_start = check_list_starts(world, &self.nbr_start, &self.nbr_j)?;
        let records = pair_start.last().copied().unwrap_or(0) as usize;
        let contacts = self.nbr_slot.iter().filter(|&&a| a != 0).count();
        let sizes = Sizes::of(world, self.nbr_j.len(), records, contacts);
        for (a, bytes) in STATE_ARRAYS.iter().zip(self.array_bytes()) {
            check_len(a, bytes.len() / a.elem, &sizes)?;
        }
        check_list(
            world,
            &self.nbr_start,
            &self.nbr_j,
            &pair_start,
            &self.nbr_pair,
        )?;
        check_packing(&self.nbr_slot)?;
        Ok(())
    }
}

/// `nbr_start` is `world`'s offset table and `nbr_j` holds its entries (the first part of
/// [`BackendState::validate`]): each particle's first record, and the record count last
/// ([`crate::kernels::passes::pair_record::pair_starts`]).
pub fn check_list_starts(
    world: &World,
    nbr_start: &[u32],
    nbr_j: &[u32],
) -> Result<Vec<u32>, CoreError> {
    let bad = |what: String| Err(CoreError::BadState(what));
    let n = world.particles.len();
    if nbr_start.len() != n + 1 {
        return bad(format!(
            "nbr_start has {} entries, expected {}",
            nbr_start.len(),
            n + 1
        ));
    }
    if nbr_start.first() != Some(&0) || nbr_start.windows(2).any(|w| w[0] > w[1]) {
        return bad("nbr_start is not an increasing offset table".into());
    }
    let entries = nbr_start[n] as usize;
    if nbr_j.len() != entries {
        return bad(format!(
            "nbr_j holds {} elements, expected {entries} (the list's entries)",
            nbr_j.len()
        ));
    }
    Ok(crate::kernels::passes::pair_record::pair_starts(
        nbr_start, nbr_j,
    ))
}

/// Array `a` holds `have` elements, as `sizes` wants.
pub fn check_len(a: &StateArray, have: usize, sizes: &Sizes) -> Result<(), CoreError> {
    let (n, want) = (sizes.particles, a.extent.len(sizes));
    // Orientations from a world that kept them where this one keeps none, or the other way (a
    // checkpoint written before spheres' were optional, or resumed with `sphere_orientation`
    // changed), are fitted as the state is taken up ([`orientations_for`]).
    let fitted = a.extent == Extent::ParticlesIfTurning && (have == 0 || have == n);
    // A checkpoint of a version before kinematic work was booked holds none: it starts at zero.
    let fitted = fitted || (a.extent == Extent::ParticlesIfKinematic && have == 0);
    // A state of the world without applied forces holds none: they start at zero.
    let fitted = fitted || (a.extent == Extent::ParticlesIfApplied && have == 0);
    // Nor one before servos re-based walls: their origins are the world's.
    let fitted = fitted || (a.name == "wall_origin" && have == 0);
    if have != want && !fitted {
        return Err(CoreError::BadState(format!(
            "{} holds {have} elements, expected {want} ({:?} of {n} particles, {} walls, {} fixed pairs, {} list entries)",
            a.name, a.extent, sizes.walls, sizes.fixed, sizes.entries
        )));
    }
    Ok(())
}

/// The list's entries name particles and walls that exist, are sorted by partner, and name the
/// records the list's layout gives them (after [`check_list_starts`], which gives
/// `pair_start`).
pub fn check_list(
    world: &World,
    nbr_start: &[u32],
    nbr_j: &[u32],
    pair_start: &[u32],
    nbr_pair: &[u32],
) -> Result<(), CoreError> {
    use crate::kernels::passes::pair_record::entry_record;
    let bad = |what: String| Err(CoreError::BadState(what));
    let n = world.particles.len();
    // A wall's entry names it as `n + w`.
    let nw = world.walls.len();
    if nbr_j.iter().any(|&q| q as usize >= n + nw) {
        return bad("the neighbour list names particles or entries that do not exist".into());
    }
    // Every particle's entries are sorted by partner, and each names the record the list's
    // layout gives it (`u32::MAX` only where the other side is missing): a damaged record
    // index would silently mix up pairs' forces and histories. An entry's owner is the
    // particle whose range holds it.
    for p in 0..n {
        let range = nbr_start[p] as usize..nbr_start[p + 1] as usize;
        if nbr_j[range.clone()].windows(2).any(|w| w[0] >= w[1]) {
            return bad(format!(
                "particle {p}'s entries of the neighbour list are not sorted by partner"
            ));
        }
        for k in range {
            let want = entry_record(p as u32, k, nbr_start, nbr_j, pair_start);
            let have = nbr_pair[k];
            if have != want {
                return bad(format!(
                    "entry {k} of the neighbour list names record {have}, where the list's layout gives {want}"
                ));
            }
        }
    }
    Ok(())
}

/// Slots are packed in record order: the k-th record in contact holds slot k. The count of
/// records in contact.
pub fn check_packing(nbr_slot: &[u32]) -> Result<usize, CoreError> {
    let mut next = 0u32;
    for (r, &a) in nbr_slot.iter().enumerate() {
        if a == 0 {
            continue;
        }
        next += 1;
        if a != next {
            return Err(CoreError::BadState(format!(
                "record {r} names slot {}, where slots packed in record order give {}",
                a - 1,
                next - 1
            )));
        }
    }
    Ok(next as usize)
}

/// A state read array by array in [`STATE_ARRAYS`] order (a checkpoint file), so that a
/// backend can take each up as it comes instead of holding the whole [`BackendState`] first:
/// for each array, its element count, then its bytes in one or more pieces.
pub trait StateSource {
    /// The reader's error.
    type Error;
    /// The element count of array `a`, the next in the file.
    fn count(&mut self, a: &StateArray) -> Result<usize, Self::Error>;
    /// The next `bytes.len()` bytes of the array being read.
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), Self::Error>;
    /// A state the source holds that does not fit the world, as the reader's error.
    fn bad(&self, e: CoreError) -> Self::Error;
}

/// For each record in contact, in record order (the slots' order), whether its partner is a
/// wall (`n` particles; a wall's entry names it as `n + w`).
pub fn slot_walls<'a>(
    nbr_slot: &'a [u32],
    pair_j: &'a [u32],
    n: u32,
) -> impl Iterator<Item = bool> + 'a {
    nbr_slot
        .iter()
        .zip(pair_j)
        .filter(|(&a, _)| a != 0)
        .map(move |(_, &q)| q >= n)
}

/// History records of `from` words each as records of `to` words: the first `min(from, to)`
/// words of each kept, the rest zero (padding, which no law reads). Handed back as it is where
/// the strides agree, and narrowed in place (a state taken up drops its padding without a
/// second copy of its history).
pub fn restride(mut history: Vec<f32>, from: usize, to: usize) -> Vec<f32> {
    if from == to || from == 0 {
        return history;
    }
    let records = history.len() / from;
    if to < from {
        for r in 0..records {
            history.copy_within(r * from..r * from + to, r * to);
        }
        history.truncate(records * to);
        history.shrink_to_fit();
        return history;
    }
    let mut out = Vec::with_capacity(records * to);
    for rec in history.chunks_exact(from) {
        out.extend_from_slice(rec);
        out.resize(out.len() + (to - from), 0.0);
    }
    out
}

/// Pack the slots and history records of the records in contact in record order, as the state
/// holds them: a backend may place them in any order (the GPU's contact passes take them in the
/// order their invocations run). `nbr_slot` is renumbered in place; `slots` and `history`
/// (`stride` words per record) are the backend's arrays.
pub fn packed_slots<T: Copy + Default>(
    nbr_slot: &mut [u32],
    slots: &[T],
    history: &[f32],
    stride: usize,
) -> (Vec<T>, Vec<f32>) {
    let mut out = Vec::with_capacity(slots.len());
    let mut hist = Vec::with_capacity(history.len());
    for a in nbr_slot.iter_mut().filter(|a| **a != 0) {
        let k = *a as usize - 1;
        out.push(slots.get(k).copied().unwrap_or_default());
        match history.get(k * stride..(k + 1) * stride) {
            Some(h) => hist.extend_from_slice(h),
            None => hist.resize(hist.len() + stride, 0.0),
        }
        *a = out.len() as u32;
    }
    (out, hist)
}
