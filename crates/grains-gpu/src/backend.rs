//! The GPU backend: the state resident on the device and the step of DESIGN.md §1, recorded
//! many steps per submission with no read-back in between.
//!
//! The sequence is `CpuBackend::step`'s, pass for pass: integrate (first half, folding the
//! displacement into an `atomicMax` flag), a one-thread `decide` kernel that turns the flag into
//! indirect dispatch sizes (zero or N groups) for the rebuild passes, the rebuild into a second
//! set of list buffers, a `guard` that checks the new list fits, `commit` kernels that copy the
//! new list over the current one (the device-side form of `CpuBackend::rebuild`'s assignment,
//! which the host cannot do without knowing whether a rebuild happened), the contact chains,
//! wall chains, gather and the second half. Every float is summed in the CPU twin's order, with
//! no float atomics, so runs are bitwise reproducible.
//!
//! Overflow: the list is allocated with headroom. Every `check_every` steps the host reads a
//! small control buffer; if a rebuild found more candidates than fit, the state saved at the
//! previous check (device-side copies) is restored, the list buffers grow and the steps are
//! replayed, so no contact is ever dropped.

use std::collections::BTreeMap;

use grains_core::backend::{count_contacts, energy_report, ContactCount};
use grains_core::gpu_types::{PairSlot, PlaneWall};
use grains_core::state::{Sizes, STATE_ARRAYS};
use grains_core::{
    Backend, BackendState, CoreError, Counters, EnergyReport, ResolverKind, Snapshot, World,
};

use crate::device::GpuContext;
use crate::error::GpuError;
use crate::kernel::Kernel;
use crate::program::{record, Op, Size};

/// Tuning of the GPU backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Neighbour-list entries allocated per particle at start (each pair counts twice); the
    /// list grows when a rebuild needs more.
    pub initial_neighbour_capacity_per_particle: u32,
    /// Steps between read-backs of the overflow flag (1..=256); also the replay length bound.
    pub check_every: u32,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            initial_neighbour_capacity_per_particle: 24,
            check_every: 64,
        }
    }
}

// Layout of the control buffer and the plan, shared with control.wgsl.
const C_STEP: usize = 0;
const C_REBUILDS: usize = 2;
const C_OVERFLOW: usize = 3;
const C_TOTAL: usize = 4;
const C_MAX_TOTAL: usize = 5;
const C_FORCE: usize = 6;
const C_LOG: usize = 8;
const LOG_LEN: usize = 256;
const CONTROL_WORDS: usize = C_LOG + LOG_LEN;
const P_SLOTS: usize = 8;

// Indirect slots, in the order of control.wgsl.
const S_ZERO_CELLS: u32 = 0;
const S_CELL_COUNT: u32 = 1;
const S_PREFIX_CELLS: u32 = 2;
const S_CURSOR: u32 = 3;
const S_CELL_SCATTER: u32 = 4;
const S_PAIR_COUNT: u32 = 5;
const S_PREFIX_NBR: u32 = 6;
const S_GUARD: u32 = 7;
const S_PAIR_FILL: u32 = 8;
const S_PAIR_MIRROR: u32 = 9;
const S_HISTORY_CARRY: u32 = 10;
const S_COMMIT_LIST: u32 = 11;
const S_COMMIT_PARTICLES: u32 = 12;
const S_CONTACT: u32 = 13;

const CONTROL_WGSL: &str = include_str!("control.wgsl");

/// The WGSL of one of this crate's control kernels: the common header plus its section.
fn control_source(entry: &str) -> String {
    let mut common = String::new();
    let mut mine = String::new();
    let mut section = "";
    for line in CONTROL_WGSL.lines() {
        if let Some(rest) = line.strip_prefix("//!") {
            section = if rest == "common" {
                "common"
            } else if rest.strip_prefix("entry ") == Some(entry) {
                "mine"
            } else {
                "other"
            };
            continue;
        }
        match section {
            "common" => {
                common.push_str(line);
                common.push('\n');
            }
            "mine" => {
                mine.push_str(line);
                mine.push('\n');
            }
            _ => {}
        }
    }
    common + &mine
}

fn shader_err(label: &str, e: impl std::fmt::Display) -> GpuError {
    GpuError::Shader {
        label: label.to_string(),
        message: e.to_string(),
    }
}

/// The single compute entry point of a composed module, or the one named `preferred`.
fn entry_of(label: &str, src: &str, preferred: &str) -> Result<String, GpuError> {
    let (module, _) = crate::kernel::reflect(label, src)?;
    let eps: Vec<&str> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .map(|e| e.name.as_str())
        .collect();
    if eps.contains(&preferred) {
        return Ok(preferred.to_string());
    }
    match eps.as_slice() {
        [one] => Ok(one.to_string()),
        _ => Err(shader_err(
            label,
            format!("expected one compute entry point (or one named {preferred}), found {eps:?}"),
        )),
    }
}

