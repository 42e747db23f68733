//! The device buffers of the GPU backend: creation, upload and reading back.

use super::*;
use grains_core::kernels::passes::scan_blocks::scan_block_count;

/// The buffer of source `src`'s parameter records, which its chains bind as `pair_params`.
pub(super) fn params_buffer(src: SourceKind) -> &'static str {
    match src {
        SourceKind::Neighbour => "pair_params",
        SourceKind::Wall => "wall_params",
        SourceKind::Fixed => "fixed_params",
    }
}

/// The broad phase's per-particle scratch, each held in a per-particle buffer that is dead
/// while it lives (binding name, buffer). A rebuild runs between the first half-step, which
/// last reads `force` and `torque`, and the contact passes and gather, which write them anew;
/// `ref_pos` is read by the first half-step and written by `commit_particles`, the rebuild's
/// last pass. Each particle's cell (`cell_count` to `cell_scatter`) and its owning count
/// (`pair_count` to its scan) live in `ref_pos` one after the other, the particles in cell
/// order (`cell_scatter` to `pair_record`) in `torque`, the candidate counts (`pair_count` to
/// their scan) in `force`: 16 B a particle that no buffer of its own holds. The scans'
/// outputs (`new_start`, `new_pair_start`) live until `commit_particles` and keep their own.
pub(super) const SCRATCH: [(&str, &str); 4] = [
    ("particle_cell", "ref_pos"),
    ("sorted", "torque"),
    ("nbr_count", "force"),
    ("own_count", "ref_pos"),
];

/// The buffer that holds binding `name`: its own, or the one it lives in ([`SCRATCH`]).
pub(super) fn buffer_of(name: &str) -> &str {
    SCRATCH
        .iter()
        .find(|(s, _)| *s == name)
        .map_or(name, |(_, host)| host)
}

/// Which of the neighbour list's capacities sizes a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cap {
    /// One per record (pair).
    Records,
    /// One per packed slot (record in contact).
    Slots,
}

/// The buffers sized by the neighbour list's capacities: each one's element size, the capacity
/// that sizes it, and the element size its kernels bind it as (`history`'s record is
/// `history_words` words, unpadded (the pair table's `nbr_history_words`), bound as
/// `array<f32>`), which its windows, and so its buffers' lengths, are whole multiples of.
/// In an implicit world, each record's matrix blocks too (shaders/passes/solve_assemble.wgsl).
pub(super) fn list_buffers(world: &World) -> Vec<(&'static str, u64, Cap, u64)> {
    let h = 4 * world.table.nbr_history_words as u64;
    // What the list keeps of a slot: the owner's side is summed in the contact passes.
    let slot = std::mem::size_of::<FarSlot>() as u64;
    let mut out = vec![
        // The list keeps each pair once: each record's partner, and each head entry's record
        // (at most one per record).
        ("pair_j", 4, Cap::Records, 4),
        ("head_pair", 4, Cap::Records, 4),
        ("nbr_slot", 4, Cap::Records, 4),
        // The slots given back, a ring, and each slot's pair (shaders/lib/packed_slots.wgsl).
        ("free_slots", 4, Cap::Slots, 4),
        ("slot_pair", 8, Cap::Slots, 8),
        // The packed slots and their history records.
        ("slots", slot, Cap::Slots, slot),
        ("history", h, Cap::Slots, 4),
    ];
    if world.dynamics.implicit() {
        let blk = std::mem::size_of::<grains_core::kernel_types::MatBlock>() as u64;
        out.push(("mat_block", blk, Cap::Records, blk));
    }
    out
}

impl GpuBackend {
    /// Bytes one buffer may hold here: the adapter's `max_buffer_size`, or the options' lower
    /// figure ([`GpuOptions::buffer_limit`]).
    pub(super) fn buffer_bytes(&self) -> u64 {
        let adapter = self.ctx.limits().max_buffer_size;
        match self.opts.buffer_limit {
            0 => adapter,
            b => b.min(adapter),
        }
    }

