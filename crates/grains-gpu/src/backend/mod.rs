//! The GPU backend: the state resident on the device and the step of docs/architecture.md
//! ("One time step"), recorded many steps per submission with no read-back in between.
//!
//! The sequence is `CpuBackend::step`'s, pass for pass: integrate (first half, folding the
//! displacement into an `atomicMax` flag), a one-thread `decide` kernel that turns the flag into
//! indirect dispatch sizes (zero or N groups) for the rebuild passes, the rebuild (its scans
//! into a second set of starts, then, once a `guard` has checked the new list fits, the list
//! written over the old one and each packed slot carried to its pair's new record), a
//! `commit` kernel that copies the new starts over the current ones (the device-side form of
//! `CpuBackend::rebuild`'s assignment, which the host cannot do without knowing whether a
//! rebuild happened), the contact chains,
//! wall chains, gather and the second half. Every float is summed in the CPU twin's order, with
//! no float atomics, so runs are bitwise reproducible.
//!
//! Overflow: the list is allocated with headroom. Every pass is dispatched indirectly, and a
//! control kernel that finds the rebuilt list or this step's packed slots too large for their
//! buffers (`guard`, `slot_guard`) zeroes every dispatch size, so the rest of the batch does
//! nothing. Every `check_every` steps the host reads a small control buffer; after such a
//! freeze it grows the buffers (keeping their contents) and records the frozen step again from
//! the kernel that stopped it, so no contact is ever dropped, with no saved copy of the state
//! and no replay. A guarded run freezes the same way after the step whose first half found a
//! faulty particle (control.wgsl).

use std::collections::BTreeMap;

use grains_core::backend::{count_contacts, energy_report, ContactCount, SourceSlots};
use grains_core::kernel_types::{PairSlot, Wall};
use grains_core::kernels::sources::neighbour::FarSlot;
use grains_core::mesh_walls::MeshBodies;
// The words of `slot_count` (shaders/lib/slot_words.wgsl, as the carry's twin has them).
use grains_core::kernels::passes::slot_carry::{
    NO_PAIR as SLOT_NO_PAIR, SLOT_CAPACITY, SLOT_FREE, SLOT_PENDING, SLOT_POPS, SLOT_PUSHES,
    SLOT_TAKEN, SLOT_WORDS,
};
use grains_core::kernels::sources::fixed::fixed_index;
use grains_core::kernels::sources::SourceKind;
use grains_core::state::{
    restride, slot_walls, Extent, Sizes, StateHeader, StateSink, STATE_ARRAYS,
};
use grains_core::{
    Backend, BackendState, CoreError, Counters, EnergyReport, Fault, Snapshot, World,
};

use crate::device::GpuContext;
use crate::error::GpuError;
use crate::kernel::Kernel;
use crate::program::{record, Op};

mod buffers;
mod control_words;
mod plan;
mod profile;
mod solve;
mod textures;

pub use profile::{PassProfile, StepProfile};

use buffers::{list_buffers, params_buffer};
use plan::{control_source, entry_of, pass_kernel, shader_err, KernelIds};

/// Tuning of the GPU backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Records (pairs: history and slot flag) allocated per particle at start: a particle pair
    /// has two entries and one record, a wall one of each; 0 (the default) for as many as the
    /// first list needs. The records grow, to an eighth more than needed, when a rebuild
    /// needs more; nothing on the device is kept per entry.
    pub initial_records_per_particle: u32,
    /// Force slots (with their history records) allocated per particle at start: one per
    /// record in contact, half the coordination number plus the wall contacts; 0 (the default)
    /// for as many as the initial forces take. They grow when a step takes more.
    pub initial_slots_per_particle: u32,
    /// Steps between read-backs of the control words (1..=256): at most this many steps are
    /// recorded after one that freezes (and then do nothing).
    pub check_every: u32,
    /// Bytes a storage binding may hold, below the adapter's own limit
    /// (`max_storage_buffer_binding_size`); 0 (the default) for the adapter's. An array larger
    /// than a binding is bound as several windows of its buffer, and the kernels that bind it
    /// are composed to pick the window of each element (`grains_shaders::split_arrays`); a
    /// small figure exercises that split in tests. A buffer is still at most the adapter's
    /// `max_buffer_size`.
    pub binding_limit: u64,
    /// Bytes one buffer may hold, below the adapter's `max_buffer_size`; 0 (the default) for
    /// the adapter's. A storage array larger than that (the list's records, packed slots and
    /// history, or a particle array) is held in several buffers, bound as the windows of one
    /// array; a small figure exercises that in tests.
    pub buffer_limit: u64,
    /// Arrays larger than this many bytes (that no kernel updates atomically) are held in
    /// storage textures (`grains_shaders::texture_arrays`); 0 (the default) for only those a
    /// kernel could not otherwise bind, its storage buffers a stage being too few for its
    /// windows; `u64::MAX` for none (such a kernel is refused, `GpuError::KernelReach`). A
    /// small figure exercises textures in tests.
    pub texture_limit: u64,
    /// Gather and kick in one pass (`gather_kick`) where nothing runs between them (no shells,
    /// clumps or moving walls). Off, the step runs `gather` and `integrate_second_half`, with
    /// the same bits; for tests.
    pub fuse_gather_kick: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            initial_records_per_particle: 0,
            initial_slots_per_particle: 0,
            check_every: 64,
            binding_limit: 0,
            buffer_limit: 0,
            texture_limit: 0,
            fuse_gather_kick: true,
        }
    }
}

/// The capacity that holds `needed` elements of a list buffer holding `cap` for `n`
/// particles: `cap` if they fit, else a sixteenth more than needed
/// ([`grains_core::backend::LIST_MARGIN`]) and at least `n / 32` more
/// than before, in whole workgroups. Not twice the old capacity: the list's arrays are most
/// of the device memory, a packing's density is bounded, and a growth costs only a copy of
/// the list and at most `check_every` steps of frozen dispatches; the floor keeps the slots,
/// which start near zero in a scene that has yet to touch, from growing in many small steps.
/// `scenes/settle_100k.toml` (lavapipe, 5000 steps) ends with 9.0 entries, 4.5 records and
/// 0.65 packed slots per particle.
pub(crate) fn grown(needed: u64, cap: u64, n: usize) -> u64 {
    if needed <= cap {
        return cap;
    }
    (needed + needed / grains_core::backend::LIST_MARGIN)
        .max(cap + n as u64 / 32)
        .next_multiple_of(64)
}

/// Where a frozen step is taken up again.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Resume {
    /// At the list guard, after the buffers grew (the counts and scans are still there).
    Guard,
    /// At the contact passes, after the slots grew, for the records that found no slot.
    Chains,
    /// At the next step, after a fault was reported.
    NextStep,
    /// After the solve's check, with more iterations (backend/solve.rs).
    Solve,
}

use control_words::*;
use grains_core::backend::RunTally;
use grains_core::schedule::{Pass, Schedule};
use grains_shaders::CONTROL_WGSL;

/// The kernels of a world and the dispatches recorded from its schedule: the initial forces'
/// and a step's, with where a frozen batch is taken up again.
struct StepProgram {
    kernels: Vec<Kernel>,
    /// Kernels composed with arrays split over several bindings ([`Kernel::split`]), by base
    /// kernel and split: made when an op first binds a buffer larger than a binding.
    #[allow(clippy::type_complexity)]
    split_kernels: std::sync::Mutex<
        BTreeMap<
            (
                usize,
                Vec<grains_shaders::ArraySplit>,
                Vec<grains_shaders::ArraySplit>,
            ),
            Kernel,
        >,
    >,
    ids: KernelIds,
    init_ops: Vec<Op>,
    /// Indices in `init_ops` of the guard and the first contact pass, where a frozen initial
    /// force computation is taken up again.
    init_resume: (usize, usize),
    /// The same in `step_ops`.
    step_resume: (usize, usize),
    /// Per indirect slot, the plan's word: a fixed workgroup count, or threads per group of a
    /// slot sized by the list total.
    plan_slots: Vec<u32>,
    /// Workgroups of the passes every step runs, one indirect slot each from
    /// [`GpuBackend::every_base`] on.
    every: Vec<u32>,
    /// How many of them run before `decide` (a guarded fault stops them for the next step).
    every_pre: usize,
    /// The step's dispatches.
    step_ops: Vec<Op>,
    /// Indices in `step_ops` of the rebuild passes (dispatched with zero workgroups on steps
    /// that do not rebuild).
    rebuild_ops: std::ops::Range<usize>,
    /// The implicit solve's dispatches, in an implicit world.
    solve_ops: Option<solve::SolveOps>,
}

