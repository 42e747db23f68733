//! Contact pass over sphere pairs. WGSL twin: `shaders/passes/contact.wgsl`, into which the
//! composer inserts one chain's resolver, its laws, its parameter and history records and the
//! generated `apply_chain`.
//!
//! One invocation per neighbour-list entry; only the owning entry (p < q) of a pair whose
//! material pair runs this chain evaluates it, writing force, torques and energies into its
//! own slot. `history` (the entry's record of `step.nbr_history_stride` words) and `slot` are
//! the elements at `gid` of the bindings of those names.

use crate::gpu_types::{ContactForce, ContactGeom, DomainParams, PairSlot, StepParams};
use crate::kernels::passes::load_sphere;
use crate::kernels::resolvers::resolve_sphere_sphere;
use crate::kernels::resolvers::sphere_sphere::sphere_sphere_overlap;
use crate::kernels::v3;
use crate::registry::{ChainLayout, ChainSpec};

/// A chain as the contact passes run it: its laws with their word offsets, its id in the pair
/// table and its interaction range.
#[derive(Clone, Debug)]
pub struct ChainRun<'a> {
    pub id: u32,
    pub spec: &'a ChainSpec,
    pub layout: ChainLayout,
    /// Reach (m): pairs closer than this beyond touching are evaluated (the pair table's
    /// `chain_reach`).
    pub range: f32,
}

impl<'a> ChainRun<'a> {
    /// Chain `id` of `spec`, acting out to `range` (m).
    pub fn new(id: u32, spec: &'a ChainSpec, range: f32) -> ChainRun<'a> {
        ChainRun {
            id,
            spec,
            layout: spec.layout(),
            range,
        }
    }
}

/// Run a chain's laws in order: the CPU form of the `apply_chain` the composer generates.
/// `params` is the pair's parameter record and `history` its history record.
#[inline]
pub fn apply_chain(
    chain: &ChainRun<'_>,
    geom: &ContactGeom,
    params: &[u32],
    history: &mut [f32],
) -> ContactForce {
    let mut f = ContactForce::default();
    for (law, &(po, pw, ho, hw)) in chain.spec.laws.iter().zip(&chain.layout.laws) {
        law.apply(
            geom,
            &params[po..po + pw],
            &mut history[ho..ho + hw],
            &mut f,
        );
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

/// Evaluate neighbour-list entry `gid` if it owns its pair and the pair runs `chain`.
#[allow(clippy::too_many_arguments)]
pub fn contact(
    gid: usize,
    chain: &ChainRun<'_>,
    step: &StepParams,
    domain: &DomainParams,
    pair_chain: &[u32],
    pair_params: &[u32],
    params_stride: usize,
    material: &[u32],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    omega: &[[f32; 4]],
    nbr_i: &[u32],
    nbr_j: &[u32],
    history: &mut [f32],
    slot: &mut PairSlot,
) {
    let p = nbr_i[gid] as usize;
    let q = nbr_j[gid] as usize;
    if p >= q {
        return;
    }
    let table = (material[p] * step.n_materials + material[q]) as usize;
    if pair_chain[table] != chain.id {
        return;
    }
    // Most candidates do not touch: decide that from the positions alone.
    if sphere_sphere_overlap(pos[p], pos[q], domain) <= -chain.range {
        history.fill(0.0);
        *slot = PairSlot::default();
        return;
    }
    let b1 = load_sphere(p, pos, vel, omega);
    let b2 = load_sphere(q, pos, vel, omega);
    let geom = resolve_sphere_sphere(&b1, &b2, domain, step.dt);
    if geom.delta > -chain.range {
        let params = &pair_params[table * params_stride..(table + 1) * params_stride];
        let f = apply_chain(chain, &geom, params, history);
        *slot = assemble_slot(&geom, &f);
    } else {
        history.fill(0.0);
        *slot = PairSlot::default();
    }
}