    /// Array `name` of `size` bytes, bound as elements of `stride` bytes, as buffers
    /// (segments) of at most [`buffer_bytes`] each, every one but the last a whole number of
    /// the array's binding windows, so that no window straddles two; the first replaces
    /// `bufs[name]`, the others `more[name]`.
    ///
    /// [`buffer_bytes`]: GpuBackend::buffer_bytes
    pub(super) fn make_array(
        &self,
        name: &str,
        size: u64,
        stride: u64,
    ) -> Result<Vec<wgpu::Buffer>, GpuError> {
        let window = self.window_bytes(stride);
        if window == 0 {
            // A binding smaller than one element at the offset alignment: no window holds one.
            return Err(GpuError::BufferTooLarge {
                buffer: name.to_string(),
                size,
                limit_name: "max_storage_buffer_binding_size",
                limit: self.binding_bytes(),
                particles: self.n,
            });
        }
        let seg = (self.buffer_bytes() / window).max(1) * window;
        let mut out = Vec::new();
        let mut left = size.max(16);
        while left > 0 {
            let here = left.min(seg);
            out.push(self.make_buffer(name, here, wgpu::BufferUsages::empty())?);
            left -= here;
        }
        Ok(out)
    }

    /// Put the segments of array `name` in place ([`GpuBackend::make_array`]).
    pub(super) fn set_array(&mut self, name: &'static str, mut segments: Vec<wgpu::Buffer>) {
        let first = segments.remove(0);
        self.arrays.bufs.insert(name, first);
        if segments.is_empty() {
            self.arrays.more.remove(name);
        } else {
            self.arrays.more.insert(name, segments);
        }
    }

    /// The buffers holding array `name` (through its scratch host), in order.
    pub(super) fn segments(&self, name: &str) -> Vec<&wgpu::Buffer> {
        let host = buffer_of(name);
        let mut v: Vec<&wgpu::Buffer> = self.arrays.bufs.get(host).into_iter().collect();
        if let Some(more) = self.arrays.more.get(host) {
            v.extend(more);
        }
        v
    }

    /// Write `data` into array `name` from byte `offset`, across its segments (or its
    /// textures).
    pub(super) fn write_array(&self, name: &str, offset: u64, data: &[u8]) {
        if let Some(a) = self.arrays.tex.get(buffer_of(name)) {
            self.write_textures(a, offset, data);
            return;
        }
        let mut start = 0u64;
        for seg in self.segments(name) {
            let end = start + seg.size();
            let (lo, hi) = (offset.max(start), (offset + data.len() as u64).min(end));
            if lo < hi {
                let part = &data[(lo - offset) as usize..(hi - offset) as usize];
                self.ctx.queue.write_buffer(seg, lo - start, part);
            }
            start = end;
        }
    }

