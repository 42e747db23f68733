//! Stages: a scene with `[initial] from = "OUT"` starts from where the run in `OUT` (of
//! another scene) stopped. The scene crate reads that run's spheres from its `stage.csv`
//! (positions, velocities, spins, each material matched by name); here the run's checkpoint
//! gives the rest of the state:
//!
//! - where the new world is the old one (the same fingerprint: the same particles, walls,
//!   chains, domain, gravity and time step, the second stage changing nothing), the whole
//!   state, the clocks and the ledger's accumulators started again: the run continues bit for
//!   bit as the first one would have;
//! - otherwise a fresh state of the new world at those positions, with each particle pair's
//!   contact history carried from the old one where the pair touches in both and the chain
//!   two spheres of its materials meet with has the same signature in both (the same laws and
//!   parameters: [`grains_core::materials::PairTable::pair_signature`]). Contacts with walls,
//!   which a stage may remove or add, start afresh.

use std::collections::HashMap;

use anyhow::{bail, Context, Result};
use grains_core::kernels::passes::pair_record::entry_owners;
use grains_core::{Backend, BackendState, CpuBackend};
use grains_scene::{Initial, Scene};

/// The state the staged `scene` starts from, and how many of its contacts' histories were
/// carried (all of them for a whole state).
pub fn stage_state(scene: &Scene, init: &Initial) -> Result<(BackendState, usize)> {
    let path = init.from.join(grains_io::CHECKPOINT_FILE);
    let (fingerprint, old) = grains_io::read_checkpoint(&path).with_context(|| {
        format!(
            "{}: `[initial] from` starts from the checkpoint beside its stage.csv",
            path.display()
        )
    })?;
    let world = &scene.world;
    let n = world.particles.len();
    let same_order = init.ids.iter().enumerate().all(|(i, &id)| id as usize == i);
    if fingerprint == world.fingerprint() && same_order && init.ids.len() == n {
        let contacts = old.nbr_slot.iter().filter(|&&a| a != 0).count();
        return Ok((restarted(old), contacts));
    }
    if old.nbr_start.len() < 2 {
        bail!("{}: the checkpoint holds no particles", path.display());
    }
    let mut fresh = CpuBackend::new(world.clone())
        .context("the staged scene's first state")?
        .state();
    let carried = carry_history(&old, &mut fresh, scene, init);
    Ok((fresh, carried))
}

/// `state` as a new run's: its step, rebuild log, removals, insertions and the ledger's
/// per-particle accumulators started again; the particles, contacts and walls as they are.
fn restarted(state: BackendState) -> BackendState {
    BackendState {
        step: 0,
        rebuild_steps: vec![0],
        removed: 0,
        removed_energy: 0.0,
        inserted: 0,
        inserted_energy: 0.0,
        dissipated: vec![[0.0; 4]; state.dissipated.len()],
        wall_work: vec![[0.0; 2]; state.wall_work.len()],
        kinematic_work: vec![[0.0; 2]; state.kinematic_work.len()],
        ..state
    }
}

/// Each record's `(owner, partner)` and slot (its history's place in the packed history), for
/// the records of particle pairs in contact.
fn contacts_of(s: &BackendState) -> Vec<((u32, u32), usize)> {
    let n = (s.nbr_start.len() - 1) as u32;
    let list = grains_core::cpu::NeighbourList::from_full(
        s.nbr_start.clone(),
        s.nbr_j.clone(),
        s.nbr_pair.clone(),
    );
    entry_owners(&list.pair_start)
        .zip(&list.pair_j)
        .enumerate()
        .filter_map(|(r, (p, &q))| {
            let a = *s.nbr_slot.get(r)? as usize;
            (q < n && a > 0).then(|| ((p, q), a - 1))
        })
        .collect()
}

/// History words per contact of a state's packed history.
fn stride(s: &BackendState) -> usize {
    let contacts = s.nbr_slot.iter().filter(|&&a| a != 0).count();
    s.history.len().checked_div(contacts).unwrap_or(0)
}

/// Copy into `fresh` the history of each particle pair in contact in both states whose chain
/// is the same in both; how many were.
fn carry_history(
    old: &BackendState,
    fresh: &mut BackendState,
    scene: &Scene,
    init: &Initial,
) -> usize {
    let world = &scene.world;
    let names: Vec<&str> = world.materials.iter().map(|m| m.name.as_str()).collect();
    let old_sig: HashMap<(&str, &str), u64> = init
        .pairs
        .iter()
        .map(|(a, b, s)| ((a.as_str(), b.as_str()), *s))
        .collect();
    let mut old_slot: HashMap<(u32, u32), usize> = HashMap::new();
    for ((p, q), k) in contacts_of(old) {
        old_slot.insert((p.min(q), p.max(q)), k);
    }
    let (so, sn) = (stride(old), stride(fresh));
    let words = so.min(sn);
    let k_stage = init.ids.len() as u32;
    let mut carried = 0;
    for ((p, q), k) in contacts_of(fresh) {
        if p >= k_stage || q >= k_stage {
            continue;
        }
        let (a, b) = (init.ids[p as usize], init.ids[q as usize]);
        let Some(&ko) = old_slot.get(&(a.min(b), a.max(b))) else {
            continue;
        };
        let (ma, mb) = (
            world.particles.material[p as usize] as usize,
            world.particles.material[q as usize] as usize,
        );
        let same =
            old_sig.get(&(names[ma], names[mb])) == Some(&world.table.pair_signature(ma, mb));
        if !same {
            continue;
        }
        fresh.history[k * sn..k * sn + words]
            .copy_from_slice(&old.history[ko * so..ko * so + words]);
        carried += 1;
    }
    carried
}
