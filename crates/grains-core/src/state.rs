//! The complete state of a backend at the end of a step, for checkpoints and restarts.
//!
//! It is everything a step reads that the world does not define: particle arrays, the
//! neighbour list with its per-pair history and slots, the wall contacts, the dissipation
//! accumulators and the rebuild record. Both backends hold exactly these arrays under these
//! names, so a checkpoint written by one resumes on the other, and a resumed run continues
//! bitwise as the uninterrupted one would on the same backend.

use crate::error::CoreError;
use crate::gpu_types::PairSlot;

/// How many elements an array of the state holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// One per particle.
    Particles,
    /// One per particle, plus one (a CSR offset table).
    ParticlesPlusOne,
    /// One per neighbour-list entry.
    Entries,
    /// `nbr_history_stride` words per neighbour-list entry.
    EntryHistory,
    /// One per (particle, wall) slot.
    WallSlots,
    /// `wall_history_stride` words per (particle, wall) slot.
    WallHistory,
}

/// The sizes an [`Extent`] is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub particles: usize,
    pub walls: usize,
    /// Neighbour-list entries.
    pub entries: usize,
    pub nbr_history_stride: usize,
    pub wall_history_stride: usize,
}

impl Extent {
    /// Elements of an array of this extent.
    pub fn len(self, s: &Sizes) -> usize {
        match self {
            Extent::Particles => s.particles,
            Extent::ParticlesPlusOne => s.particles + 1,
            Extent::Entries => s.entries,
            Extent::EntryHistory => s.entries * s.nbr_history_stride,
            Extent::WallSlots => s.particles * s.walls,
            Extent::WallHistory => s.particles * s.walls * s.wall_history_stride,
        }
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
    ($($(#[doc = $doc:literal])* $name:ident : $ty:ty = $extent:ident),* $(,)?) => {
        /// A backend's state after `step` steps.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct BackendState {
            /// Steps taken.
            pub step: u64,
            /// Steps at which the neighbour list was rebuilt (0 for the initial build).
            pub rebuild_steps: Vec<u64>,
            $($(#[doc = $doc])* pub $name: Vec<$ty>,)*
        }

        /// Every array of [`BackendState`], in declaration order (the checkpoint's order).
        pub const STATE_ARRAYS: &[StateArray] = &[$(StateArray {
            name: stringify!($name),
            extent: Extent::$extent,
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
        }
    };
}

state_arrays! {
    pos: [f32; 4] = Particles,
    pos_comp: [f32; 4] = Particles,
    vel: [f32; 4] = Particles,
    omega: [f32; 4] = Particles,
    quat: [f32; 4] = Particles,
    force: [f32; 4] = Particles,
    torque: [f32; 4] = Particles,
    ref_pos: [f32; 4] = Particles,
    dissipated: [f32; 4] = Particles,
    nbr_start: u32 = ParticlesPlusOne,
    nbr_i: u32 = Entries,
    nbr_j: u32 = Entries,
    nbr_mirror: u32 = Entries,
    /// History records of the neighbour-list entries (`nbr_history_stride` words each).
    history: f32 = EntryHistory,
    slots: PairSlot = Entries,
    /// History records of the (particle, wall) slots (`wall_history_stride` words each).
    wall_history: f32 = WallHistory,
    wall_slots: PairSlot = WallSlots,
}

/// Bytes of a backend's state for these sizes.
pub fn state_bytes(s: &Sizes) -> u64 {
    STATE_ARRAYS
        .iter()
        .map(|a| (a.extent.len(s) * a.elem) as u64)
        .sum()
}

impl BackendState {
    /// Check that the state fits a world of `n` particles and `n_walls` walls (with these
    /// history strides) and that its neighbour list is well formed, so a damaged or foreign
    /// checkpoint is refused with a reason instead of indexing out of bounds later.
    pub fn validate(
        &self,
        n: usize,
        n_walls: usize,
        nbr_history_stride: usize,
        wall_history_stride: usize,
    ) -> Result<(), CoreError> {
        let bad = |what: String| Err(CoreError::BadState(what));
        if self.nbr_start.len() != n + 1 {
            return bad(format!(
                "nbr_start has {} entries, expected {}",
                self.nbr_start.len(),
                n + 1
            ));
        }
        if self.nbr_start.first() != Some(&0) || self.nbr_start.windows(2).any(|w| w[0] > w[1]) {
            return bad("nbr_start is not an increasing offset table".into());
        }
        let sizes = Sizes {
            particles: n,
            walls: n_walls,
            entries: self.nbr_start[n] as usize,
            nbr_history_stride,
            wall_history_stride,
        };
        for (a, bytes) in STATE_ARRAYS.iter().zip(self.array_bytes()) {
            let (have, want) = (bytes.len() / a.elem, a.extent.len(&sizes));
            if have != want {
                return bad(format!(
                    "{} holds {have} elements, expected {want} ({:?} of {n} particles, {n_walls} walls, {} list entries)",
                    a.name, a.extent, sizes.entries
                ));
            }
        }
        let total = sizes.entries;
        if self
            .nbr_i
            .iter()
            .chain(&self.nbr_j)
            .any(|&p| p as usize >= n)
            || self.nbr_mirror.iter().any(|&k| k as usize >= total)
        {
            return bad("the neighbour list names particles or entries that do not exist".into());
        }
        Ok(())
    }
}
