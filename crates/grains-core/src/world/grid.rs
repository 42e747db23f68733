//! The broad phase's grid for a world: its cells' size and count.

use super::*;

/// Largest number of broad-phase cells per particle before cells are enlarged (memory bound
/// for sparse scenes in big domains).
const MAX_CELLS_PER_PARTICLE: usize = 8;

impl World {
    /// The broad-phase grid: cells at least (largest diameter + skin + range) wide, fitted to
    /// the domain, at least 3 per periodic axis.
    pub fn grid(&self) -> Result<GridParams, CoreError> {
        if self.particles.pos.len() != self.particles.len() {
            return Err(CoreError::BadState(format!(
                "the world holds {} positions for {} particles: a CPU backend's own world gave \
                 its positions to the backend; build a backend from the scene's world, or from a \
                 state",
                self.particles.pos.len(),
                self.particles.len()
            )));
        }
        // Two mesh triangles are never candidates: cells must hold two particles, or a particle
        // and a triangle, within reach.
        let tail = self.triangle_tail();
        let n = self.particles.len() - tail;
        let rtri = self.particles.pos[n..]
            .iter()
            .map(|p| p[3])
            .fold(0.0f32, f32::max);
        let rmax = self.largest_radius();
        let cutoff = self.skin as f32 + self.interaction_range();
        // No particle with a size (every one dormant) and no skin: any cell will do.
        let mut want = ((2.0 * rmax).max(rmax + rtri) + cutoff).max(f32::MIN_POSITIVE.sqrt());
        let d = self.domain.params();
        loop {
            let mut dims = [1u32; 3];
            let mut size = [0f32; 3];
            for k in 0..3 {
                let l = d.length[k];
                // A planar world's particles all lie in z = 0: one layer of cells.
                let n = if self.planar && k == 2 {
                    1
                } else {
                    ((l / want).floor() as u32).max(1)
                };
                if self.domain.periodic[k] && n < 3 {
                    return Err(CoreError::PeriodicAxisTooShort {
                        axis: ['x', 'y', 'z'][k],
                        length: l,
                        cell: want,
                        min: 3.0 * want,
                    });
                }
                dims[k] = n;
                size[k] = l / n as f32;
            }
            let n_cells = dims.iter().map(|&x| x as usize).product::<usize>();
            if n_cells > MAX_CELLS_PER_PARTICLE * self.particles.len() + 1024 {
                want *= 1.25;
                continue;
            }
            return Ok(GridParams {
                origin: d.min,
                cutoff,
                cell_size: size,
                n_cells: n_cells as u32,
                dims,
                periodic_mask: d.periodic_mask,
            });
        }
    }
}