/// The device's arrays, by name: each in a buffer, split over further buffers past the buffer
/// limit, or in storage textures.
#[derive(Default)]
struct DeviceArrays {
    bufs: BTreeMap<&'static str, wgpu::Buffer>,
    /// The further buffers of arrays larger than one buffer may be
    /// ([`GpuOptions::buffer_limit`]), after the first in `bufs` ([`GpuBackend::make_array`]).
    more: BTreeMap<&'static str, Vec<wgpu::Buffer>>,
    /// Arrays held in storage textures instead of buffers (textures.rs).
    tex: BTreeMap<&'static str, textures::TextureArray>,
    /// The array to move into textures after a kernel could not bind its windows
    /// ([`GpuBackend::build_ops`]).
    reach_hint: std::sync::Mutex<Option<&'static str>>,
}

/// The GPU backend. See the module documentation for the step.
///
/// `run(n)` records the `n` steps in submissions of 32 with no read-back in between, except the
/// overflow check every `check_every` steps and one at the end, so that `counters()` and
/// `rebuild_steps()` (which the `Backend` trait serves from `&self`) are current when it returns.
/// `step()` is `run(1)`: correct, but one small read-back per call; loop on `run` for speed.
pub struct GpuBackend {
    ctx: GpuContext,
    world: World,
    opts: GpuOptions,
    n: usize,
    n_walls: usize,
    n_cells: usize,
    /// Records (pairs) allocated: at most the entries, about half of them.
    rec_capacity: u64,
    /// Packed slots allocated: at most the records, those in contact.
    slot_capacity: u64,
    /// The compiled kernels and the recorded dispatches of a step.
    program: StepProgram,
    /// The device's arrays: buffers, their further parts and textures.
    arrays: DeviceArrays,
    total: u64,
    /// Records (pairs) of the current list.
    records: u64,
    /// Packed slots the last step took (records in contact), as of the last check.
    contacts: u64,
    grows: u32,
    /// Steps, rebuilds, removals and insertions so far.
    tally: RunTally,
    /// Per-dispatch timing while `profile` runs.
    profiler: Option<profile::Profiler>,
    /// The implicit solves: iterations recorded a step, and the device's counts.
    solve_tally: solve::SolveTally,
}

impl GpuBackend {
    /// The state's scalars: steps, rebuilds, particles removed and inserted.
    fn header(&self) -> StateHeader {
        self.tally.header()
    }

    /// Upload `world` and compute the forces of its initial state, with default options.
    pub fn new(world: World, ctx: &GpuContext) -> Result<GpuBackend, GpuError> {
        GpuBackend::with_options(world, ctx, GpuOptions::default())
    }

    /// As [`GpuBackend::new`], with explicit options.
    pub fn with_options(
        world: World,
        ctx: &GpuContext,
        opts: GpuOptions,
    ) -> Result<GpuBackend, GpuError> {
        let ctx = ctx.clone();
        let opts = GpuOptions {
            initial_records_per_particle: opts.initial_records_per_particle,
            initial_slots_per_particle: opts.initial_slots_per_particle,
            check_every: opts.check_every.clamp(1, LOG_LEN as u32),
            binding_limit: opts.binding_limit,
            buffer_limit: opts.buffer_limit,
            texture_limit: opts.texture_limit,
            fuse_gather_kick: opts.fuse_gather_kick,
        };
        let grid = world.grid()?;
        let n = world.particles.len();
        // The walls' records: the analytic walls, then the mesh walls' bodies.
        let n_walls = world.walls.len() + world.meshes.bodies.len();
        let n_cells = grid.n_cells as usize;
        // At least one workgroup's worth: the first list or forces that need more freeze the
        // initial step, and the buffers grow to what they need.
        let initial = |per_particle: u32| {
            (n as u64 * per_particle as u64)
                .next_multiple_of(64)
                .max(64)
        };

        let (kernels, ids) = compile_kernels(&ctx, &world, &opts)?;
        let mut b = GpuBackend {
            ctx,
            opts,
            n,
            n_walls,
            n_cells,
            rec_capacity: initial(opts.initial_records_per_particle),
            slot_capacity: initial(opts.initial_slots_per_particle),
            program: StepProgram {
                kernels,
                split_kernels: Default::default(),
                ids,
                init_ops: Vec::new(),
                init_resume: (0, 0),
                step_resume: (0, 0),
                plan_slots: Vec::new(),
                every: Vec::new(),
                every_pre: 0,
                step_ops: Vec::new(),
                rebuild_ops: 0..0,
                solve_ops: None,
            },
            arrays: DeviceArrays::default(),
            tally: RunTally::default(),
            profiler: None,
            total: 0,
            records: 0,
            contacts: 0,
            grows: 0,
            solve_tally: Default::default(),
            world,
        };
        b.create_buffers(&grid)?;
        b.build_ops()?;
        b.record_from(true, 0);
        b.finish_batch(false)?;
        Ok(b)
    }

    /// Resume from a saved state (a checkpoint, possibly written by the CPU backend): the run
    /// continues exactly where the state was taken.
    pub fn from_state(
        world: World,
        ctx: &GpuContext,
        state: &BackendState,
    ) -> Result<GpuBackend, GpuError> {
        GpuBackend::from_state_with_options(world, ctx, state, GpuOptions::default())
    }