fn pass_kernel(ctx: &GpuContext, stem: &str) -> Result<Kernel, GpuError> {
    let src = grains_shaders::compose_pass(stem).map_err(|e| shader_err(stem, e))?;
    let entry = entry_of(stem, &src, stem)?;
    Kernel::new(ctx, stem, &src, &entry)
}

fn groups(count: u64, threads: u32) -> u64 {
    count.div_ceil(threads.max(1) as u64)
}

/// Element sizes of the buffers sized by the neighbour-list capacity; a history record is
/// `history_words` words (the pair table's `nbr_history_stride`).
fn list_buffers(history_words: usize) -> [(&'static str, u64); 9] {
    let h = 4 * history_words as u64;
    [
        ("new_i", 4),
        ("new_j", 4),
        ("new_mirror", 4),
        ("new_history", h),
        ("nbr_i", 4),
        ("nbr_j", 4),
        ("nbr_mirror", 4),
        ("history", h),
        ("slots", std::mem::size_of::<PairSlot>() as u64),
    ]
}

/// Buffers saved at every check and restored after an overflow: everything a step reads that
/// is not rebuilt from scratch, i.e. the state's arrays (each a buffer of the same name) and
/// the control words.
fn saved_names() -> impl Iterator<Item = &'static str> {
    STATE_ARRAYS
        .iter()
        .map(|a| a.name)
        .chain(["control", "args"])
}

/// Kernel indices into `GpuBackend::kernels`.
struct KernelIds {
    integrate_first_half: usize,
    decide: usize,
    zero_cells: usize,
    cell_count: usize,
    prefix_sum: usize,
    cursor: usize,
    cell_scatter: usize,
    pair_count: usize,
    guard: usize,
    pair_fill: usize,
    pair_mirror: usize,
    history_carry: usize,
    commit_list: usize,
    commit_particles: usize,
    /// (kernel, indirect slot) per sphere-sphere chain, in table order.
    contact: Vec<(usize, u32)>,
    /// Kernel per sphere-plane chain.
    wall_contact: Vec<usize>,
    gather: usize,
    integrate_second_half: usize,
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
    capacity: u64,
    kernels: Vec<Kernel>,
    ids: KernelIds,
    /// Prefix-sum workgroups per scan, from the kernel's shape.
    prefix_groups: (u32, u32),
    bufs: BTreeMap<&'static str, wgpu::Buffer>,
    saved: BTreeMap<&'static str, wgpu::Buffer>,
    init_ops: Vec<Op>,
    step_ops: Vec<Op>,
    steps: u64,
    since_check: u64,
    rebuild_log: Vec<u64>,
    total: u64,
    grows: u32,
}

