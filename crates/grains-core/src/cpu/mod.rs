//! The CPU backend: the CPU twins of the kernels run as loops, in the order of a GPU step
//! (docs/architecture.md, "One time step"). It is the reference the GPU is checked against.
//!
//! Passes whose invocations each write only their own elements run in parallel (rayon) over
//! `gid`; every element is computed exactly as alone, and the only reduction (the largest
//! displacement) is a `max`, so results are bitwise the same for any number of threads. The
//! counting-sort passes (`cell_count`, `cell_scatter`) stay sequential: they are cheap, and
//! their order inside a cell does not matter because `pair_fill` (here `pair_fill_owned`) sorts.

use crate::backend::{
    contact_records, count_contacts, end_of_step_fault, energy_report, Backend, ContactCount,
    ContactRecord, Counters, EnergyReport, Fault, PackedSlots, RunTally, Snapshot, SourceSlots,
};
use crate::error::CoreError;
use crate::kernel_types::{DomainParams, GridParams, PairSlot, StepParams};
use crate::kernels::passes::applied_power::applied_power;
use crate::kernels::passes::gather::{kahan_add, GatherSlots};
use crate::kernels::passes::integrate_first_half::FirstHalf;
use crate::kernels::passes::kinematic_power::kinematic_power;
use crate::kernels::passes::mesh_motion::{mesh_motion, MeshPlace};
use crate::kernels::passes::pair_fill::pair_fill_owned;
use crate::kernels::passes::slot_carry::carried_flag;
use crate::kernels::passes::surface_contact::{Surfaces, SURFACE_RECORDS};
use crate::kernels::passes::wall_power::wall_power_records;
use crate::kernels::passes::{
    cell_count, cell_scatter, clump_gather, clump_place, contact, integrate_first_half,
    integrate_second_half, prefix_sum, shell_edges, shell_gather, shell_volume, surface_contact,
    surface_gather, wall_motion, ChainRun, SlotSink,
};
use crate::kernels::resolvers::{Bodies, ResolverKind};
use crate::kernels::sources::fixed::{self, fixed_index};
use crate::kernels::sources::neighbour::FarSlot;
use crate::kernels::sources::{SourceKind, SourceView};
use crate::schedule::{Pass, Schedule};
use crate::shapes::IDENTITY;
use crate::state::{
    check_len, check_list, check_list_starts, check_packing, restride, slot_walls, stream_array,
    BackendState, Extent, Sizes, StateHeader, StateSink, StateSource, STATE_ARRAYS, STREAM_CHUNK,
};
use crate::world::World;
use rayon::prelude::*;
use std::sync::atomic::AtomicU8;

/// The bodies the contact passes read, borrowed field by field from a [`CpuBackend`] (a
/// macro, not a method: the passes write other fields of the backend meanwhile).
macro_rules! bodies_of {
    ($b:expr) => {
        Bodies {
            step: &$b.step,
            domain: &$b.domain,
            walls: &$b.walls[..$b.world.walls.len()],
            pos: &$b.pos,
            vel: &$b.vel,
            omega: &$b.omega,
            quat: &$b.quat,
            shape: &$b.world.particles.shape,
            shapes: &$b.shapes,
            triangles: &$b.triangles,
        }
    };
}

mod gather;
mod implicit;
mod list;
mod memory;
mod regions;
mod skip;
pub mod solve;
mod sweep;

use gather::ParticlePass;
pub use list::NeighbourList;
pub use memory::{memory_per_particle_at_least, CpuMemoryModel, CpuMemoryParts};
pub use regions::SLOT_MARGIN;
use regions::*;
use skip::ApartSkip;
use sweep::{ListSweep, SweepBlock};

/// Particle-steps a caller is asked to hand [`CpuBackend`]'s `run_guarded` at once
/// ([`Backend::batch`]).
pub const BATCH_PARTICLE_STEPS: u64 = 2_000_000;

/// Particles per task of the passes over the neighbour list's records (the contact sweep, the
/// history carry).
pub const CONTACT_BLOCK: usize = 64;

/// At most this many contact blocks per task of the contact sweep, and particles per task of
/// the per-particle loop. Rayon splits a loop only as deep as its thread count asks unless a
/// part is stolen: on two threads, about four parts. A settling bed's contacts lie in the
/// particles numbered first (from the floor up), whose part one thread then sweeps alone
/// while the other has nothing left to take; smaller tasks let it take its share.
const SWEEP_TASK_BLOCKS: usize = 16;
/// See [`SWEEP_TASK_BLOCKS`].
const PARTICLE_TASK: usize = 4096;

/// The CPU backend's state.
pub struct CpuBackend {
    pub world: World,
    step: StepParams,
    domain: DomainParams,
    grid: GridParams,
    pub pos: Vec<[f32; 4]>,
    /// Kahan compensation of the position drift (m).
    pub pos_comp: Vec<[f32; 4]>,
    pub vel: Vec<[f32; 4]>,
    pub omega: Vec<[f32; 4]>,
    pub quat: Vec<[f32; 4]>,
    pub force: Vec<[f32; 4]>,
    pub torque: Vec<[f32; 4]>,
    ref_pos: Vec<[f32; 4]>,
    pub dissipated: Vec<[f32; 4]>,
    pub list: NeighbourList,
    /// History records of the records in contact, `table.nbr_history_stride` words each
    /// (particle pairs and walls alike), laid out as `slots`: last step's, which the flags name,
    /// until each contact block writes this step's over its own region.
    pub history: Vec<f32>,
    /// What is kept of the slots of the records in contact ([`FarSlot`]: the owner's side is
    /// summed in the sweep, see `owns`), in record order within each contact block's region
    /// (`slot_base`); the slots between a block's last and the next region are unused.
    pub slots: Vec<FarSlot>,
    /// Per record: 0 out of contact, else 1 + its slot in `slots` (`contact`'s flag).
    pub nbr_slot: Vec<u32>,
    /// Per record: where the sweep last found the spheres clearly apart, in [`ApartSkip`]
    /// units, the travel up to which it skips them; 0 where it tests them.
    apart: Vec<u8>,
    /// Per particle, [`IN_CONTACT`]: whether this step's sweep left one of its records (its
    /// own or a partner's) in contact. The gather reads the records of flagged particles only:
    /// in a gas most particles touch nothing, and their records are all out of contact. And
    /// [`NOT_IDLE`]: whether its stored force, torque or dissipation may differ from what a
    /// step without contacts stores; the gather skips a particle with neither bit (where no
    /// other pass adds to the force), which writes nothing for a gas' idle particles.
    touched: Vec<AtomicU8>,
    /// A bound on how far any particle has moved since the last rebuild (m): the sum over
    /// steps of the fastest particle's drift. Infinite where no bound is kept (clumps, whose
    /// members are placed rather than drifted; positions set from outside until the next
    /// rebuild), which turns the skipping off.
    travel: f64,
    /// Whether the skipping is wanted (see [`CpuBackend::set_skips`]).
    apart_skips: bool,
    /// Where each contact block's region of `slots` starts (blocks of `CONTACT_BLOCK`
    /// particles; the last element is `slots.len()`), empty until the first sweep lays it out.
    slot_base: Vec<u32>,
    /// Each contact block's slots and history beyond its region, in a sweep it outgrew it
    /// (empty otherwise).
    spill: Vec<(Vec<FarSlot>, Vec<f32>)>,
    /// Per contact block, a bit per particle: whether this step's sweep left the particle's
    /// own side of its records in contact summed in its `force` and `torque` (their `w` the
    /// damping and friction dissipation), from which its gather starts.
    owns: Vec<u64>,
    /// How many times the slot regions were laid out anew after a sweep.
    slot_relays: u64,
    /// Per-fixed-pair history records, `table.fixed_history_stride` words each.
    pub fixed_history: Vec<f32>,
    pub fixed_slots: Vec<PairSlot>,
    pub fixed_active: Vec<u32>,
    /// Each particle's fixed slots for the gather (see [`fixed_index`]), built once.
    fixed_start: Vec<u32>,
    fixed_entry: Vec<u32>,
    /// Current rest length of each shell edge (m).
    pub shell_rest: Vec<f32>,
    /// Four records per shell edge (see `kernels/passes/shell_edges.rs`).
    pub shell_forces: Vec<[f32; 4]>,
    /// `(volume, pressure, energy, 0)` per shell.
    pub shell_volumes: Vec<[f32; 4]>,
    /// Each ring node's node-to-segment records as a slave, four per particle; empty without
    /// node-to-segment contact.
    pub surface_records: Vec<[f32; 4]>,
    /// Each particle's elements for the surface passes (CSR), built once.
    surface_start: Vec<u32>,
    surface_elems: Vec<u32>,
    /// The walls as they stand (moving walls move), then the mesh walls' bodies.
    pub walls: Vec<crate::kernel_types::Wall>,
    /// Where the walls' and bodies' motions count from ([`World::wall_records`], re-based by
    /// [`Backend::steer_wall`]).
    pub wall_origin: Vec<crate::kernel_types::Wall>,
    /// The mesh walls' triangles as their bodies turn them ([`World::triangles`] at rest).
    pub triangles: Vec<crate::kernel_types::Triangle>,
    /// Work done on each particle by moving walls (J) and its compensation; empty when no
    /// wall moves.
    pub wall_work: Vec<[f32; 2]>,
    /// Work done on the rest of the system by each kinematic particle, and on each particle by
    /// its applied force (J), and its compensation; empty unless the world books them
    /// ([`World::books_particle_work`]).
    pub kinematic_work: Vec<[f32; 2]>,
    /// The force applied to each particle (N), held until changed
    /// ([`Backend::apply_forces`]); empty unless the world holds them
    /// ([`World::applied_forces`]).
    pub applied_force: Vec<[f32; 4]>,
    /// The shape table, never empty ([`crate::world::Particles::shape_table`]).
    shapes: Vec<crate::shapes::ShapeRecord>,
    /// The step's passes ([`Schedule::of`] the world), which `step_checked` and
    /// `after_gather` walk.
    schedule: Schedule,
    /// Each node's shell entries for `shell_gather`, built once.
    shell_start: Vec<u32>,
    shell_entry: Vec<u32>,
    // The broad phase's cells, kept to avoid reallocating them at every rebuild; its
    // per-particle scratch (each particle's cell, the particles in cell order) lives only
    // while the rebuild finds the candidates, 8 bytes per particle not held between rebuilds.
    cell_counts: Vec<u32>,
    cell_start: Vec<u32>,
    /// Steps, rebuilds, removals and insertions so far.
    tally: RunTally,
    /// The next step's first half, already run inside the last gather (its largest
    /// displacement and faulty particle), while `run` is between two of its steps; `None`
    /// whenever the backend is handed back to its caller.
    next_first_half: Option<Drift>,
    /// The implicit solve that stopped the run, if one did.
    solve_failure: Option<implicit::SolveFailure>,
    /// In an implicit world, each shell edge's viscosity `Gamma` (N s/m), which the solve
    /// takes as a matrix element instead of the shell pass's explicit dashpot; empty otherwise.
    shell_viscosity: Vec<f32>,
    /// Implicit solves taken and their conjugate-gradient iterations.
    solves: u64,
    solve_iterations: u64,
}