    /// As [`GpuBackend::from_state`], with explicit options.
    pub fn from_state_with_options(
        mut world: World,
        ctx: &GpuContext,
        state: &BackendState,
        opts: GpuOptions,
    ) -> Result<GpuBackend, GpuError> {
        use bytemuck::cast_slice;
        // Applied forces and kinematic work the state carries are the world's from now on.
        grains_core::state::fit_world_to(&mut world, state);
        state
            .validate(&world)
            .map_err(|e| GpuError::State(e.to_string()))?;
        // The state's velocities, spins and orientations replace the world's initial ones,
        // which a backend's own world no longer holds (it took them): the buffers are sized
        // and filled from the state either way. So do its positions, which a CPU backend's
        // world no longer holds either.
        let p = &mut world.particles;
        (p.vel, p.omega, p.quat) = (state.vel.clone(), state.omega.clone(), state.quat.clone());
        if p.pos.is_empty() {
            p.pos = state.pos.clone();
        }
        let mut b = GpuBackend::with_options(world, ctx, opts)?;
        let total = state.nbr_j.len() as u64;
        let records = state.nbr_slot.len() as u64;
        let slots = state.slots.len() as u64;
        // The record-sized buffers hold the heads' references too.
        let per_record = records.max(total - records);
        if per_record > b.rec_capacity || slots > b.slot_capacity {
            b.rec_capacity = grown(per_record, b.rec_capacity, b.n);
            b.slot_capacity = grown(slots, b.slot_capacity, b.n);
            for (name, elem, cap, stride) in list_buffers(&b.world) {
                let grown = b.make_list_array(name, elem * b.list_capacity(cap), stride)?;
                b.install(name, grown);
            }
            b.build_ops()?;
        }
        let put = |name: &str, bytes: &[u8]| {
            if !bytes.is_empty() {
                b.write_array(name, 0, bytes);
            }
        };
        for (a, bytes) in STATE_ARRAYS.iter().zip(state.array_bytes()) {
            // The full list goes up as the device keeps it, each pair once (below); the
            // orientations went up with the world, fitted to whether it keeps them.
            if ["nbr_j", "nbr_pair", "quat"].contains(&a.name) {
                continue;
            }
            // The slots go up as the list keeps them (below), once its records are known.
            if a.name == "slots" {
                continue;
            }
            // The device keeps the history unpadded.
            if a.name == "history" {
                let t = &b.world.table;
                let (stride, words) = (t.nbr_history_stride, t.nbr_history_words);
                let h = restride(state.history.clone(), stride, words);
                put("history", cast_slice(&h));
                continue;
            }
            put(a.name, bytes);
        }
        // The mesh walls' triangles turned with their bodies as the state holds them.
        if b.world.meshes.move_any() {
            let bodies = &state.walls[b.world.walls.len()..];
            let turned = MeshBodies::triangles_at(&b.world.triangles, bodies);
            put("triangles", cast_slice(&turned));
        }
        // The list with each pair once: its records' starts (which a state does not keep) and
        // partners, and each head entry's record, as the CPU backend keeps it.
        let list = grains_core::cpu::NeighbourList::from_full(
            state.nbr_start.clone(),
            state.nbr_j.clone(),
            state.nbr_pair.clone(),
        );
        if list.has_orphans() {
            return Err(GpuError::State(
                "the state's neighbour list names a pair from one side only (a head entry \
                 whose record is missing): the GPU backend keeps each pair once and cannot \
                 hold it; resume it on the CPU backend"
                    .into(),
            ));
        }
        put("pair_j", cast_slice(&list.pair_j));
        put("head_pair", cast_slice(&list.head_pair));
        // What the list keeps of each slot: the other side's torque of a particle pair, the
        // particle's of a wall contact (the owner's side is summed by the contact passes). The
        // state's slots are in record order, as the CPU backend takes them up.
        let far: Vec<FarSlot> = slot_walls(&state.nbr_slot, &list.pair_j, b.n as u32)
            .zip(&state.slots)
            .map(|(wall, slot)| FarSlot::of(slot, wall))
            .collect();
        put("slots", cast_slice(&far));
        drop(far);
        let starts = list.pair_start;
        put("pair_start", cast_slice(&starts));
        // Each packed slot's pair, by which a rebuild finds its new record (the state's slots
        // are packed: every one below their count is in use).
        let owners = || grains_core::kernels::passes::pair_record::entry_owners(&starts);
        let mut slot_pair = vec![[SLOT_NO_PAIR; 2]; slots as usize];
        for ((p, &q), &a) in owners().zip(&list.pair_j).zip(&state.nbr_slot) {
            if let Some(pq) = (a as usize)
                .checked_sub(1)
                .and_then(|k| slot_pair.get_mut(k))
            {
                *pq = [p, q];
            }
        }
        put("slot_pair", cast_slice(&slot_pair));
        drop(slot_pair);
        // The control words as the device would hold them after those steps.
        let mut control = vec![0u32; CONTROL_WORDS];
        control[C_STEP] = state.step as u32;
        control[C_REBUILDS] = state.rebuild_steps.len() as u32;
        control[C_TOTAL] = total as u32;
        control[C_RECORDS] = records as u32;
        control[C_MAX_RECORDS] = per_record as u32;
        control[C_MAX_SLOTS] = slots as u32;
        for (r, s) in state.rebuild_steps.iter().enumerate() {
            control[C_LOG + r % LOG_LEN] = *s as u32;
        }
        put("control", cast_slice(&control));
        put("max_disp2", cast_slice(&[0u32]));
        // The state's slots are packed: all taken, none given back.
        b.write_slot_words(slots, &[]);
        put("fault", cast_slice(&[NO_FAULT]));
        // Dispatches over the list are sized by its records on the device, at each rebuild
        // (the guard kernel); here the host sizes them for the restored list the same way.
        b.write_list_args(records);
        b.tally = RunTally::of_state(state);
        b.total = total;
        b.records = records;
        b.contacts = slots;
        Ok(b)
    }

    fn core_err(&self, e: GpuError) -> CoreError {
        if let GpuError::Solve(e) = e {
            return e;
        }
        CoreError::Backend {
            backend: format!("GPU ({})", self.ctx.adapter_name()),
            message: e.to_string(),
        }
    }

    /// The adapter's name, for benchmark reports.
    pub fn backend_label(&self) -> String {
        format!("gpu ({})", self.ctx.adapter_name())
    }

    /// How many buffers hold array `name` (more than one for an array larger than a buffer may
    /// be, [`GpuOptions::buffer_limit`]); 0 for no such array.
    pub fn array_buffers(&self, name: &str) -> usize {
        self.segments(name).len()
    }