impl GpuBackend {
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
            initial_neighbour_capacity_per_particle: opts
                .initial_neighbour_capacity_per_particle
                .max(1),
            check_every: opts.check_every.clamp(1, LOG_LEN as u32),
        };
        let grid = world.grid()?;
        let n = world.particles.len();
        let n_walls = world.walls.len();
        let n_cells = grid.n_cells as usize;
        let capacity =
            (n as u64 * opts.initial_neighbour_capacity_per_particle as u64).next_multiple_of(64);

        let mut kernels = Vec::new();
        let mut add = |k: Kernel| {
            kernels.push(k);
            kernels.len() - 1
        };
        let ctl = |name: &str| Kernel::new(&ctx, name, &control_source(name), name);
        let integrate_first_half = add(pass_kernel(&ctx, "integrate_first_half")?);
        let decide = add(ctl("decide")?);
        let zero_cells = add(ctl("zero_cells")?);
        let cell_count = add(pass_kernel(&ctx, "cell_count")?);
        let prefix_sum = add(pass_kernel(&ctx, "prefix_sum")?);
        let cursor = add(ctl("cursor")?);
        let cell_scatter = add(pass_kernel(&ctx, "cell_scatter")?);
        let pair_count = add(pass_kernel(&ctx, "pair_count")?);
        let guard = add(ctl("guard")?);
        let pair_fill = add(pass_kernel(&ctx, "pair_fill")?);
        let pair_mirror = add(pass_kernel(&ctx, "pair_mirror")?);
        let history_carry = add(pass_kernel(&ctx, "history_carry")?);
        let commit_list = add(ctl("commit_list")?);
        let commit_particles = add(ctl("commit_particles")?);
        let mut contact = Vec::new();
        let mut wall_contact = Vec::new();
        for (cid, chain) in world.table.chains.iter().enumerate() {
            let label = format!("chain {cid} {}", chain.name());
            let binding = grains_shaders::ChainBinding::of(&world.table, cid);
            let src = grains_shaders::compose_chain(chain, cid as u32, &binding)
                .map_err(|e| shader_err(&label, e))?;
            match chain.resolver {
                ResolverKind::SphereSphere => {
                    let entry = entry_of(&label, &src, "contact")?;
                    let slot = S_CONTACT + contact.len() as u32;
                    contact.push((add(Kernel::new(&ctx, &label, &src, &entry)?), slot));
                }
                ResolverKind::SpherePlane => {
                    let entry = entry_of(&label, &src, "wall_contact")?;
                    wall_contact.push(add(Kernel::new(&ctx, &label, &src, &entry)?));
                }
            }
        }
        let gather = add(pass_kernel(&ctx, "gather")?);
        let integrate_second_half = add(pass_kernel(&ctx, "integrate_second_half")?);
        let ids = KernelIds {
            integrate_first_half,
            decide,
            zero_cells,
            cell_count,
            prefix_sum,
            cursor,
            cell_scatter,
            pair_count,
            guard,
            pair_fill,
            pair_mirror,
            history_carry,
            commit_list,
            commit_particles,
            contact,
            wall_contact,
            gather,
            integrate_second_half,
        };
        let pk = &kernels[ids.prefix_sum];
        let prefix_groups = (
            prefix_groups_for(pk, n_cells as u64),
            prefix_groups_for(pk, n as u64),
        );

        let mut b = GpuBackend {
            ctx,
            opts,
            n,
            n_walls,
            n_cells,
            capacity,
            kernels,
            ids,
            prefix_groups,
            bufs: BTreeMap::new(),
            saved: BTreeMap::new(),
            init_ops: Vec::new(),
            step_ops: Vec::new(),
            steps: 0,
            since_check: 0,
            rebuild_log: Vec::new(),
            total: 0,
            grows: 0,
            world,
        };
        b.create_buffers(&grid)?;
        b.write_plan()?;
        b.build_ops()?;
        b.save();
        loop {
            let mut enc = b.encoder();
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                record(
                    &mut pass,
                    &b.kernels,
                    &b.init_ops,
                    &b.bufs["args"],
                    b.max_dim(),
                );
            }
            b.ctx.queue.submit([enc.finish()]);
            if b.check()? {
                break;
            }
        }
        Ok(b)
    }

    /// Resume from a saved state (a checkpoint, possibly written by the CPU backend): the run
    /// continues exactly where the state was taken.
    pub fn from_state(
        world: World,
        ctx: &GpuContext,
        state: &BackendState,
    ) -> Result<GpuBackend, GpuError> {
        use bytemuck::cast_slice;
        state
            .validate(
                world.particles.len(),
                world.walls.len(),
                world.table.nbr_history_stride,
                world.table.wall_history_stride,
            )
            .map_err(|e| GpuError::State(e.to_string()))?;
        let mut b = GpuBackend::new(world, ctx)?;
        let total = state.nbr_i.len() as u64;
        if total > b.capacity {
            b.capacity = (total + total / 4).next_multiple_of(64);
            for (name, elem) in list_buffers(b.world.table.nbr_history_stride) {
                let buf = b.make_buffer(name, elem * b.capacity, wgpu::BufferUsages::empty())?;
                b.bufs.insert(name, buf);
                let saved = b.make_exact(name, elem * b.capacity)?;
                b.saved.insert(name, saved);
            }
            b.write_plan()?;
            b.build_ops()?;
        }
        let q = &b.ctx.queue;
        let put = |name: &str, bytes: &[u8]| {
            if !bytes.is_empty() {
                q.write_buffer(&b.bufs[name], 0, bytes);
            }
        };
        for (a, bytes) in STATE_ARRAYS.iter().zip(state.array_bytes()) {
            put(a.name, bytes);
        }
        // The control words as the device would hold them after those steps.
        let mut control = vec![0u32; CONTROL_WORDS];
        control[C_STEP] = state.step as u32;
        control[C_REBUILDS] = state.rebuild_steps.len() as u32;
        control[C_TOTAL] = total as u32;
        control[C_MAX_TOTAL] = total as u32;
        for (r, s) in state.rebuild_steps.iter().enumerate() {
            control[C_LOG + r % LOG_LEN] = *s as u32;
        }
        put("control", cast_slice(&control));
        put("max_disp2", cast_slice(&[0u32]));
        // Dispatches over the list are sized by its total on the device, at each rebuild (the
        // guard kernel); here the host sizes them for the restored list the same way.
        let mut args: Vec<u32> = b.read_buffer("args", b.bufs["args"].size() as usize / 4)?;
        for &(k, slot) in &b.ids.contact {
            let (x, y) =
                crate::program::split(total.div_ceil(b.threads(k) as u64) as u32, b.max_dim());
            args[4 * slot as usize..4 * slot as usize + 4].copy_from_slice(&[x, y, 1, 0]);
        }
        q.write_buffer(&b.bufs["args"], 0, cast_slice(&args));
        b.steps = state.step;
        b.rebuild_log = state.rebuild_steps.clone();
        b.total = total;
        b.since_check = 0;
        b.save();
        Ok(b)
    }

    /// The adapter's name, for benchmark reports.
    pub fn backend_label(&self) -> String {
        format!("gpu ({})", self.ctx.adapter_name())
    }

    /// Current neighbour-list capacity (entries).
    pub fn neighbour_capacity(&self) -> u64 {
        self.capacity
    }

    /// How many times the neighbour list has grown after an overflow.
    pub fn list_grows(&self) -> u32 {
        self.grows
    }

    fn encoder(&self) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("grains step"),
            })
    }

    fn make_buffer(
        &self,
        name: &str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        // Empty arrays (no walls) still need a bindable buffer.
        let size = size.max(16).next_multiple_of(16);
        self.ctx.check_buffer(name, size, self.n)?;
        Ok(self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size,
            usage: usage
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }))
    }

    fn upload(
        &mut self,
        name: &'static str,
        data: &[u8],
        min_size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<(), GpuError> {
        let buf = self.make_buffer(name, (data.len() as u64).max(min_size), usage)?;
        if !data.is_empty() {
            self.ctx.queue.write_buffer(&buf, 0, data);
        }
        self.bufs.insert(name, buf);
        Ok(())
    }

    fn create_buffers(
        &mut self,
        grid: &grains_core::gpu_types::GridParams,
    ) -> Result<(), GpuError> {
        use bytemuck::{bytes_of, cast_slice};
        let w = &self.world;
        let n = self.n as u64;
        let uni = wgpu::BufferUsages::UNIFORM;
        let none = wgpu::BufferUsages::empty();
        let step = w.step_params();
        let domain = w.domain.params();
        let p = w.particles.clone();
        let table = w.table.clone();
        let walls: Vec<PlaneWall> = w.walls.clone();
        let nw = self.n_walls as u64;
        let nc = self.n_cells as u64;
        self.upload("step", bytes_of(&step), 0, uni)?;
        self.upload("domain", bytes_of(&domain), 0, uni)?;
        self.upload("grid", bytes_of(grid), 0, uni)?;
        // The scan length of each prefix sum (prefix_sum.wgsl's `scan_len` uniform).
        self.upload("scan_len_cells", bytes_of(&(nc as u32)), 0, uni)?;
        self.upload("scan_len_nbr", bytes_of(&(n as u32)), 0, uni)?;
        self.upload("pos", cast_slice(&p.pos), 0, none)?;
        self.upload("vel", cast_slice(&p.vel), 0, none)?;
        self.upload("omega", cast_slice(&p.omega), 0, none)?;
        self.upload("quat", cast_slice(&p.quat), 0, none)?;
        self.upload("ref_pos", cast_slice(&p.pos), 0, none)?;
        self.upload("material", cast_slice(&p.material), 0, none)?;
        self.upload("sphere_chain", cast_slice(&table.sphere_chain), 0, none)?;
        self.upload("wall_chain", cast_slice(&table.wall_chain), 0, none)?;
        self.upload("pair_params", cast_slice(&table.params), 0, none)?;
        self.upload("walls", cast_slice(&walls), 0, none)?;
        let zeroed: [(&'static str, u64); 16] = [
            ("pos_comp", 16 * n),
            ("force", 16 * n),
            ("torque", 16 * n),
            ("dissipated", 16 * n),
            ("particle_cell", 4 * n),
            ("cell_counts", 4 * nc),
            ("cell_start", 4 * (nc + 1)),
            ("cell_cursor", 4 * nc),
            ("sorted", 4 * n),
            ("nbr_count", 4 * n),
            ("new_start", 4 * (n + 1)),
            ("nbr_start", 4 * (n + 1)),
            // At least one element: a binding of an empty array is still checked against the
            // element size.
            (
                "wall_history",
                4 * table.wall_history_stride as u64 * (n * nw).max(1),
            ),
            (
                "wall_slots",
                std::mem::size_of::<PairSlot>() as u64 * (n * nw).max(1),
            ),
            ("max_disp2", 4),
            ("control", 4 * CONTROL_WORDS as u64),
        ];
        for (name, size) in zeroed {
            // Exact sizes where a kernel may take `arrayLength` (a scan over the cell counts).
            let buf = self.make_exact(name, size)?;
            self.bufs.insert(name, buf);
        }
        let n_slots = S_CONTACT as u64 + self.ids.contact.len() as u64;
        let args = self.make_buffer("args", 16 * n_slots, wgpu::BufferUsages::INDIRECT)?;
        self.bufs.insert("args", args);
        let plan = self.make_buffer("plan", 4 * (P_SLOTS as u64 + n_slots), none)?;
        self.bufs.insert("plan", plan);
        let mut control = vec![0u32; CONTROL_WORDS];
        control[C_FORCE] = 1;
        self.ctx
            .queue
            .write_buffer(&self.bufs["control"], 0, cast_slice(&control));
        for (name, elem) in list_buffers(self.world.table.nbr_history_stride) {
            let buf = self.make_buffer(name, elem * self.capacity, none)?;
            self.bufs.insert(name, buf);
        }
        for name in saved_names() {
            let size = self.bufs[name].size();
            let buf = self.make_exact(name, size)?;
            self.saved.insert(name, buf);
        }
        Ok(())
    }

    /// A zeroed buffer of exactly `size` bytes (at least 4), for arrays whose length a kernel
    /// reads with `arrayLength`.
    fn make_exact(&self, name: &str, size: u64) -> Result<wgpu::Buffer, GpuError> {
        let size = size.max(4).next_multiple_of(4);
        self.ctx.check_buffer(name, size, self.n)?;
        Ok(self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }))
    }

    fn threads(&self, k: usize) -> u32 {
        self.kernels[k].threads()
    }

    fn max_dim(&self) -> u32 {
        self.ctx.limits.max_compute_workgroups_per_dimension
    }

    /// Workgroups of a dispatch, refused beyond what an (x, y) grid can hold.
    fn check_groups(&self, what: &str, g: u64) -> Result<u32, GpuError> {
        let limit = self.max_dim();
        if g > (limit as u64 * limit as u64).min(u32::MAX as u64) {
            return Err(GpuError::TooManyWorkgroups {
                what: what.to_string(),
                groups: g,
                limit,
                particles: self.n,
            });
        }
        Ok(g as u32)
    }

    /// The plan the control kernels read: sizes of the particle and cell dispatches, the
    /// capacity, and threads per group of the dispatches sized by the list total.
    fn write_plan(&mut self) -> Result<(), GpuError> {
        let n = self.n as u64;
        let nc = self.n_cells as u64;
        let ids = &self.ids;
        let mut slots = vec![0u32; S_CONTACT as usize + ids.contact.len()];
        slots[S_ZERO_CELLS as usize] = self.check_groups("zero_cells", groups(nc, 64))?;
        slots[S_CELL_COUNT as usize] =
            self.check_groups("cell_count", groups(n, self.threads(ids.cell_count)))?;
        slots[S_PREFIX_CELLS as usize] = self.prefix_groups.0;
        slots[S_CURSOR as usize] = self.check_groups("cursor", groups(nc, 64))?;
        slots[S_CELL_SCATTER as usize] =
            self.check_groups("cell_scatter", groups(n, self.threads(ids.cell_scatter)))?;
        slots[S_PAIR_COUNT as usize] =
            self.check_groups("pair_count", groups(n, self.threads(ids.pair_count)))?;
        slots[S_PREFIX_NBR as usize] = self.prefix_groups.1;
        slots[S_GUARD as usize] = 1;
        slots[S_PAIR_FILL as usize] =
            self.check_groups("pair_fill", groups(n, self.threads(ids.pair_fill)))?;
        slots[S_PAIR_MIRROR as usize] = self.threads(ids.pair_mirror);
        slots[S_HISTORY_CARRY as usize] = self.threads(ids.history_carry);
        slots[S_COMMIT_LIST as usize] = self.threads(ids.commit_list);
        slots[S_COMMIT_PARTICLES as usize] =
            self.check_groups("commit_particles", groups(n + 1, 64))?;
        // Sized by the list total, at most the capacity: check the worst case now.
        let mut by_total = vec![
            ("pair_mirror", ids.pair_mirror),
            ("history_carry", ids.history_carry),
            ("commit_list", ids.commit_list),
        ];
        for &(k, slot) in &ids.contact {
            slots[slot as usize] = self.threads(k);
            by_total.push(("contact", k));
        }
        for (what, k) in by_total {
            self.check_groups(what, groups(self.capacity, self.threads(k)))?;
        }
        let mut plan = vec![0u32; P_SLOTS];
        plan[0] = self.n as u32;
        plan[1] = self.n_cells as u32;
        plan[2] = self.capacity as u32;
        plan[3] = (self.world.skin as f32).to_bits();
        plan[4] = self.max_dim();
        plan.extend_from_slice(&slots);
        self.ctx
            .queue
            .write_buffer(&self.bufs["plan"], 0, bytemuck::cast_slice(&plan));
        Ok(())
    }

    /// Bind group of kernel `k`: every binding by its own buffer name unless `alias` maps the
    /// binding name to another buffer.
    fn op(&self, k: usize, alias: &[(&str, &'static str)], size: Size) -> Result<Op, GpuError> {
        let mut map: BTreeMap<&str, &wgpu::Buffer> =
            self.bufs.iter().map(|(k, v)| (*k, v)).collect();
        for (binding, buffer) in alias {
            map.insert(binding, &self.bufs[buffer]);
        }
        Ok(Op {
            kernel: k,
            groups: self.kernels[k].bind(&self.ctx, &map)?,
            size,
        })
    }

    fn build_ops(&mut self) -> Result<(), GpuError> {
        use Size::{Direct, Indirect};
        let ids = &self.ids;
        let n = self.n as u64;
        let mut rebuild = vec![
            self.op(ids.decide, &[], Direct(1))?,
            self.op(ids.zero_cells, &[], Indirect(S_ZERO_CELLS))?,
            self.op(ids.cell_count, &[], Indirect(S_CELL_COUNT))?,
            self.op(
                ids.prefix_sum,
                &[
                    ("counts", "cell_counts"),
                    ("out", "cell_start"),
                    ("scan_len", "scan_len_cells"),
                ],
                Indirect(S_PREFIX_CELLS),
            )?,
            self.op(ids.cursor, &[], Indirect(S_CURSOR))?,
            self.op(ids.cell_scatter, &[], Indirect(S_CELL_SCATTER))?,
            self.op(ids.pair_count, &[], Indirect(S_PAIR_COUNT))?,
            self.op(
                ids.prefix_sum,
                &[
                    ("counts", "nbr_count"),
                    ("out", "new_start"),
                    ("scan_len", "scan_len_nbr"),
                ],
                Indirect(S_PREFIX_NBR),
            )?,
            self.op(ids.guard, &[], Direct(1))?,
            self.op(
                ids.pair_fill,
                &[
                    ("nbr_start", "new_start"),
                    ("nbr_i", "new_i"),
                    ("nbr_j", "new_j"),
                ],
                Indirect(S_PAIR_FILL),
            )?,
            self.op(
                ids.pair_mirror,
                &[
                    ("nbr_start", "new_start"),
                    ("nbr_i", "new_i"),
                    ("nbr_j", "new_j"),
                    ("nbr_mirror", "new_mirror"),
                ],
                Indirect(S_PAIR_MIRROR),
            )?,
            self.op(
                ids.history_carry,
                &[
                    ("nbr_start", "new_start"),
                    ("nbr_i", "new_i"),
                    ("nbr_j", "new_j"),
                    ("old_start", "nbr_start"),
                    ("old_j", "nbr_j"),
                    ("old_history", "history"),
                    ("history", "new_history"),
                ],
                Indirect(S_HISTORY_CARRY),
            )?,
            self.op(ids.commit_list, &[], Indirect(S_COMMIT_LIST))?,
            self.op(ids.commit_particles, &[], Indirect(S_COMMIT_PARTICLES))?,
        ];
        let mut forces = Vec::new();
        for &(k, slot) in &ids.contact {
            forces.push(self.op(k, &[("pair_chain", "sphere_chain")], Indirect(slot))?);
        }
        let wall_entries = n * self.n_walls as u64;
        for &k in &ids.wall_contact {
            let g = self.check_groups("wall_contact", groups(wall_entries, self.threads(k)))?;
            forces.push(self.op(
                k,
                &[("history", "wall_history"), ("slots", "wall_slots")],
                Direct(g),
            )?);
        }
        let g = self.check_groups("gather", groups(n, self.threads(ids.gather)))?;
        forces.push(self.op(ids.gather, &[], Direct(g))?);

        let g1 = self.check_groups(
            "integrate_first_half",
            groups(n, self.threads(ids.integrate_first_half)),
        )?;
        let g2 = self.check_groups(
            "integrate_second_half",
            groups(n, self.threads(ids.integrate_second_half)),
        )?;
        let mut step_ops = vec![self.op(ids.integrate_first_half, &[], Direct(g1))?];
        // The same bind groups serve both sequences; rebuilding them is cheap.
        let mut init_ops = Vec::new();
        for op in rebuild.iter().chain(forces.iter()) {
            init_ops.push(Op {
                kernel: op.kernel,
                groups: op.groups.clone(),
                size: op.size,
            });
        }
        step_ops.append(&mut rebuild);
        step_ops.append(&mut forces);
        step_ops.push(self.op(ids.integrate_second_half, &[], Direct(g2))?);
        self.init_ops = init_ops;
        self.step_ops = step_ops;
        Ok(())
    }

    /// Device-side copy of the state a replay starts from.
    fn save(&self) {
        let mut enc = self.encoder();
        for name in saved_names() {
            let src = &self.bufs[name];
            enc.copy_buffer_to_buffer(src, 0, &self.saved[name], 0, src.size());
        }
        self.ctx.queue.submit([enc.finish()]);
    }

    /// Read `size` bytes of buffer `name` from offset 0.
    fn read_bytes(&self, name: &str, size: u64) -> Result<Vec<u8>, GpuError> {
        let src = self
            .bufs
            .get(name)
            .ok_or_else(|| GpuError::Readback(name.to_string()))?;
        let mut out = crate::device::read_back(&self.ctx, self.encoder(), &[(name, src, size)])?;
        Ok(out.pop().unwrap_or_default())
    }

    fn read_pod<T: bytemuck::Pod>(&self, name: &str, count: u64) -> Vec<T> {
        let bytes = self
            .read_bytes(name, count * std::mem::size_of::<T>() as u64)
            .unwrap_or_else(|e| panic!("{e}"));
        bytemuck::pod_collect_to_vec(
            &bytes[..(count as usize * std::mem::size_of::<T>()).min(bytes.len())],
        )
    }

    /// Read a resident buffer by its binding name (e.g. `"nbr_start"`, `"slots"`,
    /// `"wall_slots"`, `"force"`) as `T`, the first `count` elements; for pass-level tests.
    pub fn read_buffer<T: bytemuck::Pod>(
        &self,
        name: &str,
        count: usize,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = self.read_bytes(name, (count * std::mem::size_of::<T>()) as u64)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Entries in the current neighbour list.
    pub fn neighbour_entries(&self) -> u64 {
        self.total
    }

    /// Read the control words. On overflow, restore the saved state into grown buffers and
    /// return false (the caller replays); otherwise record the new rebuilds, save the state as
    /// the next replay point, and return true.
    fn check(&mut self) -> Result<bool, GpuError> {
        let c: Vec<u32> = self.read_buffer("control", CONTROL_WORDS)?;
        if c[C_OVERFLOW] != 0 {
            let needed = c[C_MAX_TOTAL] as u64;
            self.grow(needed)?;
            self.since_check = 0;
            return Ok(false);
        }
        let seen = self.rebuild_log.len() as u64;
        let now = c[C_REBUILDS] as u64;
        for r in seen..now {
            self.rebuild_log
                .push(c[C_LOG + (r % LOG_LEN as u64) as usize] as u64);
        }
        debug_assert_eq!(c[C_STEP] as u64, self.steps & 0xffff_ffff);
        self.total = c[C_TOTAL] as u64;
        self.since_check = 0;
        self.save();
        Ok(true)
    }

    /// Grow the list to hold `needed` entries with margin and restore the saved state.
    fn grow(&mut self, needed: u64) -> Result<(), GpuError> {
        let new_cap = (needed + needed / 4)
            .max(2 * self.capacity)
            .next_multiple_of(64);
        let old_cap = self.capacity;
        self.capacity = new_cap;
        let mut enc = self.encoder();
        for (name, elem) in list_buffers(self.world.table.nbr_history_stride) {
            let buf = self.make_buffer(name, elem * new_cap, wgpu::BufferUsages::empty())?;
            if let Some(saved) = self.saved.get(name) {
                enc.copy_buffer_to_buffer(saved, 0, &buf, 0, elem * old_cap);
                let new_saved = self.make_exact(name, buf.size())?;
                self.saved.insert(name, new_saved);
            }
            self.bufs.insert(name, buf);
        }
        for name in saved_names() {
            if list_buffers(1).iter().any(|(l, _)| *l == name) {
                continue;
            }
            let dst = &self.bufs[name];
            enc.copy_buffer_to_buffer(&self.saved[name], 0, dst, 0, dst.size());
        }
        enc.clear_buffer(&self.bufs["max_disp2"], 0, None);
        self.ctx.queue.submit([enc.finish()]);
        self.steps -= self.since_check;
        self.grows += 1;
        self.write_plan()?;
        self.build_ops()?;
        self.save();
        Ok(())
    }

    /// Record and submit `k` steps without reading anything back.
    fn submit_steps(&mut self, k: u64) {
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
                        &self.kernels,
                        &self.step_ops,
                        &self.bufs["args"],
                        self.max_dim(),
                    );
                }
            }
            self.ctx.queue.submit([enc.finish()]);
            left -= batch;
        }
        self.steps += k;
        self.since_check += k;
    }

    /// Advance `n` steps: submissions of many steps, a check every `check_every` steps and one
    /// at the end so that counters and the rebuild log are current.
    fn advance(&mut self, n: u64) -> Result<(), GpuError> {
        let mut remaining = n;
        while remaining > 0 {
            let k = remaining.min(self.opts.check_every as u64 - self.since_check);
            self.submit_steps(k);
            remaining -= k;
            if self.since_check >= self.opts.check_every as u64 || remaining == 0 {
                let replay = self.since_check;
                if !self.check()? {
                    remaining += replay;
                }
            }
        }
        Ok(())
    }
}