/// What a first half-step reports: the largest displacement since the last rebuild (m), the
/// lowest faulty particle, and the largest speed it drifted at (m/s).
#[derive(Clone, Copy, Debug)]
struct Drift {
    disp: f32,
    fault: Option<u32>,
    speed: f32,
}

/// Per particle: squared displacement and squared speed as f32 bits (which order like the
/// values for non-negative floats), and whether it is a fault.
type DriftBits = (u32, u32, Option<u32>);

/// Each particle's records in contact before a rebuild, as starts, partners and flags (the
/// carry reads only these: a record out of contact carries flag 0, as one not found does).
fn kept_in_contact(old: &NeighbourList, flags: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let kept = flags.iter().filter(|&&a| a != 0).count();
    let (mut start, mut j, mut flag) = (
        Vec::with_capacity(old.pair_start.len()),
        Vec::with_capacity(kept),
        Vec::with_capacity(kept),
    );
    start.push(0u32);
    for w in old.pair_start.windows(2) {
        let range = w[0] as usize..w[1] as usize;
        for (&q, &a) in old.pair_j[range.clone()].iter().zip(&flags[range]) {
            if a != 0 {
                j.push(q);
                flag.push(a);
            }
        }
        start.push(j.len() as u32);
    }
    (start, j, flag)
}

/// Each particle's head: the records that name it, in their owners' order (the head's partner
/// order), for the rebuilt list whose starts are `ns` (candidates) and `ps` (records), its
/// records' partners `pair_j`, and `count` each particle's candidates.
fn transposed_heads(
    ns: &[u32],
    ps: &[u32],
    pair_j: &[u32],
    count: Vec<u32>,
    len: usize,
) -> Vec<u32> {
    let n = ps.len() - 1;
    let mut head_pair = vec![0u32; len];
    let mut cursor = count;
    for (c, p) in cursor.iter_mut().zip(0..n) {
        *c = ns[p] - ps[p];
    }
    for p in 0..n {
        for r in ps[p]..ps[p + 1] {
            let q = pair_j[r as usize] as usize;
            if q < n {
                head_pair[cursor[q] as usize] = r;
                cursor[q] += 1;
            }
        }
    }
    head_pair
}

/// [`CpuBackend`]'s `touched` bit: one of the particle's records is in contact this step.
const IN_CONTACT: u8 = 1;
/// [`CpuBackend`]'s `touched` bit: the particle's stored force, torque or dissipation may not
/// be what a step without contacts stores (set at the start, and by each gather of a particle
/// in contact).
const NOT_IDLE: u8 = 2;

/// Whether a gather that adds nothing leaves the dissipation's compensated sums `d` as they
/// are, bit for bit (as `gather_fixed` adds with `kahan_add`): then skipping it changes
/// nothing.
fn adds_zero_exactly(d: &[f32; 4], unit: f32) -> bool {
    let same = |s: f32, c: f32| {
        let (t, k) = kahan_add(s, c, 0.0, unit);
        (t.to_bits(), k.to_bits()) == (s.to_bits(), c.to_bits())
    };
    same(d[0], d[1]) && same(d[2], d[3])
}

/// Run `steps` on one of rayon's worker threads. Called from any other thread, every parallel
/// pass is handed to the pool while the caller sleeps until a worker wakes it at the pass's
/// end: two hand-offs between threads per pass, several passes per step, which cost the gas
/// a fifth of its time on two cores. On a worker, a pass's halves are taken by the other
/// workers, which are still looking for work from the pass before.
fn on_worker<R: Send>(steps: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| steps())
}

/// Combine two particles' first-half results: the larger squared displacement and speed and
/// the lower faulty index.
fn max_disp_min_fault(a: DriftBits, b: DriftBits) -> DriftBits {
    let fault = match (a.2, b.2) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    (a.0.max(b.0), a.1.max(b.1), fault)
}

/// One particle's [`DriftBits`] after `integrate_first_half` left its velocity `v`.
#[inline]
fn drift_bits(gid: usize, r: FirstHalf, v: &[f32; 4]) -> DriftBits {
    let s2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    (r.disp2_bits, s2.to_bits(), r.fault.then_some(gid as u32))
}

impl From<DriftBits> for Drift {
    fn from((d2, s2, fault): DriftBits) -> Drift {
        Drift {
            disp: f32::from_bits(d2).sqrt(),
            fault,
            speed: f32::from_bits(s2).sqrt(),
        }
    }
}

impl CpuBackend {
    /// Set up the backend and compute the forces of the initial state.
    pub fn new(world: World) -> Result<CpuBackend, CoreError> {
        let mut b = CpuBackend::allocate(world)?;
        b.rebuild();
        b.forces(false, false);
        Ok(b)
    }

    /// The backend's arrays for `world`, before any list is built or force computed. The
    /// world's initial positions, velocities, spins and orientations move into the backend
    /// (nothing reads them from the world afterwards, and a radius is `pos.w`: 64 bytes per
    /// particle not held twice).
    fn allocate(mut world: World) -> Result<CpuBackend, CoreError> {
        let grid = world.grid()?;
        let n = world.particles.len();
        let nf = world.fixed_pairs.len();
        // A world without bonds or shells keeps no per-particle index of them (8 bytes each).
        let (fixed_start, fixed_entry) = if nf == 0 {
            Default::default()
        } else {
            fixed_index(n, &world.fixed_pairs)
        };
        let (shell_start, shell_entry) = if world.shells.is_empty() {
            Default::default()
        } else {
            world.shells.node_index(n)
        };
        let (surface_start, surface_elems) = if world.shells.has_surface_contact() {
            world.shells.surface_index(n)
        } else {
            Default::default()
        };
        let shell_viscosity = world.shell_viscosity_to_matrix();
        let pos = std::mem::take(&mut world.particles.pos);
        let vel = std::mem::take(&mut world.particles.vel);
        let omega = std::mem::take(&mut world.particles.omega);
        let quat = std::mem::take(&mut world.particles.quat);
        let quat = crate::state::orientations_for(&world, quat);
        let p = &world.particles;
        Ok(CpuBackend {
            step: world.step_params(),
            domain: world.domain.params(),
            grid,
            ref_pos: pos.clone(),
            pos,
            pos_comp: vec![[0.0; 4]; n],
            vel,
            omega,
            quat,
            force: vec![[0.0; 4]; n],
            torque: vec![[0.0; 4]; n],
            shapes: p.shape_table(),
            schedule: Schedule::of(&world),
            dissipated: vec![[0.0; 4]; n],
            list: NeighbourList::default(),
            history: Vec::new(),
            slots: Vec::new(),
            nbr_slot: Vec::new(),
            apart: Vec::new(),
            touched: Vec::new(),
            travel: f64::INFINITY,
            apart_skips: true,
            slot_base: Vec::new(),
            spill: Vec::new(),
            owns: Vec::new(),
            slot_relays: 0,
            fixed_history: vec![0.0; nf * world.table.fixed_history_stride],
            fixed_slots: vec![PairSlot::default(); nf],
            // A fixed pair's history may be set before its first evaluation.
            fixed_active: world.fixed_active_start(),
            fixed_start,
            fixed_entry,
            walls: world.wall_records(),
            wall_origin: world.wall_records(),
            triangles: world.triangles.clone(),
            wall_work: if world.walls.iter().any(|w| w.moves()) {
                vec![[0.0; 2]; n]
            } else {
                Vec::new()
            },
            kinematic_work: if world.books_particle_work() {
                vec![[0.0; 2]; n]
            } else {
                Vec::new()
            },
            applied_force: if world.applied_forces {
                vec![[0.0; 4]; n]
            } else {
                Vec::new()
            },
            shell_rest: world.shells.rest.clone(),
            shell_forces: vec![[0.0; 4]; 4 * world.shells.edges.len()],
            shell_volumes: vec![[0.0; 4]; world.shells.shells.len()],
            surface_records: if world.shells.has_surface_contact() {
                vec![[0.0; 4]; SURFACE_RECORDS * n]
            } else {
                Vec::new()
            },
            surface_start,
            surface_elems,
            shell_start,
            shell_entry,
            cell_counts: vec![0; grid.n_cells as usize],
            cell_start: vec![0; grid.n_cells as usize + 1],
            tally: RunTally::default(),
            next_first_half: None,
            solve_failure: None,
            shell_viscosity,
            solves: 0,
            solve_iterations: 0,
            world,
        })
    }