    /// The arrays the step binds as several windows, being larger than a storage binding
    /// ([`GpuOptions::binding_limit`]): `(kernel, array, parts)` of each, once.
    pub fn split_arrays(&self) -> Vec<(String, String, u32)> {
        let mut out: Vec<(String, String, u32)> = self
            .program
            .init_ops
            .iter()
            .chain(&self.program.step_ops)
            .flat_map(|op| {
                let label = &self.program.kernels[op.kernel].label;
                op.splits
                    .iter()
                    .map(move |s| (label.clone(), s.name.clone(), s.parts))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Current record capacity (pairs).
    pub fn record_capacity(&self) -> u64 {
        self.rec_capacity
    }

    /// Current capacity of the packed force slots (records in contact).
    pub fn slot_capacity(&self) -> u64 {
        self.slot_capacity
    }

    /// Packed slots ever taken: those in use and those given back to be taken again
    /// (shaders/lib/packed_slots.wgsl).
    pub fn slots_taken(&self) -> Result<u64, GpuError> {
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&self.read_bytes("slot_count", 4)?);
        Ok(words.first().copied().unwrap_or(0) as u64)
    }

    /// How many times the neighbour list has grown after an overflow.
    pub fn list_grows(&self) -> u32 {
        self.grows
    }

    /// Read the particle arrays a removal or an insertion edits, let `f` edit them (it returns
    /// the indices it changed and an energy), and write the changed elements back.
    #[allow(clippy::type_complexity)]
    fn patch_particles(
        &mut self,
        f: impl FnOnce(
            &World,
            &mut [[f32; 4]],
            &mut [[f32; 4]],
            &mut [[f32; 4]],
            &mut [[f32; 4]],
            &[[f32; 4]],
        ) -> Result<(Vec<usize>, f64), CoreError>,
    ) -> Result<(u64, f64), CoreError> {
        let n = self.n as u64;
        let mut pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let mut pos_comp: Vec<[f32; 4]> = self.read_pod("pos_comp", n);
        let mut vel: Vec<[f32; 4]> = self.read_pod("vel", n);
        let mut omega: Vec<[f32; 4]> = self.read_pod("omega", n);
        let quat = self.read_orientations();
        let (changed, energy) = f(
            &self.world,
            &mut pos,
            &mut pos_comp,
            &mut vel,
            &mut omega,
            &quat,
        )?;
        let count = grains_core::backend::bodies_in(&self.world, &changed);
        for i in changed {
            let at = 16 * i as u64;
            for (name, v) in [
                ("pos", &pos),
                ("pos_comp", &pos_comp),
                ("vel", &vel),
                ("omega", &omega),
            ] {
                self.write_array(name, at, bytemuck::cast_slice(&v[i..=i]));
            }
        }
        Ok((count, energy))
    }

    /// Fixed pairs `pairs` with flag `active`, their history and slot zeroed.
    fn reset_fixed_pairs(&mut self, pairs: &[u32], active: u32) {
        let stride = self.world.table.fixed_history_stride;
        let zeros = vec![0.0f32; stride];
        for &k in pairs {
            let k = k as u64;
            self.write_array("fixed_active", 4 * k, bytemuck::bytes_of(&active));
            let at = 4 * stride as u64 * k;
            self.write_array("fixed_history", at, bytemuck::cast_slice(&zeros));
            let slot = PairSlot::default();
            let size = std::mem::size_of::<PairSlot>() as u64;
            self.write_array("fixed_slots", size * k, bytemuck::bytes_of(&slot));
        }
    }

    /// Read back the arrays a change between steps edits (`grains_core::external`), let `f`
    /// edit them, and write them back whole, but nothing where `f` refuses the change.
    fn drive(
        &mut self,
        f: impl FnOnce(&World, &mut grains_core::external::Driven<'_>) -> Result<(), CoreError>,
    ) -> Result<(), CoreError> {
        let (n, sizes) = (self.n as u64, self.sizes());
        let pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let quat = self.read_orientations();
        let mut vel: Vec<[f32; 4]> = self.read_pod("vel", n);
        let mut omega: Vec<[f32; 4]> = self.read_pod("omega", n);
        let mut force: Vec<[f32; 4]> = self.read_pod("force", n);
        let held = Extent::ParticlesIfApplied.len(&sizes) as u64;
        let mut applied_force: Vec<[f32; 4]> = match held {
            0 => Vec::new(),
            k => self.read_pod("applied_force", k),
        };
        let books = Extent::ParticlesIfKinematic.len(&sizes) as u64;
        let mut kinematic_work: Vec<[f32; 2]> = self.read_pod("kinematic_work", books);
        f(
            &self.world,
            &mut grains_core::external::Driven {
                pos: &pos,
                vel: &mut vel,
                omega: &mut omega,
                quat: &quat,
                force: &mut force,
                applied_force: &mut applied_force,
                kinematic_work: &mut kinematic_work,
            },
        )?;
        let arrays: [(&str, &[u8]); 5] = [
            ("vel", bytemuck::cast_slice(&vel)),
            ("omega", bytemuck::cast_slice(&omega)),
            ("force", bytemuck::cast_slice(&force)),
            ("applied_force", bytemuck::cast_slice(&applied_force)),
            ("kinematic_work", bytemuck::cast_slice(&kinematic_work)),
        ];
        for (name, bytes) in arrays.into_iter().filter(|(_, b)| !b.is_empty()) {
            self.write_array(name, 0, bytes);
        }
        Ok(())
    }

    /// Entries in the current neighbour list.
    pub fn neighbour_entries(&self) -> u64 {
        self.total
    }

    /// Write control word `at` (ordered before the next submission).
    fn write_control(&self, at: usize, value: u32) {
        self.ctx.queue.write_buffer(
            &self.arrays.bufs["control"],
            4 * at as u64,
            bytemuck::cast_slice(&[value]),
        );
    }

    /// Read the control words after a batch. If the batch froze, grow what overflowed and take
    /// the frozen step up again where it stopped, until a batch ends unfrozen; then record the
    /// rebuilds and list sizes. Returns the fault that stopped a guarded run: the state is the
    /// state after its step. Unguarded, a fault flag is cleared and ignored.
    fn finish_batch(&mut self, guarded: bool) -> Result<Option<Fault>, GpuError> {
        loop {
            let mut sources = vec![
                (
                    "control",
                    &self.arrays.bufs["control"],
                    4 * CONTROL_WORDS as u64,
                ),
                ("fault", &self.arrays.bufs["fault"], 4),
                (
                    "slot_count",
                    &self.arrays.bufs["slot_count"],
                    4 * SLOT_WORDS as u64,
                ),
            ];
            let implicit = self.program.solve_ops.is_some();
            if implicit {
                sources.push(("solve", &self.arrays.bufs["solve"], 4 * SOLVE_WORDS as u64));
            }
            let mut words = crate::device::read_back(&self.ctx, self.encoder(), &sources)?;
            let mut solve_words: Vec<u32> = Vec::new();
            if implicit {
                solve_words = bytemuck::pod_collect_to_vec(&words.pop().unwrap_or_default());
                if solve_words.len() < SOLVE_WORDS {
                    return Err(GpuError::Readback("solve".into()));
                }
                self.take_solve_counts(&solve_words);
            }
            let word = |v: Vec<u8>| bytemuck::pod_collect_to_vec::<u8, u32>(&v).first().copied();
            let slot_words: Vec<u32> =
                bytemuck::pod_collect_to_vec(&words.pop().unwrap_or_default());
            if slot_words.len() < SLOT_WORDS {
                return Err(GpuError::Readback("slot_count".into()));
            }
            // Slots in use at the end of the batch: those taken less those in the ring.
            let free = slot_words[SLOT_FREE] - slot_words[SLOT_POPS].min(slot_words[SLOT_FREE])
                + slot_words[SLOT_PUSHES];
            let taken = slot_words[SLOT_TAKEN].saturating_sub(free);
            let fault = words.pop().and_then(word).unwrap_or(NO_FAULT);
            let c: Vec<u32> = bytemuck::pod_collect_to_vec(&words.pop().unwrap_or_default());
            if c.len() < CONTROL_WORDS {
                return Err(GpuError::Readback("control".into()));
            }
            // The step the batch is in: the device counts in 32 bits.
            let step = self.tally.steps - (self.tally.steps as u32).wrapping_sub(c[C_STEP]) as u64;
            self.tally.steps = step;
            let resume = match c[C_FROZEN] {
                0 => None,
                FROZEN_SOLVE => {
                    if let Err(e) = self.solve_frozen(&solve_words, step) {
                        self.accept(&c, taken);
                        return Err(e);
                    }
                    Some(Resume::Solve)
                }
                FROZEN_LIST => {
                    let slots = self.slot_capacity;
                    self.grow(c[C_MAX_RECORDS] as u64, slots)?;
                    Some(Resume::Guard)
                }
                FROZEN_SLOTS => {
                    let had = self.slot_capacity;
                    let wanted = slot_words[SLOT_TAKEN] as u64;
                    self.grow(self.rec_capacity, wanted)?;
                    let run = slot_words[SLOT_PENDING] + 1;
                    self.reclaim_slots(wanted.min(had), c[C_RECORDS] as u64, run);
                    Some(Resume::Chains)
                }
                _ => {
                    debug_assert_eq!(c[C_FROZEN], FROZEN_FAULT);
                    self.accept(&c, taken);
                    self.clear_fault();
                    self.thaw(Resume::NextStep, c[C_RECORDS] as u64);
                    return Ok(Some(Fault {
                        step,
                        particle: fault,
                    }));
                }
            };
            let Some(resume) = resume else {
                self.accept(&c, taken);
                if implicit {
                    self.size_recorded_iterations()?;
                }
                if fault != NO_FAULT {
                    self.clear_fault();
                    // A guarded run's fault in a step that also overflowed: that step has
                    // been taken up again and finished.
                    if guarded {
                        return Ok(Some(Fault {
                            step,
                            particle: fault,
                        }));
                    }
                }
                return Ok(None);
            };
            self.thaw(resume, c[C_RECORDS] as u64);
            if resume == Resume::Solve {
                self.record_solve_more(step == 0);
                continue;
            }
            let (guard, chains) = if step == 0 {
                self.program.init_resume
            } else {
                self.program.step_resume
            };
            let at = if resume == Resume::Guard {
                guard
            } else {
                chains
            };
            self.record_from(step == 0, at);
        }
    }

    /// Take the steps up to the last read-back as done: record their rebuilds, the list total
    /// and the slots the last step took.
    fn accept(&mut self, c: &[u32], taken: u32) {
        let seen = self.tally.rebuild_steps.len() as u64;
        let now = c[C_REBUILDS] as u64;
        for r in seen..now {
            self.tally
                .rebuild_steps
                .push(c[C_LOG + (r % LOG_LEN as u64) as usize] as u64);
        }
        self.total = c[C_TOTAL] as u64;
        self.records = c[C_RECORDS] as u64;
        self.contacts = taken as u64;
    }

    /// Undo a freeze before recording again from `resume`: the frozen word cleared, and the
    /// dispatch sizes the freeze zeroed written back (the every-step passes', the list's
    /// contact passes' for a list of `records` records, and after the guard the fill's, the
    /// heads' and the commit's, whose step is rebuilding).
    fn thaw(&mut self, resume: Resume, records: u64) {
        self.write_control(C_FROZEN, 0);
        self.write_plan_args(self.every_slots());
        self.write_list_args(records);
        match resume {
            Resume::Guard => {
                self.write_control(C_REBUILD, 1);
                self.write_plan_args([S_PAIR_FILL, S_PAIR_RECORD, S_COMMIT_PARTICLES]);
            }
            Resume::Chains | Resume::NextStep | Resume::Solve => {}
        }
    }

    /// Record and submit the dispatches from index `at` of the step, or of the initial forces.
    fn record_from(&self, initial: bool, at: usize) {
        let ops = if initial {
            &self.program.init_ops
        } else {
            &self.program.step_ops
        };
        self.record_ops(&ops[at..]);
    }

    /// Record and submit `ops`.
    fn record_ops(&self, ops: &[Op]) {
        let mut enc = self.encoder();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            record(
                &mut pass,
                &self.program.kernels,
                ops,
                &self.arrays.bufs["args"],
                self.max_dim(),
            );
        }
        self.ctx.queue.submit([enc.finish()]);
    }

    /// After the slots grew in a step whose contact passes found too few: every slot below
    /// `taken` that no record names goes back to the ring (those the step's pairs gave back,
    /// and those taken by particles that found too few), and the contact passes are set to run
    /// again, as run `run` of the step, for the particles that found too few alone
    /// (shaders/lib/packed_slots.wgsl).
    fn reclaim_slots(&mut self, taken: u64, records: u64, run: u32) {
        let flags: Vec<u32> = self.read_pod("nbr_slot", records);
        let mut used = vec![false; taken as usize];
        for &a in &flags {
            if a != 0 {
                if let Some(u) = used.get_mut(a as usize - 1) {
                    *u = true;
                }
            }
        }
        drop(flags);
        let free: Vec<u32> = (0..taken as u32).filter(|&k| !used[k as usize]).collect();
        // A slot in the ring holds no pair, which a rebuild's carry passes over.
        let mut pairs: Vec<[u32; 2]> = self.read_pod("slot_pair", taken);
        for &k in &free {
            pairs[k as usize] = [SLOT_NO_PAIR; 2];
        }
        self.write_array("slot_pair", 0, bytemuck::cast_slice(&pairs));
        drop(pairs);
        self.write_slot_words(taken, &free);
        self.ctx.queue.write_buffer(
            &self.arrays.bufs["slot_count"],
            4 * SLOT_PENDING as u64,
            bytemuck::cast_slice(&[run]),
        );
    }

    /// The packed slots in record order (`read_packed`'s) as a state holds them
    /// ([`FarSlot::slot`]: the owner's side went into its sums).
    fn whole_slots(&self, nbr_slot: &[u32], slots: &[FarSlot]) -> Vec<PairSlot> {
        let (_, pair_j) = self.read_records();
        slot_walls(nbr_slot, &pair_j, self.n as u32)
            .zip(slots)
            .map(|(wall, s)| s.slot(wall))
            .collect()
    }

    /// The orientations, where the world keeps them; none otherwise (each is the identity).
    fn read_orientations(&self) -> Vec<[f32; 4]> {
        let n = Extent::ParticlesIfTurning.len(&self.sizes());
        self.read_pod("quat", n as u64)
    }

    /// The sizes of the state as the device holds it now.
    fn sizes(&self) -> Sizes {
        Sizes::of(
            &self.world,
            self.total as usize,
            self.records as usize,
            self.contacts as usize,
        )
    }

    /// The records' slot flags, the packed slots and history, read back and laid out in record
    /// order as the state holds them ([`grains_core::state::packed_slots`]): the contact passes
    /// take slots in the order their invocations run. The history comes back only
    /// `with_history` (for the state); the energy, contacts and wall loads read the slots alone.
    fn read_packed(&self, with_history: bool) -> (Vec<u32>, Vec<FarSlot>, Vec<f32>) {
        let mut nbr_slot: Vec<u32> = self.read_pod("nbr_slot", self.records);
        let taken = (nbr_slot.iter().copied().max().unwrap_or(0) as u64).min(self.slot_capacity);
        let slots: Vec<FarSlot> = self.read_pod("slots", taken);
        // The device keeps the history unpadded; a state keeps whole vec4s.
        let t = &self.world.table;
        let words = if with_history { t.nbr_history_words } else { 0 };
        let history: Vec<f32> = if words > 0 && taken > 0 {
            self.read_pod("history", taken * words as u64)
        } else {
            Vec::new()
        };
        let (slots, history) =
            grains_core::state::packed_slots(&mut nbr_slot, &slots, &history, words);
        let history = restride(history, words, t.nbr_history_stride);
        (nbr_slot, slots, history)
    }

    /// The neighbour list's records, read back: their starts and partners.
    fn read_records(&self) -> (Vec<u32>, Vec<u32>) {
        let starts: Vec<u32> = self.read_pod("pair_start", self.n as u64 + 1);
        let pair_j: Vec<u32> = self.read_pod("pair_j", self.records);
        (starts, pair_j)
    }

    /// The full list a state keeps (each entry's partner and record, `nbr_j` and `nbr_pair`),
    /// from the list the device keeps with each pair once.
    fn read_full_list(&self) -> (Vec<u32>, Vec<u32>) {
        let nbr_start: Vec<u32> = self.read_pod("nbr_start", self.n as u64 + 1);
        let (pair_start, pair_j) = self.read_records();
        let heads = self.total - self.records;
        let head_pair: Vec<u32> = self.read_pod("head_pair", heads);
        grains_core::cpu::NeighbourList::from_parts(nbr_start, pair_start, pair_j, head_pair)
            .to_full()
    }

    /// Every pair source's slots, read back, with the neighbour list naming the first's pairs.
    fn read_source_slots(&self) -> ReadSlots {
        let sizes = self.sizes();
        let (nbr_slot, slots, _) = self.read_packed(false);
        let (pair_start, pair_j) = self.read_records();
        ReadSlots {
            pair_start,
            pair_j,
            nbr_slot,
            slots,
            fixed_slots: self.read_pod("fixed_slots", self.world.fixed_pairs.len() as u64),
            shell_forces: self.read_pod("shell_forces", 4 * sizes.shell_edges as u64),
            shell_volumes: self.read_pod("shell_volumes", sizes.shells as u64),
            surface_records: self
                .read_pod("surface_records", Extent::SurfaceNodes.len(&sizes) as u64),
            walls: self.read_pod("walls", sizes.walls as u64),
        }
    }

    /// Grow the list to hold `records` records and `slots` packed slots with margin (whichever
    /// does not fit), keeping what the buffers hold.
    fn grow(&mut self, records: u64, slots: u64) -> Result<(), GpuError> {
        let before: BTreeMap<&str, u64> = list_buffers(&self.world)
            .into_iter()
            .map(|(name, _, cap, _)| (name, self.list_capacity(cap)))
            .collect();
        let kept = (self.rec_capacity, self.slot_capacity);
        self.rec_capacity = grown(records, self.rec_capacity, self.n);
        self.slot_capacity = grown(slots, self.slot_capacity, self.n);
        // Every grown buffer is made before any replaces its old one: a buffer the device
        // refuses (past its binding limit) leaves the backend as it was, its list and state
        // whole, not half of them swapped for buffers whose copies were never submitted.
        let mut made = Vec::new();
        for (name, elem, cap, stride) in list_buffers(&self.world) {
            let len = self.list_capacity(cap);
            if before.get(name) == Some(&len) {
                continue;
            }
            match self.make_list_array(name, elem * len, stride) {
                Ok(grown) => made.push((name, grown)),
                Err(e) => {
                    (self.rec_capacity, self.slot_capacity) = kept;
                    return Err(e);
                }
            }
        }
        // The step goes on from where it froze: the grown buffers start with the old ones'
        // elements (the live list, its flags, the packed slots and history).
        let mut enc = self.encoder();
        for (name, grown) in made {
            match grown {
                textures::Grown::Buffers(segments) => {
                    // Segment i of either holds the same bytes: whole windows of the same length.
                    for (old, new) in self.segments(name).into_iter().zip(&segments) {
                        enc.copy_buffer_to_buffer(old, 0, new, 0, old.size().min(new.size()));
                    }
                    self.set_array(name, segments);
                }
                textures::Grown::Textures(new) => {
                    if let Some(old) = self.arrays.tex.get(name) {
                        self.copy_textures(&mut enc, old, &new);
                    }
                    self.arrays.tex.insert(name, new);
                }
            }
        }
        self.ctx.queue.submit([enc.finish()]);
        self.grows += 1;
        self.build_ops()?;
        Ok(())
    }

    /// Record and submit `k` steps without reading anything back.
    fn submit_steps(&mut self, k: u64) {
        if self.profiler.is_some() {
            self.submit_steps_timed(k);
            return;
        }
        // Bounded command buffers keep the driver's memory for recorded commands small.
        const PER_SUBMIT: u64 = 32;
        let mut left = k;
        while left > 0 {
            let batch = left.min(PER_SUBMIT);
            let mut enc = self.encoder();
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                for _ in 0..batch {
                    record(
                        &mut pass,
                        &self.program.kernels,
                        &self.program.step_ops,
                        &self.arrays.bufs["args"],
                        self.max_dim(),
                    );
                }
            }
            self.ctx.queue.submit([enc.finish()]);
            // Let wgpu retire finished submissions now: without a poll it keeps every command
            // buffer (and, on lavapipe, its recorded state) until the next read-back.
            let _ = self.ctx.device.poll(wgpu::PollType::Poll);
            left -= batch;
        }
        self.tally.steps += k;
    }

    /// Advance `n` steps: submissions of at most `check_every` steps, each followed by a
    /// read-back of the control words ([`GpuBackend::finish_batch`]), so that counters and the
    /// rebuild log are current when it returns.
    ///
    /// `guarded`: stop after the first step with a faulty particle. The device freezes the
    /// batch after that step, so the fault names its exact step and the state is the state
    /// after it. Unguarded, the flag is cleared and ignored.
    fn advance(&mut self, n: u64, guarded: bool) -> Result<Option<Fault>, GpuError> {
        self.write_control(C_GUARDED, guarded as u32);
        let target = self.tally.steps + n;
        while self.tally.steps < target {
            let k = (target - self.tally.steps).min(self.opts.check_every as u64);
            self.submit_steps(k);
            if let Some(fault) = self.finish_batch(guarded)? {
                return Ok(Some(fault));
            }
        }
        Ok(None)
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> String {
        self.ctx.adapter_name()
    }

    fn step(&mut self) {
        self.run(1);
    }

    fn run(&mut self, n: u64) {
        if let Err(e) = self.try_run(n) {
            panic!("{e}");
        }
    }

    fn try_run(&mut self, n: u64) -> Result<(), CoreError> {
        self.advance(n, false)
            .map(|_| ())
            .map_err(|e| self.core_err(e))
    }

    fn run_guarded(&mut self, n: u64) -> Result<Option<Fault>, CoreError> {
        if let Some(fault) = self.advance(n, true).map_err(|e| self.core_err(e))? {
            return Ok(Some(fault));
        }
        if n == 0 {
            return Ok(None);
        }
        // The last step's kick, which no later first half checks: its velocities read back
        // (16 bytes a particle per guarded call, not per step) and checked by the CPU twin.
        let bytes = self
            .read_bytes("vel", 16 * self.n as u64)
            .map_err(|e| self.core_err(e))?;
        let vel: Vec<[f32; 4]> =
            bytemuck::pod_collect_to_vec(&bytes[..(16 * self.n).min(bytes.len())]);
        let max_speed = self.world.speed_limit as f32;
        Ok(
            grains_core::backend::end_of_step_fault(&self.world, max_speed, &vel).map(|particle| {
                Fault {
                    step: self.tally.steps,
                    particle,
                }
            }),
        )
    }

    fn remove_particles(&mut self, ids: &[u32]) -> Result<(), CoreError> {
        let (count, energy) = self.patch_particles(|w, pos, pos_comp, vel, omega, quat| {
            grains_core::backend::remove_particles_in(w, ids, pos, pos_comp, vel, omega, quat)
        })?;
        self.tally.removed += count;
        self.tally.removed_energy += energy;
        Ok(())
    }

    fn divide_cells(
        &mut self,
        divisions: &[grains_core::cells::Division],
    ) -> Result<(), CoreError> {
        let n = self.n as u64;
        let nf = self.world.fixed_pairs.len() as u64;
        let mut pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let mut pos_comp: Vec<[f32; 4]> = self.read_pod("pos_comp", n);
        let mut vel: Vec<[f32; 4]> = self.read_pod("vel", n);
        let mut omega: Vec<[f32; 4]> = self.read_pod("omega", n);
        let quat = self.read_orientations();
        let fixed_active: Vec<u32> = self.read_pod("fixed_active", nf);
        let arrays = grains_core::cells::DivisionArrays {
            pos: &mut pos,
            pos_comp: &mut pos_comp,
            vel: &mut vel,
            omega: &mut omega,
            quat: &quat,
            fixed_active: &fixed_active,
        };
        let out = grains_core::cells::divide_in(&mut self.world, divisions, arrays)?;
        for &i in &out.changed {
            for (name, v) in [
                ("pos", &pos),
                ("pos_comp", &pos_comp),
                ("vel", &vel),
                ("omega", &omega),
            ] {
                self.write_array(name, 16 * i as u64, bytemuck::cast_slice(&v[i..=i]));
            }
        }
        let first_pair = self.world.cells.as_ref().map_or(0, |c| c.first_pair);
        // On, with no history and no slot yet: its first evaluation writes them.
        let pairs: Vec<u32> = divisions.iter().map(|d| first_pair + d.pair).collect();
        self.reset_fixed_pairs(&pairs, 0);
        self.tally.book_divisions(divisions.len(), &out);
        Ok(())
    }

    fn end_divisions(&mut self, pairs: &[u32]) -> Result<(), CoreError> {
        let nf = self.world.fixed_pairs.len() as u64;
        let fixed_active: Vec<u32> = self.read_pod("fixed_active", nf);
        grains_core::backend::check_division_ends(&self.world, pairs, &fixed_active)?;
        self.reset_fixed_pairs(pairs, grains_core::kernels::sources::fixed::FIXED_OFF);
        Ok(())
    }

    fn insert_particles(&mut self, placed: &[(u32, [f32; 3], [f32; 3])]) -> Result<(), CoreError> {
        let (count, energy) = self.patch_particles(|w, pos, pos_comp, vel, omega, quat| {
            grains_core::backend::insert_particles_in(w, placed, pos, pos_comp, vel, omega, quat)
        })?;
        self.tally.inserted += count;
        self.tally.inserted_energy += energy;
        Ok(())
    }

    fn fixed_history(&mut self) -> Vec<f32> {
        let words = self.world.fixed_pairs.len() * self.world.table.fixed_history_stride;
        self.read_pod("fixed_history", words as u64)
    }

    fn walls(&mut self) -> Vec<Wall> {
        // No read for no walls: the buffer bound in their place holds nothing of theirs.
        if self.n_walls == 0 {
            return Vec::new();
        }
        self.read_pod("walls", self.n_walls as u64)
    }

    fn wall_loads(&mut self) -> Vec<grains_core::backend::WallLoad> {
        let n = self.n as u64;
        let nw = self.n_walls as u64;
        let walls: Vec<Wall> = self.read_pod("walls", nw);
        let pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let (pair_start, pair_j) = self.read_records();
        let (nbr_slot, slots, _) = self.read_packed(false);
        let slots = grains_core::backend::PackedSlots::Far(&slots);
        let triangles = self.triangles();
        grains_core::backend::wall_loads(
            &walls,
            &triangles,
            &pos,
            &pair_start,
            &pair_j,
            &nbr_slot,
            slots,
        )
    }

    fn set_velocities(&mut self, ids: &[u32], v: &[[f32; 3]]) -> Result<(), CoreError> {
        grains_core::backend::check_velocities(&self.world, ids, v)?;
        let mut vel: Vec<[f32; 4]> = self.read_pod("vel", self.n as u64);
        for (&i, x) in ids.iter().zip(v) {
            let w = &mut vel[i as usize];
            *w = [x[0], x[1], x[2], w[3]];
        }
        self.write_array("vel", 0, bytemuck::cast_slice(&vel));
        Ok(())
    }

    fn apply_forces(&mut self, ids: &[u32], f: &[[f32; 3]]) -> Result<(), CoreError> {
        self.drive(|w, d| grains_core::external::apply_forces_in(w, ids, f, d))
    }

    fn set_fixed(&mut self, ids: &[u32], velocity: Option<&[[f32; 3]]>) -> Result<(), CoreError> {
        self.drive(|w, d| grains_core::external::set_fixed_in(w, ids, velocity, d))
    }

    fn set_positions(&mut self, ids: &[u32], x: &[[f32; 3]]) -> Result<(), CoreError> {
        grains_core::backend::check_positions(&self.world, ids, x)?;
        let mut pos: Vec<[f32; 4]> = self.read_pod("pos", self.n as u64);
        let mut comp: Vec<[f32; 4]> = self.read_pod("pos_comp", self.n as u64);
        for (&i, p) in ids.iter().zip(x) {
            let w = &mut pos[i as usize];
            *w = [p[0], p[1], p[2], w[3]];
            comp[i as usize] = [0.0; 4];
        }
        self.write_array("pos", 0, bytemuck::cast_slice(&pos));
        self.write_array("pos_comp", 0, bytemuck::cast_slice(&comp));
        Ok(())
    }

    fn steer_wall(&mut self, wall: usize, velocity: [f32; 3]) {
        if wall >= self.n_walls {
            return;
        }
        let walls: Vec<Wall> = self.read_pod("walls", self.n_walls as u64);
        let origins: Vec<Wall> = self.read_pod("wall_origin", self.n_walls as u64);
        let (mut w, mut o) = (walls[wall], origins[wall]);
        grains_core::servo::rebase(&mut w, &mut o, velocity);
        let at = (wall * std::mem::size_of::<Wall>()) as u64;
        self.write_array("walls", at, bytemuck::bytes_of(&w));
        self.write_array("wall_origin", at, bytemuck::bytes_of(&o));
    }

    fn triangles(&mut self) -> Vec<grains_core::kernel_types::Triangle> {
        let n = self.world.triangles.len() as u64;
        if n == 0 {
            return Vec::new();
        }
        self.read_pod("triangles", n)
    }

    fn shell_forces(&mut self) -> Vec<[f32; 4]> {
        self.read_pod("shell_forces", 4 * self.world.shells.edges.len() as u64)
    }

    /// The arrays held in storage textures ([`GpuOptions::texture_limit`], or past what a
    /// kernel's storage buffers reach), with how many textures each: `(array, textures)`.
    fn texture_arrays(&self) -> Vec<(String, usize)> {
        self.arrays
            .tex
            .iter()
            .map(|(name, a)| (name.to_string(), a.parts.len()))
            .collect()
    }

    fn device_bytes(&self) -> Option<u64> {
        let more = self.arrays.more.values().flatten();
        let textures: u64 = self.arrays.tex.values().map(|a| a.bytes()).sum();
        Some(
            self.arrays
                .bufs
                .values()
                .chain(more)
                .map(|b| b.size())
                .sum::<u64>()
                + textures,
        )
    }

    fn batch(&self) -> u64 {
        self.opts.check_every as u64
    }

    fn counters(&self) -> Counters {
        Counters {
            steps: self.tally.steps,
            rebuilds: self.tally.rebuild_steps.len() as u64,
            neighbour_entries: self.total,
            removed: self.tally.removed,
            inserted: self.tally.inserted,
            solves: self.solve_tally.solves,
            solve_iterations: self.solve_tally.iterations,
        }
    }

    fn time(&self) -> f64 {
        self.tally.steps as f64 * self.world.dt
    }

    fn snapshot(&mut self) -> Snapshot<'_> {
        let n = self.n as u64;
        Snapshot {
            step: self.tally.steps,
            time: self.time(),
            pos: self.read_pod::<[f32; 4]>("pos", n).into(),
            vel: self.read_pod::<[f32; 4]>("vel", n).into(),
            omega: self.read_pod::<[f32; 4]>("omega", n).into(),
            quat: self.read_orientations().into(),
            force: self.read_pod::<[f32; 4]>("force", n).into(),
            torque: self.read_pod::<[f32; 4]>("torque", n).into(),
            material: std::borrow::Cow::Borrowed(&self.world.particles.material),
        }
    }

    fn energy(&mut self) -> EnergyReport {
        let n = self.n as u64;
        let pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let vel: Vec<[f32; 4]> = self.read_pod("vel", n);
        let omega: Vec<[f32; 4]> = self.read_pod("omega", n);
        let quat = self.read_orientations();
        let dissipated: Vec<[f32; 4]> = self.read_pod("dissipated", n);
        let sizes = self.sizes();
        let work: Vec<[f32; 2]> = self.read_pod(
            "wall_work",
            grains_core::state::Extent::ParticlesIfWallsMove.len(&sizes) as u64,
        );
        let kinematic: Vec<[f32; 2]> = self.read_pod(
            "kinematic_work",
            grains_core::state::Extent::ParticlesIfKinematic.len(&sizes) as u64,
        );
        let s = self.read_source_slots();
        // The same sums in the same order as CpuBackend::energy.
        energy_report(
            &self.world,
            &pos,
            &vel,
            &omega,
            &quat,
            &s.view(),
            &dissipated,
            &work,
            &kinematic,
            self.tally.removed_energy,
            self.tally.inserted_energy,
        )
    }

    fn state(&mut self) -> BackendState {
        let sizes = self.sizes();
        let (nbr_slot, slots, history) = self.read_packed(true);
        let slots = self.whole_slots(&nbr_slot, &slots);
        let mut s = BackendState::with_header(self.header());
        (s.nbr_j, s.nbr_pair) = self.read_full_list();
        for a in STATE_ARRAYS {
            if ["nbr_slot", "slots", "history", "nbr_j", "nbr_pair"].contains(&a.name) {
                continue;
            }
            let size = (a.extent.len(&sizes) * a.elem) as u64;
            // Nothing to read, and maybe no buffer (no applied forces held).
            if size == 0 {
                continue;
            }
            let bytes = self
                .read_bytes(a.name, size)
                .unwrap_or_else(|e| panic!("{e}"));
            s.set_array_bytes(a.name, &bytes[..size as usize])
                .unwrap_or_else(|e| panic!("{e}"));
        }
        s.nbr_slot = nbr_slot;
        s.slots = slots;
        s.history = history;
        s
    }

    /// [`GpuBackend::state`]'s bytes, each buffer read back and handed on alone: the host
    /// holds the packed slots, their history and flags and one other array at a time, not the
    /// whole state (nor each array twice, as its bytes and as its elements).
    fn stream_state(&mut self, sink: &mut dyn StateSink) -> std::io::Result<()> {
        sink.header(&self.header())?;
        let sizes = self.sizes();
        let (nbr_slot, slots, history) = self.read_packed(true);
        let slots = self.whole_slots(&nbr_slot, &slots);
        // The full list a state keeps, from the device's list with each pair once.
        let (nbr_j, nbr_pair) = self.read_full_list();
        for a in STATE_ARRAYS {
            let packed: Option<(usize, &[u8])> = match a.name {
                "nbr_slot" => Some((nbr_slot.len(), bytemuck::cast_slice(&nbr_slot))),
                "slots" => Some((slots.len(), bytemuck::cast_slice(&slots))),
                "history" => Some((history.len(), bytemuck::cast_slice(&history))),
                "nbr_j" => Some((nbr_j.len(), bytemuck::cast_slice(&nbr_j))),
                "nbr_pair" => Some((nbr_pair.len(), bytemuck::cast_slice(&nbr_pair))),
                _ => None,
            };
            if let Some((count, bytes)) = packed {
                sink.array(a.name, count as u64)?;
                sink.bytes(bytes)?;
                continue;
            }
            let len = a.extent.len(&sizes);
            let size = len * a.elem;
            if size == 0 {
                sink.array(a.name, 0)?;
                sink.bytes(&[])?;
                continue;
            }
            let bytes = self
                .read_bytes(a.name, size as u64)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            sink.array(a.name, len as u64)?;
            sink.bytes(&bytes[..size])?;
        }
        Ok(())
    }

    fn contacts(&mut self) -> ContactCount {
        let s = self.read_source_slots();
        count_contacts(&self.world, &s.view())
    }

    fn contact_records(&mut self) -> Vec<grains_core::ContactRecord> {
        let pos: Vec<[f32; 4]> = self.read_pod("pos", self.n as u64);
        let vel: Vec<[f32; 4]> = self.read_pod("vel", self.n as u64);
        let omega: Vec<[f32; 4]> = self.read_pod("omega", self.n as u64);
        let s = self.read_source_slots();
        grains_core::backend::contact_records(&self.world, &pos, (&vel, &omega), &s.view())
    }

    fn candidate_pairs(&mut self) -> Vec<(u32, u32)> {
        let (pair_start, pair_j) = self.read_records();
        let n = self.n as u32;
        grains_core::kernels::passes::pair_record::entry_owners(&pair_start)
            .zip(pair_j)
            .filter(|&(_, j)| j < n)
            .collect()
    }

    fn rebuild_steps(&self) -> &[u64] {
        &self.tally.rebuild_steps
    }
}

/// Pair-source slots read back from the device.
struct ReadSlots {
    pair_start: Vec<u32>,
    pair_j: Vec<u32>,
    nbr_slot: Vec<u32>,
    slots: Vec<FarSlot>,
    fixed_slots: Vec<PairSlot>,
    shell_forces: Vec<[f32; 4]>,
    shell_volumes: Vec<[f32; 4]>,
    surface_records: Vec<[f32; 4]>,
    walls: Vec<Wall>,
}

impl ReadSlots {
    fn view(&self) -> SourceSlots<'_> {
        SourceSlots {
            pair_start: &self.pair_start,
            pair_j: &self.pair_j,
            nbr_slot: &self.nbr_slot,
            slots: grains_core::backend::PackedSlots::Far(&self.slots),
            fixed_slots: &self.fixed_slots,
            shell_forces: &self.shell_forces,
            shell_volumes: &self.shell_volumes,
            surface_records: &self.surface_records,
            walls: &self.walls,
        }
    }
}