    pub(super) fn encoder(&self) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("grains step"),
            })
    }

    pub(super) fn make_buffer(
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

    /// Buffer `name` of at least `min_size` bytes holding `data`; a storage array larger than
    /// a buffer may be ([`GpuBackend::buffer_bytes`]) goes over several
    /// ([`GpuBackend::make_storage`]).
    pub(super) fn upload(
        &mut self,
        name: &'static str,
        data: &[u8],
        min_size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<(), GpuError> {
        let size = (data.len() as u64).max(min_size);
        if usage.is_empty() {
            let segments = self.make_storage(name, size, false)?;
            self.set_array(name, segments);
            if !data.is_empty() {
                self.write_array(name, 0, data);
            }
            return Ok(());
        }
        let buf = self.make_buffer(name, size, usage)?;
        if !data.is_empty() {
            self.ctx.queue.write_buffer(&buf, 0, data);
        }
        self.arrays.bufs.insert(name, buf);
        Ok(())
    }

    /// A storage array of `size` bytes that is not one of the list's (the particles', the
    /// cells', the tables'): one buffer where it fits, else as many as it needs, every one but
    /// the last whole windows of 16-byte elements ([`GpuBackend::make_array`]). Those are
    /// whole windows of 4- and 8-byte elements too, the other strides these arrays are bound
    /// with (the scratch views of [`SCRATCH`] included): a window is a whole number of
    /// `lcm(stride, alignment)` bytes, and the offset alignment, a power of two of at least
    /// 256 here, is that lcm for any of them. `exact`: the last buffer holds exactly what is
    /// left (rounded to 4 bytes), for arrays a scan may bound by their length.
    pub(super) fn make_storage(
        &self,
        name: &str,
        size: u64,
        exact: bool,
    ) -> Result<Vec<wgpu::Buffer>, GpuError> {
        if size <= self.buffer_bytes() {
            let one = if exact {
                self.make_exact(name, size)?
            } else {
                self.make_buffer(name, size, wgpu::BufferUsages::empty())?
            };
            return Ok(vec![one]);
        }
        self.make_array(name, size, 16)
    }

    /// Every buffer of a run, each uploaded from the world or zeroed: the uniforms, the
    /// particles, the walls' and pairs' tables, the state the passes keep, the control words
    /// and the list's buffers at their first capacity.
    pub(super) fn create_buffers(
        &mut self,
        grid: &grains_core::kernel_types::GridParams,
    ) -> Result<(), GpuError> {
        use bytemuck::cast_slice;
        let none = wgpu::BufferUsages::empty();
        // Before the shells' tables go up: their viscosity leaves the edges' parameters.
        let shell_viscosity = self.world.shell_viscosity_to_matrix();
        self.upload_uniforms(grid)?;
        self.upload_particles()?;
        self.upload_tables()?;
        self.create_zeroed()?;
        let n_slots = self.max_slots();
        let args = self.make_buffer("args", 16 * n_slots, wgpu::BufferUsages::INDIRECT)?;
        self.arrays.bufs.insert("args", args);
        let plan = self.make_buffer("plan", 4 * (P_SLOTS as u64 + n_slots), none)?;
        self.arrays.bufs.insert("plan", plan);
        let mut control = vec![0u32; CONTROL_WORDS];
        control[C_FORCE] = 1;
        self.ctx
            .queue
            .write_buffer(&self.arrays.bufs["control"], 0, cast_slice(&control));
        self.clear_fault();
        for (name, elem, cap, stride) in list_buffers(&self.world) {
            let segments = self.make_array(name, elem * self.list_capacity(cap), stride)?;
            self.set_array(name, segments);
        }
        self.write_slot_words(0, &[]);
        if self.world.dynamics.implicit() {
            self.create_solve_buffers(&shell_viscosity)?;
        }
        Ok(())
    }

    /// The uniforms: step, domain and grid parameters, and the scans' lengths.
    fn upload_uniforms(
        &mut self,
        grid: &grains_core::kernel_types::GridParams,
    ) -> Result<(), GpuError> {
        use bytemuck::bytes_of;
        let w = &self.world;
        let (n, nc) = (self.n as u64, self.n_cells as u64);
        let uni = wgpu::BufferUsages::UNIFORM;
        let step = w.step_params();
        let domain = w.domain.params();
        self.upload("step", bytes_of(&step), 0, uni)?;
        self.upload("domain", bytes_of(&domain), 0, uni)?;
        self.upload("grid", bytes_of(grid), 0, uni)?;
        // The scan length of each prefix sum (the `scan_len` uniform of scan_blocks.wgsl and
        // scan_add.wgsl), and of the scan of its blocks' sums (prefix_sum.wgsl's).
        let blocks = |len: u64| scan_block_count(len as usize) as u32;
        self.upload("scan_len_cells", bytes_of(&(nc as u32)), 0, uni)?;
        self.upload("scan_len_nbr", bytes_of(&(n as u32)), 0, uni)?;
        self.upload("scan_blocks_cells", bytes_of(&blocks(nc)), 0, uni)?;
        self.upload("scan_blocks_nbr", bytes_of(&blocks(n)), 0, uni)?;
        Ok(())
    }

    /// The particles' arrays: positions (kept in the world too, for the radii), velocities,
    /// spins and orientations (which move to the device), materials and shapes.
    fn upload_particles(&mut self) -> Result<(), GpuError> {
        use bytemuck::cast_slice;
        let none = wgpu::BufferUsages::empty();
        // The initial velocities, spins and orientations move to the device (nothing reads them
        // from the world afterwards); the positions stay in the world, for the radii.
        let pos = std::mem::take(&mut self.world.particles.pos);
        let vel = std::mem::take(&mut self.world.particles.vel);
        let omega = std::mem::take(&mut self.world.particles.omega);
        let quat = std::mem::take(&mut self.world.particles.quat);
        // None where no particle keeps an orientation: one element, which no pass reads.
        let quat = grains_core::state::orientations_for(&self.world, quat);
        self.upload("pos", cast_slice(&pos), 0, none)?;
        self.upload("vel", cast_slice(&vel), 0, none)?;
        self.upload("omega", cast_slice(&omega), 0, none)?;
        self.upload("quat", cast_slice(&quat), 16, none)?;
        self.upload("ref_pos", cast_slice(&pos), 0, none)?;
        self.world.particles.pos = pos;
        drop((vel, omega, quat));
        let p = &self.world.particles;
        let (material, shape, shapes) = (p.material.clone(), p.shape.clone(), p.shape_table());
        self.upload("material", cast_slice(&material), 0, none)?;
        self.upload("shape", cast_slice(&shape), 0, none)?;
        self.upload("shapes", cast_slice(&shapes), 0, none)?;
        Ok(())
    }

    /// The tables: mesh triangles, walls (and their starting poses), each pair source's chain
    /// map and parameters, the fixed pairs with their index, and the shells' tables.
    fn upload_tables(&mut self) -> Result<(), GpuError> {
        use bytemuck::{bytes_of, cast_slice};
        let none = wgpu::BufferUsages::empty();
        let uni = wgpu::BufferUsages::UNIFORM;
        let table = self.world.table.clone();
        let walls: Vec<Wall> = self.world.wall_records();
        let tris = self.world.triangles.clone();
        let tri_size = std::mem::size_of::<grains_core::kernel_types::Triangle>() as u64;
        let wall_size = std::mem::size_of::<Wall>() as u64;
        // The mesh walls' triangles as they stand (mesh_motion turns them) and at rest.
        self.upload("triangles", cast_slice(&tris), tri_size, none)?;
        self.upload("triangle_origin", cast_slice(&tris), tri_size, none)?;
        // The walls, then the mesh walls' bodies, as they stand and where they start.
        self.upload("walls", cast_slice(&walls), wall_size, none)?;
        self.upload("wall_origin", cast_slice(&walls), wall_size, none)?;
        let meshes = &self.world.meshes;
        let (home, conveyor, poses) = (
            meshes.home.clone(),
            meshes.conveyor.clone(),
            meshes.poses.clone(),
        );
        self.upload("triangle_home", cast_slice(&home), 16, none)?;
        self.upload("mesh_conveyor", cast_slice(&conveyor), 16, none)?;
        self.upload("motion_table", cast_slice(&poses), 32, none)?;
        // Each pair source's chain map and parameter records, and the fixed source's pairs
        // with the per-particle index the gather reads.
        for src in SourceKind::ALL {
            self.upload(src.chain_map(), cast_slice(table.chain_map(src)), 0, none)?;
            self.upload(
                params_buffer(src),
                cast_slice(table.params_of(src)),
                0,
                none,
            )?;
        }
        let fixed_pairs = self.world.fixed_pairs.clone();
        let (fixed_start, fixed_entry) = fixed_index(self.n, &fixed_pairs);
        self.upload("fixed_pairs", cast_slice(&fixed_pairs), 0, none)?;
        self.upload("fixed_start", cast_slice(&fixed_start), 0, none)?;
        self.upload("fixed_entry", cast_slice(&fixed_entry), 0, none)?;
        // A fixed pair's history may be set before its first evaluation: active from the start,
        // but for the division pairs, off until their cells divide.
        let mut fixed_active = self.world.fixed_active_start();
        fixed_active.resize(fixed_pairs.len().max(1), 1);
        self.upload("fixed_active", cast_slice(&fixed_active), 0, none)?;
        // The shells' tables and the state their passes keep (at least one element each).
        let sh = self.world.shells.clone();
        let (shell_start, shell_entry) = sh.node_index(self.n);
        self.upload("shell_counts", bytes_of(&sh.counts()), 0, uni)?;
        self.upload("edge_nodes", cast_slice(&sh.edges), 16, none)?;
        self.upload("edge_params", cast_slice(&sh.edge_params), 32, none)?;
        self.upload("shells", cast_slice(&sh.shells), 32, none)?;
        self.upload("shell_tris", cast_slice(&sh.triangles), 16, none)?;
        self.upload("shell_start", cast_slice(&shell_start), 0, none)?;
        self.upload("shell_entry", cast_slice(&shell_entry), 4, none)?;
        self.upload("shell_rest", cast_slice(&sh.rest), 4, none)?;
        // Without node-to-surface contact the surface passes do not run: one word each.
        let (surface_start, surface_elems) = if sh.has_surface_contact() {
            sh.surface_index(self.n)
        } else {
            (Vec::new(), Vec::new())
        };
        self.upload("surface_start", cast_slice(&surface_start), 4, none)?;
        self.upload("surface_elems", cast_slice(&surface_elems), 4, none)?;
        Ok(())
    }

    /// The state the passes keep and their scratch, zeroed, each at its size for the world.
    fn create_zeroed(&mut self) -> Result<(), GpuError> {
        let (n, nc) = (self.n as u64, self.n_cells as u64);
        let table = &self.world.table;
        let sh = &self.world.shells;
        let nf = self.world.fixed_pairs.len() as u64;
        let ne = sh.edges.len() as u64;
        let ns = sh.shells.len() as u64;
        let walls_move = self.world.walls.iter().any(|w| w.moves());
        // The blocks' sums and starts, shared by the scans (which run one after another).
        let most_blocks = scan_block_count(nc.max(n) as usize) as u64;
        let books = self.world.books_particle_work();
        let mut zeroed: Vec<(&'static str, u64)> = vec![
            ("scan_sums", 4 * most_blocks),
            ("scan_starts", 4 * (most_blocks + 1)),
            ("wall_work", if walls_move { 8 * n } else { 8 }),
            ("kinematic_work", if books { 8 * n } else { 8 }),
            ("shell_forces", 64 * ne.max(1)),
            ("shell_volumes", 16 * ns.max(1)),
            (
                "surface_records",
                if sh.has_surface_contact() {
                    16 * grains_core::kernels::passes::surface_contact::SURFACE_RECORDS as u64 * n
                } else {
                    16
                },
            ),
            ("pos_comp", 16 * n),
            ("force", 16 * n),
            ("torque", 16 * n),
            ("dissipated", 16 * n),
            ("cell_counts", 4 * nc),
            ("cell_start", 4 * (nc + 1)),
            ("cell_cursor", 4 * nc),
            ("new_start", 4 * (n + 1)),
            ("pair_start", 4 * (n + 1)),
            ("new_pair_start", 4 * (n + 1)),
            ("nbr_start", 4 * (n + 1)),
            // At least one element: a binding of an empty array is still checked against the
            // element size.
            (
                "fixed_history",
                4 * table.fixed_history_stride as u64 * nf.max(1),
            ),
            (
                "fixed_slots",
                std::mem::size_of::<PairSlot>() as u64 * nf.max(1),
            ),
            ("max_disp2", 4),
            ("slot_count", 4 * SLOT_WORDS as u64),
            ("fault", 4),
            ("control", 4 * CONTROL_WORDS as u64),
        ];
        // Only where the world holds applied forces: no pass binds it otherwise.
        if self.world.applied_forces {
            zeroed.push(("applied_force", 16 * n));
        }
        for (name, size) in zeroed {
            // Exact sizes where a kernel may take `arrayLength` (a scan over the cell counts).
            let segments = self.make_storage(name, size, true)?;
            self.set_array(name, segments);
        }
        Ok(())
    }

    /// The packed slots' counts (shaders/lib/slot_words.wgsl) with `taken` slots ever taken,
    /// `free` of them given back (the ring from its start), none taken or given back in this
    /// step and no rerun pending, for the slots' capacity now.
    pub(super) fn write_slot_words(&self, taken: u64, free: &[u32]) {
        let mut words = [0u32; SLOT_WORDS];
        words[SLOT_TAKEN] = taken as u32;
        words[SLOT_FREE] = free.len() as u32;
        words[SLOT_CAPACITY] = self.slot_capacity as u32;
        let q = &self.ctx.queue;
        q.write_buffer(
            &self.arrays.bufs["slot_count"],
            0,
            bytemuck::cast_slice(&words),
        );
        if !free.is_empty() {
            self.write_array("free_slots", 0, bytemuck::cast_slice(free));
        }
    }

    /// Elements of a list buffer of capacity `cap`.
    pub(super) fn list_capacity(&self, cap: Cap) -> u64 {
        match cap {
            Cap::Records => self.rec_capacity,
            Cap::Slots => self.slot_capacity,
        }
    }

    /// A zeroed buffer of exactly `size` bytes (at least 4), for arrays whose length a kernel
    /// reads with `arrayLength`.
    pub(super) fn make_exact(&self, name: &str, size: u64) -> Result<wgpu::Buffer, GpuError> {
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

    /// No faulty particle seen: the guard's word back to `u32::MAX`.
    pub(super) fn clear_fault(&self) {
        self.ctx.queue.write_buffer(
            &self.arrays.bufs["fault"],
            0,
            bytemuck::cast_slice(&[NO_FAULT]),
        );
    }

    /// Read `size` bytes of buffer `name` from offset 0 (across its segments).
    pub(super) fn read_bytes(&self, name: &str, size: u64) -> Result<Vec<u8>, GpuError> {
        if let Some(a) = self.arrays.tex.get(buffer_of(name)) {
            return self.read_textures(name, a, size.min(a.size));
        }
        let segments = self.segments(name);
        if segments.is_empty() {
            return Err(GpuError::Readback(name.to_string()));
        }
        let mut sources = Vec::new();
        let mut left = size;
        for seg in segments {
            if left == 0 {
                break;
            }
            let here = left.min(seg.size());
            sources.push((name, seg, here));
            left -= here;
        }
        let out = crate::device::read_back(&self.ctx, self.encoder(), &sources)?;
        Ok(out.concat())
    }

    pub(super) fn read_pod<T: bytemuck::Pod>(&self, name: &str, count: u64) -> Vec<T> {
        let bytes = self
            .read_bytes(name, count * std::mem::size_of::<T>() as u64)
            .unwrap_or_else(|e| panic!("{e}"));
        bytemuck::pod_collect_to_vec(
            &bytes[..(count as usize * std::mem::size_of::<T>()).min(bytes.len())],
        )
    }

    /// Read a resident buffer by its binding name (e.g. `"nbr_start"`, `"slots"`, `"force"`) as `T`, the first `count` elements; for pass-level tests.
    pub fn read_buffer<T: bytemuck::Pod>(
        &self,
        name: &str,
        count: usize,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = self.read_bytes(name, (count * std::mem::size_of::<T>()) as u64)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}