    /// Resume from a saved state (a checkpoint): the run continues exactly where the state
    /// was taken.
    pub fn from_state(mut world: World, state: BackendState) -> Result<CpuBackend, CoreError> {
        crate::state::fit_world_to(&mut world, &state);
        state.validate(&world)?;
        let mut s = state;
        let list = NeighbourList::from_full(
            std::mem::take(&mut s.nbr_start),
            std::mem::take(&mut s.nbr_j),
            std::mem::take(&mut s.nbr_pair),
        );
        // What the CPU keeps of each slot, which the state's flags name.
        let n = world.particles.len() as u32;
        let far = slot_walls(&s.nbr_slot, &list.pair_j, n)
            .zip(&s.slots)
            .map(|(wall, slot)| FarSlot::of(slot, wall))
            .collect();
        s.slots = Vec::new();
        Self::take_up(world, s, list, far)
    }

    /// Resume from a state read array by array (a checkpoint file), each taken up as it comes:
    /// the full list compacted as soon as it is read, the slots converted a chunk at a time, so
    /// that resuming never holds the list, history and slots whole beside the backend's own
    /// forms (on a dense pack the run's peak, not a quarter more). The same checks as
    /// [`BackendState::validate`], each where its arrays have been read; the same backend as
    /// [`CpuBackend::from_state`] of the whole state.
    pub fn from_source<S: StateSource>(
        mut world: World,
        header: StateHeader,
        src: &mut S,
    ) -> Result<CpuBackend, S::Error> {
        let n = world.particles.len();
        let mut s = BackendState::with_header(header);
        // The list's sizes are known once its starts and partners are read; the arrays before
        // them are per particle.
        let mut sizes = Sizes::of(&world, 0, 0, 0);
        let mut pair_start = Vec::new();
        let mut list: Option<NeighbourList> = None;
        let mut far = Vec::new();
        for a in STATE_ARRAYS {
            let count = src.count(a)?;
            // Applied forces and kinematic work the state carries are the world's from now on.
            if a.extent == Extent::ParticlesIfApplied || a.extent == Extent::ParticlesIfKinematic {
                crate::state::fit_world(&mut world, a.name, count);
                (sizes.applied, sizes.kinematic) = (world.applied_forces, world.kinematic);
            }
            // The list's starts and partners are checked together once both are read, as
            // `validate` does.
            if a.name != "nbr_start" && a.name != "nbr_j" {
                check_len(a, count, &sizes).map_err(|e| src.bad(e))?;
            }
            match a.name {
                "slots" => {
                    // Slot k is the k-th record in contact's (`check_packing`).
                    let Some(l) = list.as_ref() else {
                        return Err(src.bad(CoreError::BadState("slots before the list".into())));
                    };
                    let mut walls = slot_walls(&s.nbr_slot, &l.pair_j, n as u32);
                    far.reserve_exact(count);
                    let mut buf = vec![PairSlot::default(); STREAM_CHUNK.min(count)];
                    while far.len() < count {
                        let k = (count - far.len()).min(buf.len());
                        src.fill(bytemuck::cast_slice_mut(&mut buf[..k]))?;
                        far.extend(
                            buf[..k]
                                .iter()
                                .map(|slot| FarSlot::of(slot, walls.next().unwrap_or(false))),
                        );
                    }
                }
                name => {
                    // Every name is the state's: `None` (no such array) cannot come.
                    s.fill_array(name, count, |b| src.fill(b).map_err(Some), |_| None)
                        .map_err(|e| match e {
                            Some(e) => e,
                            None => {
                                src.bad(CoreError::BadState(format!("no state array `{name}`")))
                            }
                        })?
                }
            }
            match a.name {
                "nbr_j" => {
                    pair_start = check_list_starts(&world, &s.nbr_start, &s.nbr_j)
                        .map_err(|e| src.bad(e))?;
                    let records = pair_start.last().copied().unwrap_or(0) as usize;
                    sizes = Sizes::of(&world, count, records, 0);
                }
                "nbr_pair" => {
                    check_list(&world, &s.nbr_start, &s.nbr_j, &pair_start, &s.nbr_pair)
                        .map_err(|e| src.bad(e))?;
                    pair_start = Vec::new();
                    list = Some(NeighbourList::from_full(
                        std::mem::take(&mut s.nbr_start),
                        std::mem::take(&mut s.nbr_j),
                        std::mem::take(&mut s.nbr_pair),
                    ));
                }
                "nbr_slot" => {
                    sizes.contacts = check_packing(&s.nbr_slot).map_err(|e| src.bad(e))?;
                }
                _ => {}
            }
        }
        let list = list.ok_or_else(|| src.bad(CoreError::BadState("no neighbour list".into())))?;
        Self::take_up(world, s, list, far).map_err(|e| src.bad(e))
    }

    /// The backend of a checked state whose list is `list` and kept slots `far`; every other
    /// array of `s` is moved in as it is.
    fn take_up(
        mut world: World,
        mut s: BackendState,
        list: NeighbourList,
        far: Vec<FarSlot>,
    ) -> Result<CpuBackend, CoreError> {
        // Another CPU backend's world holds no positions (it gave them to its backend); the
        // state's replace them either way, and move in here rather than being copied.
        let given = world.particles.pos.is_empty();
        if given {
            world.particles.pos = std::mem::take(&mut s.pos);
        }
        // Everything `new` would build and compute is replaced by the state. Each of the
        // state's arrays goes as soon as it is taken up, so that resuming holds the state and
        // the backend's list beside it, not the state twice.
        let mut b = CpuBackend::allocate(world)?;
        b.tally = RunTally::of_state(&s);
        if !given {
            b.pos = s.pos;
        }
        b.pos_comp = s.pos_comp;
        b.vel = s.vel;
        b.omega = s.omega;
        b.quat = crate::state::orientations_for(&b.world, s.quat);
        b.force = s.force;
        b.torque = s.torque;
        b.ref_pos = s.ref_pos;
        b.dissipated = s.dissipated;
        let t = &b.world.table;
        b.history = restride(s.history, t.nbr_history_stride, t.nbr_history_words);
        b.list = list;
        b.slots = far;
        b.nbr_slot = s.nbr_slot;
        b.fixed_history = s.fixed_history;
        b.fixed_slots = s.fixed_slots;
        b.fixed_active = s.fixed_active;
        b.shell_rest = s.shell_rest;
        b.shell_forces = s.shell_forces;
        b.shell_volumes = s.shell_volumes;
        b.surface_records = s.surface_records;
        b.walls = s.walls;
        // A state written before servos re-based walls holds none: the world's.
        if !s.wall_origin.is_empty() {
            b.wall_origin = s.wall_origin;
        }
        if b.world.meshes.move_any() {
            let bodies = &b.walls[b.world.walls.len()..];
            b.triangles = crate::mesh_walls::MeshBodies::triangles_at(&b.world.triangles, bodies);
        }
        b.wall_work = s.wall_work;
        // A state written before kinematic work was kept holds none: it starts at zero.
        if !s.kinematic_work.is_empty() {
            b.kinematic_work = s.kinematic_work;
        }
        // Nor does a state of the world without applied forces: none are held.
        if !s.applied_force.is_empty() {
            b.applied_force = s.applied_force;
        }
        Ok(b)
    }

    /// The state's scalars: steps, rebuilds, particles removed and inserted.
    fn header(&self) -> StateHeader {
        self.tally.header()
    }

    /// The world, and the arrays a change between steps edits ([`crate::external`]).
    fn driven(&mut self) -> (&World, crate::external::Driven<'_>) {
        let driven = crate::external::Driven {
            pos: &self.pos,
            vel: &mut self.vel,
            omega: &mut self.omega,
            quat: &self.quat,
            force: &mut self.force,
            applied_force: &mut self.applied_force,
            kinematic_work: &mut self.kinematic_work,
        };
        (&self.world, driven)
    }

    /// How many times the contact sweep laid its slot regions out anew (a block outgrew its
    /// region, or the regions had become far larger than the contacts): a diagnostic.
    pub fn slot_relays(&self) -> u64 {
        self.slot_relays
    }

    /// The grid the broad phase uses.
    pub fn grid(&self) -> GridParams {
        self.grid
    }

    /// Whether the sweep may skip pairs it found apart ([`ApartSkip`]): every particle drifts
    /// by its velocity (no clump members, which are placed), the skin gives a unit, and no
    /// periodic length is so short that a particle could wrap more than a few times within a
    /// mark's reach.
    fn apart_skips_hold(&self) -> bool {
        let skin = self.step.skin;
        let short = (0..3).any(|k| {
            self.domain.periodic_mask & (1 << k) != 0 && self.domain.length[k] < 4.0 * skin
        });
        self.apart_skips && !self.schedule.has(Pass::ClumpPlace) && skin > 0.0 && !short
    }

    /// Turn the sweep's skipping of pairs found apart, and the gather's of particles left idle
    /// (see `touched`), off or on (on by default): the same bits either way, which the tests
    /// check.
    pub fn set_skips(&mut self, on: bool) {
        self.apart_skips = on;
        if !on {
            self.travel = f64::INFINITY;
        }
    }