/// Every kernel a run of `world` dispatches, compiled: the broad phase's passes, the control
/// kernels, one per contact chain, and the passes of the world's schedule (the fused gather
/// and kick where nothing comes between them), with their ids.
fn compile_kernels(
    ctx: &GpuContext,
    world: &World,
    opts: &GpuOptions,
) -> Result<(Vec<Kernel>, KernelIds), GpuError> {
    let mut kernels = Vec::new();
    let mut add = |k: Kernel| {
        kernels.push(k);
        kernels.len() - 1
    };
    let ctl = |name: &str| Kernel::new(ctx, name, &control_source(name)?, name);
    let decide = add(ctl("decide")?);
    let zero_cells = add(ctl("zero_cells")?);
    let cell_count = add(pass_kernel(ctx, "cell_count")?);
    let scan_blocks = add(pass_kernel(ctx, "scan_blocks")?);
    let prefix_sum = add(pass_kernel(ctx, "prefix_sum")?);
    let scan_add = add(pass_kernel(ctx, "scan_add")?);
    let cursor = add(ctl("cursor")?);
    let cell_scatter = add(pass_kernel(ctx, "cell_scatter")?);
    let pair_count = add(pass_kernel(ctx, "pair_count")?);
    let guard = add(ctl("guard")?);
    let slot_guard = add(ctl("slot_guard")?);
    let pair_fill = add(pass_kernel(ctx, "pair_fill")?);
    let pair_record = add(pass_kernel(ctx, "pair_record")?);
    let clear_flags = add(ctl("clear_flags")?);
    let slot_carry = add(pass_kernel(ctx, "slot_carry")?);
    let commit_particles = add(ctl("commit_particles")?);
    let mut contact = Vec::new();
    let mut n_indirect = 0u32;
    for (cid, chain) in world.table.chains.iter().enumerate() {
        let label = format!("chain {cid} {}", chain.name());
        let binding = grains_shaders::ChainBinding::of(&world.table, cid);
        let src = grains_shaders::compose_chain(chain, cid as u32, &binding)
            .map_err(|e| shader_err(&label, e))?;
        let entry = entry_of(&label, &src, grains_shaders::CHAIN_TEMPLATE)?;
        let k = add(Kernel::new(ctx, &label, &src, &entry)?);
        // A rebuilt source's size is known on the device only: an indirect slot, set by
        // the guard kernel. Fixed-slot sources, and those run per particle, are sized on
        // the host.
        let slot = (chain.source.rebuilt() && !chain.source.per_particle()).then(|| {
            n_indirect += 1;
            S_CONTACT + n_indirect - 1
        });
        contact.push((k, chain.source, slot));
    }
    // The step's passes, as the world's schedule lists them; the fused gather and kick where
    // nothing runs between them.
    let schedule = Schedule::of(world);
    let mut passes = Vec::new();
    let every_pass = schedule.head.iter().chain([&Pass::Gather]);
    let every_pass = every_pass
        .chain(&schedule.after_gather)
        .chain(&schedule.booked);
    for &pass in every_pass.chain([&Pass::IntegrateSecondHalf]) {
        passes.push((pass, add(pass_kernel(ctx, pass.stem())?)));
    }
    let implicit = world.dynamics.implicit();
    let gather_kick = if opts.fuse_gather_kick && schedule.gather_meets_kick() && !implicit {
        Some(add(pass_kernel(ctx, "gather_kick")?))
    } else {
        None
    };
    let solve = if implicit {
        Some(solve::compile(ctx, &mut add)?)
    } else {
        None
    };
    let ids = KernelIds {
        solve,
        decide,
        zero_cells,
        cell_count,
        scan_blocks,
        prefix_sum,
        scan_add,
        cursor,
        cell_scatter,
        pair_count,
        guard,
        slot_guard,
        pair_fill,
        pair_record,
        clear_flags,
        slot_carry,
        commit_particles,
        contact,
        schedule,
        passes,
        gather_kick,
    };
    Ok((kernels, ids))
}