/// Workgroups of one scan over `count` elements: shaders/passes/prefix_sum.wgsl is a single
/// workgroup that walks the whole array in chunks, dispatched as exactly one group.
fn prefix_groups_for(_k: &Kernel, _count: u64) -> u32 {
    1
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
        self.advance(n).map_err(|e| CoreError::Backend {
            backend: format!("GPU ({})", self.ctx.adapter_name()),
            message: e.to_string(),
        })
    }

    fn counters(&self) -> Counters {
        Counters {
            steps: self.steps,
            rebuilds: self.rebuild_log.len() as u64,
            neighbour_entries: self.total,
        }
    }

    fn time(&self) -> f64 {
        self.steps as f64 * self.world.dt
    }

    fn snapshot(&mut self) -> Snapshot {
        let n = self.n as u64;
        Snapshot {
            step: self.steps,
            time: self.time(),
            pos: self.read_pod("pos", n),
            vel: self.read_pod("vel", n),
            omega: self.read_pod("omega", n),
            quat: self.read_pod("quat", n),
            force: self.read_pod("force", n),
            torque: self.read_pod("torque", n),
            material: self.world.particles.material.clone(),
        }
    }

    fn energy(&mut self) -> EnergyReport {
        let n = self.n as u64;
        let pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        let vel: Vec<[f32; 4]> = self.read_pod("vel", n);
        let omega: Vec<[f32; 4]> = self.read_pod("omega", n);
        let slots: Vec<PairSlot> = self.read_pod("slots", self.total);
        let ni: Vec<u32> = self.read_pod("nbr_i", self.total);
        let nj: Vec<u32> = self.read_pod("nbr_j", self.total);
        let wall_slots: Vec<PairSlot> = self.read_pod("wall_slots", n * self.n_walls as u64);
        let dissipated: Vec<[f32; 4]> = self.read_pod("dissipated", n);
        // The same sums in the same order as CpuBackend::energy.
        energy_report(
            &self.world,
            &pos,
            &vel,
            &omega,
            &ni,
            &nj,
            &slots,
            &wall_slots,
            &dissipated,
        )
    }

    fn state(&mut self) -> BackendState {
        let t = &self.world.table;
        let sizes = Sizes {
            particles: self.n,
            walls: self.n_walls,
            entries: self.total as usize,
            nbr_history_stride: t.nbr_history_stride,
            wall_history_stride: t.wall_history_stride,
        };
        let mut s = BackendState {
            step: self.steps,
            rebuild_steps: self.rebuild_log.clone(),
            ..Default::default()
        };
        for a in STATE_ARRAYS {
            let size = (a.extent.len(&sizes) * a.elem) as u64;
            let bytes = self
                .read_bytes(a.name, size)
                .unwrap_or_else(|e| panic!("{e}"));
            s.set_array_bytes(a.name, &bytes[..size as usize])
                .unwrap_or_else(|e| panic!("{e}"));
        }
        s
    }

    fn contacts(&mut self) -> ContactCount {
        let n = self.n as u64;
        let slots: Vec<PairSlot> = self.read_pod("slots", self.total);
        let ni: Vec<u32> = self.read_pod("nbr_i", self.total);
        let nj: Vec<u32> = self.read_pod("nbr_j", self.total);
        let wall_slots: Vec<PairSlot> = self.read_pod("wall_slots", n * self.n_walls as u64);
        count_contacts(&ni, &nj, &slots, &wall_slots)
    }

    fn contact_records(&mut self) -> Vec<grains_core::ContactRecord> {
        let n = self.n as u64;
        let slots: Vec<PairSlot> = self.read_pod("slots", self.total);
        let ni: Vec<u32> = self.read_pod("nbr_i", self.total);
        let nj: Vec<u32> = self.read_pod("nbr_j", self.total);
        let wall_slots: Vec<PairSlot> = self.read_pod("wall_slots", n * self.n_walls as u64);
        let pos: Vec<[f32; 4]> = self.read_pod("pos", n);
        grains_core::backend::contact_records(&self.world, &pos, &ni, &nj, &slots, &wall_slots)
    }

    fn candidate_pairs(&mut self) -> Vec<(u32, u32)> {
        let ni: Vec<u32> = self.read_pod("nbr_i", self.total);
        let nj: Vec<u32> = self.read_pod("nbr_j", self.total);
        ni.into_iter().zip(nj).filter(|(i, j)| i < j).collect()
    }

    fn rebuild_steps(&self) -> &[u64] {
        &self.rebuild_log
    }
}