    /// Rebuild the neighbour list and carry history over.
    pub fn rebuild(&mut self) {
        let n = self.pos.len();
        // The carry reads only the old records in contact (a record out of contact carries
        // flag 0, as one not found does): each particle's, with their partners and flags, are
        // kept and the old list goes before the new one is built, so that a rebuild holds one
        // list, not two (on a dense pack, 3 pairs in contact of 9 records a sphere: 8 bytes a
        // contact kept where the old list's partners and flags were 8 bytes a record). The
        // packed slots stay: the carried flags name them.
        self.list.head_pair = Vec::new();
        self.list.head_orphans = Vec::new();
        self.apart = Vec::new();
        let (kept_start, kept_j, kept_flag) = kept_in_contact(&self.list, &self.nbr_slot);
        self.list = NeighbourList::default();
        self.nbr_slot = Vec::new();
        self.cell_counts.iter_mut().for_each(|c| *c = 0);
        let mut particle_cell = vec![0u32; n];
        for gid in 0..n {
            cell_count(
                gid,
                &self.grid,
                &self.pos,
                &mut particle_cell,
                &mut self.cell_counts,
            );
        }
        prefix_sum(&self.cell_counts, &mut self.cell_start);
        let mut cursor = self.cell_start[..self.cell_counts.len()].to_vec();
        let mut in_cells = vec![0u32; n];
        for gid in 0..n {
            cell_scatter(gid, &particle_cell, &mut cursor, &mut in_cells);
        }
        drop((particle_cell, cursor));
        let (grid, domain) = (&self.grid, &self.domain);
        let (pos, cell_start, sorted) = (&self.pos, &self.cell_start, &in_cells);
        let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
        let walls = &self.walls[..self.world.walls.len()];
        // Each particle's records (its candidates above it, sorted) are counted in one pass
        // over the cells and found again in a second, straight into their place in `pair_j`,
        // allocated once at its length: no lists of blocks laid end to end beside it, whose
        // freed memory stayed with the allocator (3.7 MiB of the dense 100³ lattice's peak).
        const REBUILD_BLOCK: usize = 1024;
        let find = |gid: usize, found: &mut Vec<u32>| {
            found.clear();
            pair_fill_owned(
                gid, grid, domain, pos, cell_start, sorted, shape, shapes, walls, found,
            );
        };
        let own_count: Vec<u32> = (0..n)
            .into_par_iter()
            .with_min_len(REBUILD_BLOCK)
            .map_init(Vec::new, |found, gid| {
                find(gid, found);
                found.len() as u32
            })
            .collect();
        let mut pair_start = vec![0u32; n + 1];
        prefix_sum(&own_count, &mut pair_start);
        let mut pair_j = vec![0u32; pair_start[n] as usize];
        let lens = (0..n).step_by(REBUILD_BLOCK).map(|first| {
            let last = (first + REBUILD_BLOCK).min(n);
            (pair_start[last] - pair_start[first]) as usize
        });
        cut(&mut pair_j, lens)
            .into_par_iter()
            .enumerate()
            .for_each_init(Vec::new, |found, (b, out)| {
                let first = b * REBUILD_BLOCK;
                let mut at = 0;
                for gid in first..n.min(first + REBUILD_BLOCK) {
                    find(gid, found);
                    out[at..at + found.len()].copy_from_slice(found);
                    at += found.len();
                }
            });
        drop(in_cells);
        let records = pair_start[n] as usize;
        // Each particle's head is the records that name it, in their owners' order, which is
        // the head's partner order: the records transposed. With a symmetric candidate test
        // (the broad phase's), the head holds the candidates below the particle, so the full
        // list's starts are those the GPU's `pair_count` gives; here they are taken from the
        // transposition, so that the list is consistent with its records by construction.
        // Each particle's candidates: its records and those naming it.
        let mut count = own_count;
        for &q in &pair_j {
            if (q as usize) < n {
                count[q as usize] += 1;
            }
        }
        let mut nbr_start = vec![0u32; n + 1];
        prefix_sum(&count, &mut nbr_start);
        let total = nbr_start[n] as usize;
        let (ns, ps) = (&nbr_start, &pair_start);
        // Each record's flag from the old list (`carried_flag`; the GPU carries by slot: `slot_carry`), with the records for entries.
        let mut active = vec![0u32; records];
        {
            let pair_j = &pair_j;
            let blocks: Vec<_> = record_blocks(&mut active, 1, ps)
                .into_iter()
                .enumerate()
                .collect();
            blocks.into_par_iter().for_each(|(b, a)| {
                let (_, records) = block_records(b, n, ps);
                for (k, (p, r)) in records {
                    a[k] = carried_flag(p as u32, pair_j[r], &kept_start, &kept_j, &kept_flag);
                }
            });
        }
        drop((kept_start, kept_j, kept_flag));
        let head_pair = transposed_heads(ns, ps, &pair_j, count, total - records);
        let head_orphans = Vec::new();
        self.list = NeighbourList {
            nbr_start,
            pair_start,
            pair_j,
            head_pair,
            head_orphans,
        };
        self.nbr_slot = active;
        self.travel = if self.apart_skips_hold() {
            0.0
        } else {
            f64::INFINITY
        };
        self.ref_pos.copy_from_slice(&self.pos);
        self.tally.rebuild_steps.push(self.tally.steps);
    }

    /// The neighbour list's records, particle pairs' and walls' alike, in one sweep: each runs
    /// `evaluate` with the chain its table entry names. The GPU dispatches one `contact` kernel
    /// per chain over the whole list, each skipping the entries that are not its own; every
    /// slot is written by one chain either way, so the bits are the same, without scanning the
    /// list once per chain or visiting the entries that own nothing (the head of each
    /// particle's sorted range, which the CPU does not keep).
    fn sweep_list(&mut self) {
        let n = self.pos.len();
        // Unmarked after a rebuild (which frees the marks) or a state taken up.
        if self.apart.len() != self.list.pair_j.len() {
            self.apart = vec![0; self.list.pair_j.len()];
        }
        if self.touched.len() != n {
            self.touched = (0..n).map(|_| AtomicU8::new(NOT_IDLE)).collect();
        }
        let t = &self.world.table;
        let bodies = bodies_of!(self);
        let runs: Vec<ChainRun<'_>> = t
            .chains
            .iter()
            .enumerate()
            .map(|(cid, spec)| ChainRun::new(cid as u32, spec, t.chain_reach[cid]))
            .collect();
        let (pair_start, pair_j) = (&self.list.pair_start, &self.list.pair_j);
        let sweep = ListSweep {
            table: t,
            bodies: &bodies,
            material: &self.world.particles.material,
            runs: &runs,
            n,
            pair_start,
            pair_j,
            walls: &self.walls[..self.world.walls.len()],
            fixed_active: &self.fixed_active,
            // The CPU's own records, unpadded (`PairTable::nbr_history_words`).
            stride: t.nbr_history_words,
            // Where every particle pair's chain is sphere-sphere, an inactive entry clearly
            // beyond the largest reach of those chains is skipped on its squared distance
            // alone: most entries of a list with a skin are such pairs, and `evaluate` would
            // write nothing for them.
            sphere_reach: runs
                .iter()
                .filter(|c| c.spec.source == SourceKind::Neighbour)
                .try_fold(0.0f32, |r, c| {
                    (c.spec.resolver == ResolverKind::SphereSphere).then_some(r.max(c.range))
                }),
            skip: ApartSkip::new(self.travel, self.step.skin, &self.domain),
            touched: &self.touched,
        };
        let stride = sweep.stride;
        // Each block writes the slots and history of its pairs in contact into its own
        // region, in record order (the same whatever the thread count), reading last step's
        // history from `history` at their flags.
        let nb = n.div_ceil(CONTACT_BLOCK);
        if self.slot_base.len() != nb + 1 {
            first_sweep_regions(
                FirstSweep {
                    nbr_slot: &mut self.nbr_slot,
                    history: &mut self.history,
                    slot_base: &mut self.slot_base,
                    spill: &mut self.spill,
                },
                pair_start,
                pair_j,
                stride,
                |p, q, active| sweep.idle_by(p, q, active).is_some(),
            );
        }
        let total = self.slot_base[nb] as usize;
        fit(&mut self.slots, total);
        fit(&mut self.history, total * stride);
        if self.owns.len() != nb {
            self.owns = vec![0; nb];
        }
        let base = &self.slot_base;
        let own_sums = self
            .force
            .chunks_mut(CONTACT_BLOCK)
            .zip(self.torque.chunks_mut(CONTACT_BLOCK))
            .zip(self.owns.iter_mut());
        let blocks: Vec<_> = regions(&mut self.slots, base, 1)
            .into_iter()
            .zip(regions(&mut self.history, base, stride))
            .zip(self.spill.iter_mut())
            .zip(record_blocks(&mut self.nbr_slot, 1, pair_start))
            .zip(record_blocks(&mut self.apart, 1, pair_start))
            .zip(own_sums)
            .enumerate()
            .map(|(b, block)| {
                let (((((slots, history), spill), flags), apart), ((force, torque), owns)) = block;
                let base = base[b];
                let blk = SweepBlock {
                    base,
                    slots,
                    history,
                    spill,
                    flags,
                    apart,
                    force,
                    torque,
                    owns,
                };
                (b, blk)
            })
            .collect();
        let used: Vec<usize> = blocks
            .into_par_iter()
            .with_max_len(SWEEP_TASK_BLOCKS)
            .map_init(Vec::new, |copy, (b, blk)| sweep.block(b, blk, copy))
            .collect();
        self.relay_if_needed(&used, total, nb);
    }

