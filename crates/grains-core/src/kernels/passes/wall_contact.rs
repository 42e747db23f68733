//! Contact pass between spheres and plane walls. WGSL twin: `shaders/passes/wall_contact.wgsl`.
//!
//! Walls are few, so every (particle, wall) pair has a fixed slot `p * n_walls + w` and is
//! checked every step: no candidate list, and no wall contact can be missed.

use crate::gpu_types::{
    DomainParams, InteractionParams, PairHistory, PairSlot, PlaneWall, StepParams,
};
use crate::kernels::passes::contact::{apply_chain, assemble_slot};
use crate::kernels::passes::load_sphere;
use crate::kernels::resolvers::resolve_sphere_plane;
use crate::kernels::resolvers::sphere_plane::sphere_plane_overlap;
use crate::registry::ChainSpec;

/// Evaluate (particle, wall) slot `gid` if its material pair runs chain `chain_id`.
#[allow(clippy::too_many_arguments)]
pub fn wall_contact(
    gid: usize,
    chain_id: u32,
    chain: &ChainSpec,
    step: &StepParams,
    _domain: &DomainParams,
    wall_chain: &[u32],
    pair_params: &[InteractionParams],
    material: &[u32],
    material_young: &[f32],
    walls: &[PlaneWall],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    history: &mut PairHistory,
    slot: &mut PairSlot,
) {
    let nw = step.n_walls as usize;
    let p = gid / nw;
    let w = &walls[gid % nw];
    let table = (material[p] * step.n_materials + w.material) as usize;
    if wall_chain[table] != chain_id {
        return;
    }
    if sphere_plane_overlap(pos[p], w) <= -chain.interaction_range() {
        *history = PairHistory::default();
        *slot = PairSlot::default();
        return;
    }
    let b1 = load_sphere(p, pos, vel, omega, material_young[material[p] as usize]);
    let geom = resolve_sphere_plane(&b1, w, step.dt);
    if geom.delta > -chain.interaction_range() {
        let f = apply_chain(chain, &geom, &pair_params[table], history);
        *slot = assemble_slot(&geom, &f);
    } else {
        *history = PairHistory::default();
        *slot = PairSlot::default();
    }
}
