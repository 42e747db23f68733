//! Contact pass between spheres and plane walls. WGSL twin: `shaders/passes/wall_contact.wgsl`.
//!
//! Walls are few, so every (particle, wall) pair has a fixed slot `p * n_walls + w` and is
//! checked every step: no candidate list, and no wall contact can be missed. `history` is the
//! slot's record of `wall_history_stride` words.

use crate::gpu_types::{DomainParams, PairSlot, PlaneWall, StepParams};
use crate::kernels::passes::contact::{apply_chain, assemble_slot, ChainRun};
use crate::kernels::passes::load_sphere;
use crate::kernels::resolvers::resolve_sphere_plane;
use crate::kernels::resolvers::sphere_plane::sphere_plane_overlap;

/// Evaluate (particle, wall) slot `gid` if its material pair runs `chain`.
#[allow(clippy::too_many_arguments)]
pub fn wall_contact(
    gid: usize,
    chain: &ChainRun<'_>,
    step: &StepParams,
    _domain: &DomainParams,
    wall_chain: &[u32],
    pair_params: &[u32],
    params_stride: usize,
    material: &[u32],
    walls: &[PlaneWall],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    history: &mut [f32],
    slot: &mut PairSlot,
) {
    let nw = step.n_walls as usize;
    let p = gid / nw;
    let w = &walls[gid % nw];
    let table = (material[p] * step.n_materials + w.material) as usize;
    if wall_chain[table] != chain.id {
        return;
    }
    if sphere_plane_overlap(pos[p], w) <= -chain.range {
        history.fill(0.0);
        *slot = PairSlot::default();
        return;
    }
    let b1 = load_sphere(p, pos, vel, omega);
    let geom = resolve_sphere_plane(&b1, w, step.dt);
    if geom.delta > -chain.range {
        let params = &pair_params[table * params_stride..(table + 1) * params_stride];
        let f = apply_chain(chain, &geom, params, history);
        *slot = assemble_slot(&geom, &f);
    } else {
        history.fill(0.0);
        *slot = PairSlot::default();
    }
}