    /// Lay the slot regions out again where a block outgrew its region, or where the regions
    /// are far larger than the contacts (a pack that loosened), so that the margin stays a
    /// margin.
    fn relay_if_needed(&mut self, used: &[usize], total: usize, nb: usize) {
        let caps = self.slot_base.windows(2).map(|w| (w[1] - w[0]) as usize);
        let outgrown = used.iter().zip(caps).any(|(&u, c)| u > c);
        let contacts: usize = used.iter().sum();
        if outgrown || total > contacts + contacts / (SLOT_MARGIN / 2) + 8 * nb {
            self.slot_relays += 1;
            relay_slots(
                &mut self.slots,
                &mut self.history,
                &mut self.slot_base,
                &mut self.spill,
                used,
                self.world.table.nbr_history_words,
                &mut self.nbr_slot,
                &self.list.pair_start,
            );
        }
    }

    /// The fixed pairs' chains (bonds, mesh edges), each pair in place in its own slot and
    /// history.
    fn fixed_pairs_pass(&mut self) {
        let (w, t) = (&self.world, &self.world.table);
        let runs: Vec<ChainRun<'_>> = t
            .chains
            .iter()
            .enumerate()
            .filter(|(_, spec)| spec.source == SourceKind::Fixed)
            .map(|(cid, spec)| ChainRun::new(cid as u32, spec, t.chain_reach[cid]))
            .collect();
        if runs.is_empty() {
            return;
        }
        let bodies = bodies_of!(self);
        let bodies = &bodies;
        let material = &w.particles.material;
        let fixed = SourceView::Fixed {
            fixed_pairs: &w.fixed_pairs,
        };
        for chain in &runs {
            let src = SourceKind::Fixed;
            let (pair_chain, params) = (t.chain_map(src), t.params_of(src));
            self.fixed_history
                .par_chunks_mut(t.history_stride(src))
                .zip(self.fixed_slots.par_iter_mut())
                .zip(self.fixed_active.par_iter_mut())
                .enumerate()
                .for_each(|(gid, ((h, s), a))| {
                    if !fixed::source_runs(*a) {
                        return;
                    }
                    contact(
                        gid,
                        chain,
                        &fixed,
                        bodies,
                        pair_chain,
                        params,
                        t.params_stride,
                        material,
                        SlotSink::Own(s, h),
                        a,
                    )
                });
        }
    }

    /// Contact passes (one per chain, over its pair source) and gather for the current
    /// positions and velocities; with `kick`, then the second half-step (`integrate_second_half`);
    /// with `drift` too, then the first half of the next step (`integrate_first_half`), whose
    /// result (as [`CpuBackend::first_half`] returns it) comes back when it was fused into the
    /// gather, `None` when it was not run.
    fn forces(&mut self, kick: bool, drift: bool) -> Option<Drift> {
        let t = &self.world.table;
        let swept = t.chains.iter().any(|c| c.source.in_list());
        if swept {
            self.sweep_list();
        }
        self.fixed_pairs_pass();
        let w = &self.world;
        let (step, list) = (&self.step, &self.list);
        let (far, nbr_slot, owns) = (&self.slots, &self.nbr_slot, &self.owns);
        // The fixed pairs' slots; the list's are read through `far`.
        let sums = GatherSlots {
            slots: &[],
            nbr_slot: &self.nbr_slot,
            fixed_start: &self.fixed_start,
            fixed_entry: &self.fixed_entry,
            fixed_slots: &self.fixed_slots,
        };
        let (shape, shapes) = (&w.particles.shape, &self.shapes);
        // Where nothing else adds to the gathered force (no shells, no clumps), each particle's
        // second half-step follows its gather in the same sweep: the same operations on the
        // same values, one pass less over the particles. Where nothing between this step's end
        // and the next step's first half reads the positions either (no moving wall's power,
        // and the caller asked for the next step at once), that first half follows too: the
        // gather reads only slots, never positions, so moving a particle on does not change
        // what its neighbours gather.
        let (after, booked) = (&self.schedule.after_gather, &self.schedule.booked);
        // An implicit step's solve takes the place of the second half, after the whole gather.
        let implicit = w.dynamics.implicit();
        let adds = after.iter().chain(booked).any(|p| p.adds_to_gathered());
        let fused = kick && !implicit && !adds;
        let drift = fused && drift && !self.schedule.has(Pass::WallPower);
        // Where the gather alone writes the force, torque and dissipation (no bonds, shells or
        // clumps), a particle whose stored ones are already what a step without contacts
        // stores is left as it is: in a gas, those stores were a seventh of the step.
        let idle_skips = swept && fused && self.fixed_start.is_empty() && self.apart_skips;
        let (domain, ref_pos) = (&self.domain, &self.ref_pos);
        let touched = &self.touched;
        let pass = ParticlePass {
            step,
            domain,
            list,
            far,
            nbr_slot,
            owns,
            sums,
            shape,
            shapes,
            ref_pos,
            touched,
            swept,
            idle_skips,
            fused,
            drift,
        };
        // Two loops rather than one over an optional array: a zip of an `Either` iterator
        // costs the fused loop about 150 instructions a particle (callgrind).
        let next = if !self.quat.is_empty() {
            (
                &mut self.force,
                &mut self.torque,
                &mut self.dissipated,
                &mut self.vel,
                &mut self.omega,
                &mut self.quat,
                &mut self.pos,
                &mut self.pos_comp,
            )
                .into_par_iter()
                .enumerate()
                .with_min_len(256)
                .with_max_len(PARTICLE_TASK)
                .map(|(gid, (f, t, d, v, o, q, x, c))| pass.particle(gid, f, t, d, v, o, q, x, c))
                .reduce(|| (0, 0, None), max_disp_min_fault)
        } else {
            (
                &mut self.force,
                &mut self.torque,
                &mut self.dissipated,
                &mut self.vel,
                &mut self.omega,
                &mut self.pos,
                &mut self.pos_comp,
            )
                .into_par_iter()
                .enumerate()
                .with_min_len(256)
                .with_max_len(PARTICLE_TASK)
                .map(|(gid, (f, t, d, v, o, x, c))| {
                    let mut q = IDENTITY;
                    pass.particle(gid, f, t, d, v, o, &mut q, x, c)
                })
                .reduce(|| (0, 0, None), max_disp_min_fault)
        };
        self.after_gather(kick);
        if implicit {
            // The underdamped solve is a kick; the others set the velocities the state
            // drifts with, from the first forces on.
            if kick || self.world.dynamics.mode != crate::dynamics::Mode::Underdamped {
                self.solve_pass(kick);
            }
        } else if kick && !fused {
            self.kick();
        }
        drift.then(|| next.into())
    }

    /// What follows the gather before the kick: the shells' forces, the clump bodies' sums
    /// of their members, the moving walls' power and, in a step (`kick`), the kinematic
    /// particles' work.
    fn after_gather(&mut self, kick: bool) {
        for k in 0..self.schedule.after_gather.len() {
            match self.schedule.after_gather[k] {
                // The three shell passes run as one.
                Pass::ShellVolume => self.shell_forces_pass(),
                Pass::ShellEdges | Pass::ShellGather => {}
                // The two segment passes run in turn.
                Pass::SurfaceContact => self.surface_pass(),
                Pass::SurfaceGather => {}
                Pass::ClumpGather => self.clump_gather_pass(),
                Pass::WallPower => self.wall_power_pass(),
                other => unreachable!("{other:?} does not follow the gather"),
            }
        }
        // The initial forces (`kick` false) are not booked: see `kinematic_power`.
        if !kick {
            return;
        }
        for k in 0..self.schedule.booked.len() {
            match self.schedule.booked[k] {
                Pass::KinematicPower => self.kinematic_power_pass(),
                Pass::AppliedPower => self.applied_power_pass(),
                other => unreachable!("{other:?} is not booked"),
            }
        }
    }

    /// The work kinematic particles do this step (`kinematic_power`).
    fn kinematic_power_pass(&mut self) {
        let (step, vel, omega) = (&self.step, &self.vel, &self.omega);
        let (force, torque) = (&self.force, &self.torque);
        let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
        self.kinematic_work
            .par_iter_mut()
            .enumerate()
            .for_each(|(gid, a)| {
                kinematic_power(gid, step, vel, omega, force, torque, shape, shapes, a)
            });
    }

    /// The applied forces joined to the gathered forces, and their work this step
    /// (`applied_power`).
    fn applied_power_pass(&mut self) {
        let (step, vel, applied) = (&self.step, &self.vel, &self.applied_force);
        (&mut self.force, &mut self.kinematic_work)
            .into_par_iter()
            .enumerate()
            .for_each(|(gid, (f, a))| applied_power(gid, step, vel, applied, f, a));
    }

    /// Clump bodies take their members' forces (`clump_gather`).
    fn clump_gather_pass(&mut self) {
        for gid in 0..self.pos.len() {
            let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
            if let Some((f, t)) = clump_gather(
                gid,
                &self.domain,
                shape,
                shapes,
                &self.pos,
                &self.force,
                &self.torque,
            ) {
                self.force[gid] = f;
                self.torque[gid] = t;
            }
        }
    }

    /// The work moving walls do on each particle this step (`wall_power`).
    fn wall_power_pass(&mut self) {
        let (step, walls, pos) = (&self.step, &self.walls, &self.pos);
        let (slots, nbr_slot) = (PackedSlots::Far(&self.slots), &self.nbr_slot);
        let list = &self.list;
        self.wall_work
            .par_iter_mut()
            .enumerate()
            .for_each(|(gid, a)| {
                wall_power_records(
                    gid,
                    step,
                    walls,
                    list.records(gid).map(|r| (list.pair_j[r as usize], r)),
                    nbr_slot,
                    slots,
                    pos,
                    a,
                )
            });
    }

