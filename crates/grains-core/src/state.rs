//! The complete state of a backend at the end of a step, for checkpoints and restarts.
//!
//! It is everything a step reads that the world does not define: particle arrays, the
//! neighbour list with its per-pair history and slots, the wall contacts, the dissipation
//! accumulators and the rebuild record. Both backends hold exactly these arrays under these
//! names, so a checkpoint written by one resumes on the other, and a resumed run continues
//! bitwise as the uninterrupted one would on the same backend.

use crate::error::CoreError;
use crate::gpu_types::PairSlot;

/// A backend's state after `step` steps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackendState {
    /// Steps taken.
    pub step: u64,
    /// Steps at which the neighbour list was rebuilt (0 for the initial build).
    pub rebuild_steps: Vec<u64>,
    pub pos: Vec<[f32; 4]>,
    pub pos_comp: Vec<[f32; 4]>,
    pub vel: Vec<[f32; 4]>,
    pub omega: Vec<[f32; 4]>,
    pub quat: Vec<[f32; 4]>,
    pub force: Vec<[f32; 4]>,
    pub torque: Vec<[f32; 4]>,
    pub ref_pos: Vec<[f32; 4]>,
    pub dissipated: Vec<[f32; 4]>,
    pub nbr_start: Vec<u32>,
    pub nbr_i: Vec<u32>,
    pub nbr_j: Vec<u32>,
    pub nbr_mirror: Vec<u32>,
    /// History records of the neighbour-list entries (`nbr_history_stride` words each).
    pub history: Vec<f32>,
    pub slots: Vec<PairSlot>,
    /// History records of the (particle, wall) slots (`wall_history_stride` words each).
    pub wall_history: Vec<f32>,
    pub wall_slots: Vec<PairSlot>,
}

impl BackendState {
    /// Check that the state fits a world of `n` particles and `n_walls` walls and that its
    /// neighbour list is well formed, so a damaged or foreign checkpoint is refused with a
    /// reason instead of indexing out of bounds later.
    pub fn validate(
        &self,
        n: usize,
        n_walls: usize,
        nbr_history_stride: usize,
        wall_history_stride: usize,
    ) -> Result<(), CoreError> {
        let bad = |what: String| Err(CoreError::BadState(what));
        for (name, a) in [
            ("pos", &self.pos),
            ("pos_comp", &self.pos_comp),
            ("vel", &self.vel),
            ("omega", &self.omega),
            ("quat", &self.quat),
            ("force", &self.force),
            ("torque", &self.torque),
            ("ref_pos", &self.ref_pos),
            ("dissipated", &self.dissipated),
        ] {
            if a.len() != n {
                return bad(format!("{name} holds {} particles, the scene {n}", a.len()));
            }
        }
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
        let total = self.nbr_start[n] as usize;
        for (name, len) in [
            ("nbr_i", self.nbr_i.len()),
            ("nbr_j", self.nbr_j.len()),
            ("nbr_mirror", self.nbr_mirror.len()),
            ("history", self.history.len() / nbr_history_stride.max(1)),
            ("slots", self.slots.len()),
        ] {
            if len != total {
                return bad(format!("{name} has {len} entries, the list {total}"));
            }
        }
        if self
            .nbr_i
            .iter()
            .chain(&self.nbr_j)
            .any(|&p| p as usize >= n)
            || self.nbr_mirror.iter().any(|&k| k as usize >= total)
        {
            return bad("the neighbour list names particles or entries that do not exist".into());
        }
        if self.history.len() != total * nbr_history_stride {
            return bad(format!(
                "history holds {} words, expected {total} entries x {nbr_history_stride}",
                self.history.len()
            ));
        }
        if self.wall_history.len() != n * n_walls * wall_history_stride
            || self.wall_slots.len() != n * n_walls
        {
            return bad(format!(
                "wall contacts: {} and {} entries, expected {} particles x {} walls",
                self.wall_history.len(),
                self.wall_slots.len(),
                n,
                n_walls
            ));
        }
        Ok(())
    }
}
