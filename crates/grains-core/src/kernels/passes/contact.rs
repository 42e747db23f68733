//! Contact pass over sphere pairs. WGSL twin: `shaders/passes/contact.wgsl`, into which the
//! composer inserts one chain's resolver and generated `apply_chain`.
//!
//! One invocation per neighbour-list entry; only the owning entry (p < q) of a pair whose
//! material pair runs this chain evaluates it, writing force, torques and energies into its
//! own slot. `history` and `slot` are the elements at `gid` of the bindings of those names.

use crate::gpu_types::{
    ContactForce, ContactGeom, DomainParams, InteractionParams, PairHistory, PairSlot, StepParams,
};
use crate::kernels::laws::{
    law_cundall_strack, law_hertz, law_hertz_damped, law_linear, law_viscous,
};
use crate::kernels::passes::load_sphere;
use crate::kernels::resolvers::resolve_sphere_sphere;
use crate::kernels::resolvers::sphere_sphere::sphere_sphere_overlap;
use crate::kernels::v3;
use crate::registry::{ChainSpec, LawKind};

/// Run a chain's laws in order: the CPU form of the `apply_chain` the composer generates.
pub fn apply_chain(
    chain: &ChainSpec,
    geom: &ContactGeom,
    params: &InteractionParams,
    history: &mut PairHistory,
) -> ContactForce {
    let mut f = ContactForce::default();
    for law in &chain.laws {
        match law {
            LawKind::Linear => law_linear(geom, &params.linear, history, &mut f),
            LawKind::Hertz => law_hertz(geom, &params.hertz, history, &mut f),
            LawKind::HertzDamped => law_hertz_damped(geom, &params.hertz_damped, history, &mut f),
            LawKind::Viscous => law_viscous(geom, &params.viscous, history, &mut f),
            LawKind::CundallStrack => {
                law_cundall_strack(geom, &params.cundall_strack, history, &mut f)
            }
        }
    }
    f
}

/// Assembly: the slot of a pair from the chain's accumulated force.
pub fn assemble_slot(geom: &ContactGeom, f: &ContactForce) -> PairSlot {
    let force = v3(f.force);
    let t1 = v3(geom.arm1).cross(force) + v3(f.torque1);
    let t2 = v3(geom.arm2).cross(-force) + v3(f.torque2);
    PairSlot {
        force: f.force,
        elastic: f.elastic,
        torque1: t1.to_array(),
        damping_dissipated: f.damping_dissipated,
        torque2: t2.to_array(),
        friction_dissipated: f.friction_dissipated,
    }
}

/// Evaluate neighbour-list entry `gid` if it owns its pair and the pair runs chain `chain_id`.
#[allow(clippy::too_many_arguments)]
pub fn contact(
    gid: usize,
    chain_id: u32,
    chain: &ChainSpec,
    step: &StepParams,
    domain: &DomainParams,
    pair_chain: &[u32],
    pair_params: &[InteractionParams],
    material: &[u32],
    material_young: &[f32],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    nbr_i: &[u32],
    nbr_j: &[u32],
    history: &mut PairHistory,
    slot: &mut PairSlot,
) {
    let p = nbr_i[gid] as usize;
    let q = nbr_j[gid] as usize;
    if p >= q {
        return;
    }
    let table = (material[p] * step.n_materials + material[q]) as usize;
    if pair_chain[table] != chain_id {
        return;
    }
    // Most candidates do not touch: decide that from the positions alone.
    if sphere_sphere_overlap(pos[p], pos[q], domain) <= -chain.interaction_range() {
        *history = PairHistory::default();
        *slot = PairSlot::default();
        return;
    }
    let b1 = load_sphere(p, pos, vel, omega, material_young[material[p] as usize]);
    let b2 = load_sphere(q, pos, vel, omega, material_young[material[q] as usize]);
    let geom = resolve_sphere_sphere(&b1, &b2, domain, step.dt);
    if geom.delta > -chain.interaction_range() {
        let f = apply_chain(chain, &geom, &pair_params[table], history);
        *slot = assemble_slot(&geom, &f);
    } else {
        *history = PairHistory::default();
        *slot = PairSlot::default();
    }
}