    /// The second half-step of every particle, after the gathered forces are complete.
    fn kick(&mut self) {
        let (step, force, torque, quat) = (&self.step, &self.force, &self.torque, &self.quat);
        let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
        (&mut self.vel, &mut self.omega)
            .into_par_iter()
            .enumerate()
            .for_each(|(gid, (v, w))| {
                integrate_second_half(gid, step, v, w, quat, force, torque, shape, shapes)
            });
    }

    /// The shell passes: volumes, edges, then each node adds its share to the gathered force.
    fn shell_forces_pass(&mut self) {
        let sh = &self.world.shells;
        if sh.is_empty() {
            return;
        }
        let (step, domain, pos, vel) = (&self.step, &self.domain, &self.pos, &self.vel);
        self.shell_volumes
            .par_iter_mut()
            .enumerate()
            .for_each(|(gid, out)| shell_volume(gid, domain, &sh.shells, &sh.triangles, pos, out));
        (&mut self.shell_rest, self.shell_forces.par_chunks_mut(4))
            .into_par_iter()
            .enumerate()
            .for_each(|(gid, (rest, out))| {
                shell_edges(
                    gid,
                    step,
                    domain,
                    &sh.edges,
                    &sh.edge_params,
                    pos,
                    vel,
                    rest,
                    out,
                )
            });
        let (start, entry) = (&self.shell_start, &self.shell_entry);
        let (forces, tris, volume) = (&self.shell_forces, &sh.triangles, &self.shell_volumes);
        (&mut self.force, &mut self.dissipated)
            .into_par_iter()
            .enumerate()
            .for_each(|(gid, (f, d))| {
                shell_gather(
                    gid, step, domain, start, entry, forces, tris, volume, pos, f, d,
                )
            });
    }

    /// Node-to-surface contact: each slave's records, then each node's forces.
    fn surface_pass(&mut self) {
        let (domain, pos) = (&self.domain, &self.pos);
        let sh = &self.world.shells;
        let surfaces = Surfaces {
            shells: &sh.shells,
            shell_tris: &sh.triangles,
            surface_start: &self.surface_start,
            surface_elems: &self.surface_elems,
        };
        let l = &self.list;
        let list = (
            &l.nbr_start[..],
            &l.pair_start[..],
            &l.pair_j[..],
            &l.head_pair[..],
        );
        self.surface_records
            .par_chunks_mut(SURFACE_RECORDS)
            .enumerate()
            .for_each(|(gid, out)| surface_contact(gid, domain, &surfaces, list, pos, out));
        let (records, start) = (&self.surface_records, &self.surface_start);
        self.force
            .par_iter_mut()
            .enumerate()
            .for_each(|(gid, f)| surface_gather(gid, &sh.triangles, start, list, records, f));
    }

    /// The slots of every pair source.
    /// The slots of the records in contact as a state holds them, in record order, from what
    /// is kept of each ([`FarSlot::slot`]).
    fn state_slots(&self) -> impl Iterator<Item = PairSlot> + '_ {
        let (n, slots) = (self.pos.len() as u32, PackedSlots::Far(&self.slots));
        (self.nbr_slot.iter().zip(&self.list.pair_j))
            .filter(|(&a, _)| a != 0)
            .map(move |(&a, &q)| slots.get(a as usize - 1, q >= n).unwrap_or_default())
    }

    fn source_slots(&self) -> SourceSlots<'_> {
        SourceSlots {
            pair_start: &self.list.pair_start,
            pair_j: &self.list.pair_j,
            nbr_slot: &self.nbr_slot,
            slots: PackedSlots::Far(&self.slots),
            fixed_slots: &self.fixed_slots,
            walls: &self.walls,
            shell_forces: &self.shell_forces,
            shell_volumes: &self.shell_volumes,
            surface_records: &self.surface_records,
        }
    }

    /// The first half-step of every particle.
    fn first_half(&mut self) -> Drift {
        let (step, domain) = (&self.step, &self.domain);
        let (force, torque, ref_pos) = (&self.force, &self.torque, &self.ref_pos);
        let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
        // As in the fused loop: two loops, not one over an optional array, each calling
        // `integrate_first_half` (inlined) itself.
        let drift = if self.quat.is_empty() {
            (
                &mut self.pos,
                &mut self.pos_comp,
                &mut self.vel,
                &mut self.omega,
            )
                .into_par_iter()
                .enumerate()
                .map(|(gid, (x, c, v, w))| {
                    let mut q = IDENTITY;
                    let r = integrate_first_half(
                        gid, step, domain, x, c, v, w, &mut q, force, torque, ref_pos, shape,
                        shapes,
                    );
                    drift_bits(gid, r, v)
                })
                .reduce(|| (0, 0, None), max_disp_min_fault)
        } else {
            (
                &mut self.pos,
                &mut self.pos_comp,
                &mut self.vel,
                &mut self.omega,
                &mut self.quat,
            )
                .into_par_iter()
                .enumerate()
                .map(|(gid, (x, c, v, w, q))| {
                    let r = integrate_first_half(
                        gid, step, domain, x, c, v, w, q, force, torque, ref_pos, shape, shapes,
                    );
                    drift_bits(gid, r, v)
                })
                .reduce(|| (0, 0, None), max_disp_min_fault)
        };
        drift.into()
    }

    /// The mesh walls' triangles where their bodies stand (`mesh_motion`); the largest
    /// displacement of a triangle since the last rebuild (m).
    fn mesh_motion_pass(&mut self) -> f32 {
        let (step, domain, walls) = (&self.step, &self.domain, &self.walls);
        let meshes = &self.world.meshes;
        let (origin, ref_pos) = (&self.world.triangles, &self.ref_pos);
        let first = self.pos.len() - origin.len();
        let d2 = (
            &mut self.pos[first..],
            &mut self.pos_comp[first..],
            &mut self.vel[first..],
            &mut self.omega[first..],
            &mut self.triangles[..],
        )
            .into_par_iter()
            .enumerate()
            .map(|(gid, (pos, pos_comp, vel, omega, triangle))| {
                let out = MeshPlace {
                    pos,
                    pos_comp,
                    vel,
                    omega,
                    triangle,
                };
                mesh_motion(
                    gid,
                    step,
                    domain,
                    walls,
                    &meshes.home,
                    &meshes.conveyor,
                    origin,
                    ref_pos,
                    out,
                )
            })
            .max()
            .unwrap_or(0);
        f32::from_bits(d2).sqrt()
    }

    /// Members of clumps follow their bodies (`clump_place`); bodies are only read, so the
    /// order does not matter.
    fn clump_place_pass(&mut self) {
        let (shape, shapes) = (&self.world.particles.shape, &self.shapes);
        for gid in 0..self.pos.len() {
            if let Some([x, v, w, q]) = clump_place(
                gid,
                &self.domain,
                shape,
                shapes,
                &self.pos,
                &self.vel,
                &self.omega,
                &self.quat,
            ) {
                self.pos[gid] = x;
                self.vel[gid] = v;
                self.omega[gid] = w;
                self.quat[gid] = q;
            }
        }
    }

    /// One step; the lowest faulty particle of its first half, if any. With `next_follows`, the caller
    /// takes the next step at once, so its first half may run inside this step's gather
    /// ([`CpuBackend::forces`]); the state is then between steps until that step is taken, so
    /// only `run` and `run_guarded` pass it, and never for their last step.
    fn step_checked(&mut self, next_follows: bool) -> Option<u32> {
        let Drift {
            mut disp,
            fault,
            speed,
        } = match self.next_first_half.take() {
            Some(done) => done,
            None => self.first_half(),
        };
        // Rounded up by a millionth, as the f32 speed and step may have been rounded down.
        self.travel += speed as f64 * self.step.dt as f64 * (1.0 + 1e-6);
        self.tally.steps += 1;
        // The rest of the schedule's head, after the first half.
        for k in 1..self.schedule.head.len() {
            match self.schedule.head[k] {
                Pass::ClumpPlace => self.clump_place_pass(),
                Pass::WallMotion => {
                    let table = &self.world.meshes.poses;
                    for gid in 0..self.walls.len() {
                        wall_motion(gid, &self.step, &self.wall_origin, table, &mut self.walls);
                    }
                }
                Pass::MeshMotion => disp = disp.max(self.mesh_motion_pass()),
                other => unreachable!("{other:?} is not a pass of the step's head"),
            }
        }
        if disp > 0.5 * self.step.skin {
            self.rebuild();
        }
        self.next_first_half = self.forces(true, next_follows && fault.is_none());
        fault
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> String {
        "cpu".into()
    }

    fn step(&mut self) {
        self.step_checked(false);
    }

    fn run(&mut self, n: u64) {
        on_worker(|| {
            for k in 0..n {
                if self.solve_failure.is_some() {
                    break;
                }
                self.step_checked(k + 1 < n);
            }
        })
    }

    fn remove_particles(&mut self, ids: &[u32]) -> Result<(), CoreError> {
        let (changed, energy) = crate::backend::remove_particles_in(
            &self.world,
            ids,
            &mut self.pos,
            &mut self.pos_comp,
            &mut self.vel,
            &mut self.omega,
            &self.quat,
        )?;
        // Positions set from outside: no travel bound until the next rebuild.
        self.travel = f64::INFINITY;
        self.tally.removed += crate::backend::bodies_in(&self.world, &changed);
        self.tally.removed_energy += energy;
        Ok(())
    }

    fn fixed_history(&mut self) -> Vec<f32> {
        self.fixed_history.clone()
    }

    fn shell_forces(&mut self) -> Vec<[f32; 4]> {
        self.shell_forces.clone()
    }

    fn divide_cells(&mut self, divisions: &[crate::cells::Division]) -> Result<(), CoreError> {
        let arrays = crate::cells::DivisionArrays {
            pos: &mut self.pos,
            pos_comp: &mut self.pos_comp,
            vel: &mut self.vel,
            omega: &mut self.omega,
            quat: &self.quat,
            fixed_active: &self.fixed_active,
        };
        let out = crate::cells::divide_in(&mut self.world, divisions, arrays)?;
        let first_pair = self.world.cells.as_ref().map_or(0, |c| c.first_pair);
        let stride = self.world.table.fixed_history_stride;
        for d in divisions {
            let k = (first_pair + d.pair) as usize;
            // On, with no history and no slot yet: its first evaluation writes them.
            self.fixed_active[k] = 0;
            self.fixed_history[k * stride..(k + 1) * stride].fill(0.0);
            self.fixed_slots[k] = PairSlot::default();
        }
        self.travel = f64::INFINITY;
        self.tally.book_divisions(divisions.len(), &out);
        Ok(())
    }

    fn end_divisions(&mut self, pairs: &[u32]) -> Result<(), CoreError> {
        crate::backend::check_division_ends(&self.world, pairs, &self.fixed_active)?;
        let stride = self.world.table.fixed_history_stride;
        for &k in pairs {
            let k = k as usize;
            self.fixed_active[k] = fixed::FIXED_OFF;
            self.fixed_history[k * stride..(k + 1) * stride].fill(0.0);
            self.fixed_slots[k] = PairSlot::default();
        }
        Ok(())
    }

    fn insert_particles(&mut self, placed: &[(u32, [f32; 3], [f32; 3])]) -> Result<(), CoreError> {
        let (changed, energy) = crate::backend::insert_particles_in(
            &self.world,
            placed,
            &mut self.pos,
            &mut self.pos_comp,
            &mut self.vel,
            &mut self.omega,
            &self.quat,
        )?;
        self.travel = f64::INFINITY;
        self.tally.inserted += changed.len() as u64;
        self.tally.inserted_energy += energy;
        Ok(())
    }

    fn walls(&mut self) -> Vec<crate::kernel_types::Wall> {
        self.walls.clone()
    }

    fn triangles(&mut self) -> Vec<crate::kernel_types::Triangle> {
        self.triangles.clone()
    }

    fn set_velocities(&mut self, ids: &[u32], v: &[[f32; 3]]) -> Result<(), CoreError> {
        crate::backend::check_velocities(&self.world, ids, v)?;
        for (&i, x) in ids.iter().zip(v) {
            let w = &mut self.vel[i as usize];
            *w = [x[0], x[1], x[2], w[3]];
        }
        Ok(())
    }

    fn apply_forces(&mut self, ids: &[u32], f: &[[f32; 3]]) -> Result<(), CoreError> {
        let (world, mut driven) = self.driven();
        crate::external::apply_forces_in(world, ids, f, &mut driven)
    }

    fn set_fixed(&mut self, ids: &[u32], velocity: Option<&[[f32; 3]]>) -> Result<(), CoreError> {
        let (world, mut driven) = self.driven();
        crate::external::set_fixed_in(world, ids, velocity, &mut driven)
    }

    fn set_positions(&mut self, ids: &[u32], x: &[[f32; 3]]) -> Result<(), CoreError> {
        crate::backend::check_positions(&self.world, ids, x)?;
        for (&i, p) in ids.iter().zip(x) {
            let w = &mut self.pos[i as usize];
            *w = [p[0], p[1], p[2], w[3]];
            self.pos_comp[i as usize] = [0.0; 4];
        }
        Ok(())
    }

    fn steer_wall(&mut self, wall: usize, velocity: [f32; 3]) {
        if let Some(w) = self.walls.get_mut(wall) {
            crate::servo::rebase(w, &mut self.wall_origin[wall], velocity);
        }
    }

    fn wall_loads(&mut self) -> Vec<crate::backend::WallLoad> {
        crate::backend::wall_loads(
            &self.walls,
            &self.triangles,
            &self.pos,
            &self.list.pair_start,
            &self.list.pair_j,
            &self.nbr_slot,
            PackedSlots::Far(&self.slots),
        )
    }

    /// Steps of about [`BATCH_PARTICLE_STEPS`] particle-steps in all: the steps of one call
    /// run on one pool worker, and each but the last fuses the next step's first half into its
    /// last pass, neither of which a call per step gets. A caller that checks for Ctrl-C
    /// between calls answers within a call's time: on two cores about 0.2 s for the README's
    /// settle (1.1e7 particle-steps/s), 0.4 s for a dense million spheres (4.8e6).
    fn batch(&self) -> u64 {
        (BATCH_PARTICLE_STEPS / self.pos.len().max(1) as u64).max(1)
    }

    fn host_bytes(&self) -> Option<u64> {
        fn b<T>(v: &Vec<T>) -> u64 {
            (v.capacity() * std::mem::size_of::<T>()) as u64
        }
        let l = &self.list;
        let spill: u64 = self.spill.iter().map(|(s, h)| b(s) + b(h)).sum();
        let particles = [
            &self.pos,
            &self.pos_comp,
            &self.vel,
            &self.omega,
            &self.quat,
            &self.force,
            &self.torque,
            &self.ref_pos,
            &self.dissipated,
            &self.shell_forces,
            &self.shell_volumes,
            &self.surface_records,
        ];
        let words = [
            &l.nbr_start,
            &l.pair_start,
            &l.pair_j,
            &l.head_pair,
            &self.nbr_slot,
            &self.slot_base,
            &self.fixed_active,
            &self.fixed_start,
            &self.fixed_entry,
            &self.shell_start,
            &self.shell_entry,
            &self.cell_counts,
            &self.cell_start,
        ];
        let floats = [&self.history, &self.fixed_history, &self.shell_rest];
        Some(
            particles.iter().map(|v| b(v)).sum::<u64>()
                + words.iter().map(|v| b(v)).sum::<u64>()
                + floats.iter().map(|v| b(v)).sum::<u64>()
                + b(&l.head_orphans)
                + b(&self.apart)
                + b(&self.touched)
                + b(&self.slots)
                + b(&self.owns)
                + b(&self.fixed_slots)
                + b(&self.walls)
                + b(&self.wall_work)
                + b(&self.kinematic_work)
                + b(&self.applied_force)
                + b(&self.shapes)
                + spill,
        )
    }

    fn run_guarded(&mut self, n: u64) -> Result<Option<Fault>, CoreError> {
        on_worker(|| {
            for k in 0..n {
                if let Some(e) = self.solve_error() {
                    return Err(e);
                }
                if let Some(particle) = self.step_checked(k + 1 < n) {
                    return Ok(Some(Fault {
                        step: self.tally.steps,
                        particle,
                    }));
                }
            }
            if let Some(e) = self.solve_error() {
                return Err(e);
            }
            // The last step's kick, which no later first half checks.
            let end = (n > 0)
                .then(|| end_of_step_fault(&self.world, self.step.max_speed, &self.vel))
                .flatten();
            Ok(end.map(|particle| Fault {
                step: self.tally.steps,
                particle,
            }))
        })
    }

    fn counters(&self) -> Counters {
        Counters {
            steps: self.tally.steps,
            rebuilds: self.tally.rebuild_steps.len() as u64,
            neighbour_entries: self.list.nbr_start.last().copied().unwrap_or(0) as u64,
            removed: self.tally.removed,
            inserted: self.tally.inserted,
            solves: self.solves,
            solve_iterations: self.solve_iterations,
        }
    }

    fn time(&self) -> f64 {
        self.tally.steps as f64 * self.world.dt
    }

    fn snapshot(&mut self) -> Snapshot<'_> {
        use std::borrow::Cow::Borrowed;
        Snapshot {
            step: self.tally.steps,
            time: self.time(),
            pos: Borrowed(&self.pos),
            vel: Borrowed(&self.vel),
            omega: Borrowed(&self.omega),
            quat: Borrowed(&self.quat),
            force: Borrowed(&self.force),
            torque: Borrowed(&self.torque),
            material: Borrowed(&self.world.particles.material),
        }
    }

    fn energy(&mut self) -> EnergyReport {
        energy_report(
            &self.world,
            &self.pos,
            &self.vel,
            &self.omega,
            &self.quat,
            &self.source_slots(),
            &self.dissipated,
            &self.wall_work,
            &self.kinematic_work,
            self.tally.removed_energy,
            self.tally.inserted_energy,
        )
    }

    fn candidate_pairs(&mut self) -> Vec<(u32, u32)> {
        self.list.pairs()
    }

    fn state(&mut self) -> BackendState {
        // In record order already after a step; not between a rebuild and the contact passes.
        let mut nbr_slot = self.nbr_slot.clone();
        let t = &self.world.table;
        let slots: Vec<PairSlot> = self.state_slots().collect();
        let (_, history) = crate::state::packed_slots(
            &mut nbr_slot,
            &self.slots,
            &self.history,
            t.nbr_history_words,
        );
        // The state holds the device's records, padded to whole vec4s.
        let history = restride(history, t.nbr_history_words, t.nbr_history_stride);
        let (nbr_j, nbr_pair) = self.list.to_full();
        BackendState {
            pos: self.pos.clone(),
            pos_comp: self.pos_comp.clone(),
            vel: self.vel.clone(),
            omega: self.omega.clone(),
            quat: self.quat.clone(),
            force: self.force.clone(),
            torque: self.torque.clone(),
            ref_pos: self.ref_pos.clone(),
            dissipated: self.dissipated.clone(),
            nbr_start: self.list.nbr_start.clone(),
            nbr_j,
            nbr_pair,
            history,
            slots,
            nbr_slot,
            fixed_history: self.fixed_history.clone(),
            fixed_slots: self.fixed_slots.clone(),
            fixed_active: self.fixed_active.clone(),
            shell_rest: self.shell_rest.clone(),
            shell_forces: self.shell_forces.clone(),
            shell_volumes: self.shell_volumes.clone(),
            surface_records: self.surface_records.clone(),
            walls: self.walls.clone(),
            wall_work: self.wall_work.clone(),
            applied_force: self.applied_force.clone(),
            kinematic_work: self.kinematic_work.clone(),
            wall_origin: self.wall_origin.clone(),
            ..BackendState::with_header(self.header())
        }
    }

    /// [`CpuBackend::state`]'s bytes produced array by array from the backend's own: the full
    /// list from the records, the flags renumbered and the slots and history packed in record
    /// order as they are handed on, a chunk at a time. A checkpoint of a dense million-sphere
    /// pack holds a few chunks more, where taking the state whole held about as much again as
    /// the run (the full list alone is 12 bytes an entry).
    fn stream_state(&mut self, sink: &mut dyn StateSink) -> std::io::Result<()> {
        fn whole<T: bytemuck::Pod>(
            sink: &mut dyn StateSink,
            name: &'static str,
            v: &[T],
        ) -> std::io::Result<()> {
            sink.array(name, v.len() as u64)?;
            sink.bytes(bytemuck::cast_slice(v))
        }
        sink.header(&self.header())?;
        whole(sink, "pos", &self.pos)?;
        whole(sink, "pos_comp", &self.pos_comp)?;
        whole(sink, "vel", &self.vel)?;
        whole(sink, "omega", &self.omega)?;
        whole(sink, "quat", &self.quat)?;
        whole(sink, "force", &self.force)?;
        whole(sink, "torque", &self.torque)?;
        whole(sink, "ref_pos", &self.ref_pos)?;
        whole(sink, "dissipated", &self.dissipated)?;
        let l = &self.list;
        whole(sink, "nbr_start", &l.nbr_start)?;
        let n = l.nbr_start.len().saturating_sub(1);
        let total = l.nbr_start.last().copied().unwrap_or(0) as usize;
        let partners = (0..n).flat_map(|p| {
            let head = l.head(p).map(|h| l.head_partner(h));
            head.chain(l.records(p).map(|r| l.pair_j[r as usize]))
        });
        stream_array(sink, "nbr_j", total, partners)?;
        let records = (0..n).flat_map(|p| {
            let head = l.head_pair[l.head(p)].iter().copied();
            head.chain(l.records(p))
        });
        stream_array(sink, "nbr_pair", total, records)?;
        // As `state::packed_slots` packs them: the k-th record in contact takes slot k.
        let flags = &self.nbr_slot;
        let contacts = flags.iter().filter(|&&a| a != 0).count();
        let mut k = 0u32;
        let renumbered = flags.iter().map(|&a| {
            k += (a != 0) as u32;
            if a == 0 {
                0
            } else {
                k
            }
        });
        stream_array(sink, "nbr_slot", flags.len(), renumbered)?;
        let in_contact = || flags.iter().filter(|&&a| a != 0).map(|&a| a as usize - 1);
        let t = &self.world.table;
        // The state's records are padded to whole vec4s (`restride`).
        let (words, stride) = (t.nbr_history_words, t.nbr_history_stride);
        let history = in_contact().flat_map(|k| {
            let h = self.history.get(k * words..(k + 1) * words);
            (0..stride).map(move |w| match h {
                Some(h) if w < words => h[w],
                _ => 0.0,
            })
        });
        stream_array(sink, "history", contacts * stride, history)?;
        stream_array(sink, "slots", contacts, self.state_slots())?;
        whole(sink, "fixed_history", &self.fixed_history)?;
        whole(sink, "fixed_slots", &self.fixed_slots)?;
        whole(sink, "fixed_active", &self.fixed_active)?;
        whole(sink, "shell_rest", &self.shell_rest)?;
        whole(sink, "shell_forces", &self.shell_forces)?;
        whole(sink, "shell_volumes", &self.shell_volumes)?;
        whole(sink, "surface_records", &self.surface_records)?;
        whole(sink, "walls", &self.walls)?;
        whole(sink, "wall_work", &self.wall_work)?;
        whole(sink, "applied_force", &self.applied_force)?;
        whole(sink, "kinematic_work", &self.kinematic_work)?;
        whole(sink, "wall_origin", &self.wall_origin)
    }

    fn contacts(&mut self) -> ContactCount {
        count_contacts(&self.world, &self.source_slots())
    }

    fn contact_records(&mut self) -> Vec<ContactRecord> {
        let motion = (self.vel.as_slice(), self.omega.as_slice());
        contact_records(&self.world, &self.pos, motion, &self.source_slots())
    }

    fn rebuild_steps(&self) -> &[u64] {
        &self.tally.rebuild_steps
    }
}

#[cfg(test)]
mod tests {
    use super::{adds_zero_exactly, pack_in_record_order, relay_in_place};

    /// A compensated sum whose compensation adding zero would fold into the sum is not left
    /// as it is: the gather must still run for it. One the fold leaves unchanged is.
    #[test]
    fn adding_zero_is_exact_only_where_the_compensation_stays() {
        let ulp = f32::EPSILON;
        assert!(adds_zero_exactly(&[1.0, 0.0, 2.0, 0.0], 1.0));
        // Below half an ulp of the sum, the fold rounds back to the sum and keeps the
        // compensation.
        assert!(adds_zero_exactly(&[1.0, 0.25 * ulp, 1.0, -0.25 * ulp], 1.0));
        // 1 - 0.75 ulp rounds to the float below 1 (whose ulp is half of 1's): the sum moves.
        assert!(!adds_zero_exactly(&[1.0, 0.75 * ulp, 1.0, 0.0], 1.0));
        assert!(!adds_zero_exactly(&[1.0, 0.0, 1.0, 0.75 * ulp], 1.0));
    }

    /// Regions of random sizes move to a random new layout, some blocks over their old region
    /// (with a spill), some shrinking, some growing: each block ends as its kept head followed
    /// by its spill, at its new start, whatever the order of the moves.
    #[test]
    fn packing_in_record_order_renumbers_the_flags_and_moves_their_history() {
        // Three slots of two words; the rebuild dropped the pair of slot 1 and reordered none.
        let mut flags = vec![0, 3, 0, 1, 0];
        let mut history = vec![10.0, 11.0, 20.0, 21.0, 30.0, 31.0];
        pack_in_record_order(&mut flags, &mut history, 2);
        assert_eq!(flags, vec![0, 1, 0, 2, 0]);
        assert_eq!(history, vec![30.0, 31.0, 10.0, 11.0]);
        // Packed already: untouched.
        let before = (flags.clone(), history.clone());
        pack_in_record_order(&mut flags, &mut history, 2);
        assert_eq!((flags.clone(), history.clone()), before);
        // A flag past the history is cleared, not read.
        let mut flags = vec![2, 9];
        let mut history = vec![1.0, 2.0, 3.0, 4.0];
        pack_in_record_order(&mut flags, &mut history, 2);
        assert_eq!((flags, history), (vec![1, 0], vec![3.0, 4.0]));
    }

    #[test]
    fn relay_in_place_moves_every_block_to_its_new_region() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as u32
        };
        for trial in 0..200 {
            let nb = 1 + rand(12) as usize;
            let per = 1 + rand(3) as usize;
            let caps: Vec<u32> = (0..nb).map(|_| rand(6)).collect();
            let used: Vec<usize> = (0..nb).map(|_| rand(9) as usize).collect();
            let mut old = vec![0u32];
            for c in &caps {
                old.push(old[old.len() - 1] + c);
            }
            let mut new = vec![0u32];
            for u in &used {
                new.push(new[new.len() - 1] + *u as u32 + rand(3));
            }
            let kept: Vec<usize> = (0..nb).map(|b| used[b].min(caps[b] as usize)).collect();
            // Element i of block b's k-th slot: 1000 b + 10 k + i, distinct everywhere.
            let tag = |b: usize, k: usize, i: usize| (1000 * b + 10 * k + i) as u32 + 1;
            let mut v = vec![0u32; old[nb] as usize * per];
            for b in 0..nb {
                for k in 0..caps[b] as usize {
                    for i in 0..per {
                        v[(old[b] as usize + k) * per + i] = tag(b, k, i);
                    }
                }
            }
            let spills: Vec<Vec<u32>> = (0..nb)
                .map(|b| {
                    (kept[b]..used[b])
                        .flat_map(|k| (0..per).map(move |i| tag(b, k, i)))
                        .collect()
                })
                .collect();
            let spill: Vec<&[u32]> = spills.iter().map(|s| &s[..]).collect();
            relay_in_place(&mut v, per, &old, &new, &kept, &spill);
            assert_eq!(v.len(), new[nb] as usize * per, "trial {trial}: length");
            for b in 0..nb {
                for k in 0..used[b] {
                    for i in 0..per {
                        assert_eq!(
                            v[(new[b] as usize + k) * per + i],
                            tag(b, k, i),
                            "trial {trial}: block {b} slot {k} word {i}"
                        );
                    }
                }
            }
        }
    }
}
