//! The plan of a step: the kernels (passes, control kernels and one per contact chain), the
//! indirect-dispatch slots and the recorded sequences of dispatches with their bind groups.

use super::*;
use crate::program::{Op, Size};
use grains_core::kernels::passes::scan_blocks::scan_block_count;
use grains_core::kernels::sources::SourceKind;
use grains_core::schedule::{Pass, Schedule};

/// The WGSL of one of this crate's control kernels: the control words
/// ([`control_words::control_wgsl`]), the common header, the words of the packed slots' counts (shaders/lib/slot_words.wgsl), the dispatch-size helpers if it binds
/// `args`, and its section.
pub(super) fn control_source(entry: &str) -> Result<String, GpuError> {
    let words =
        grains_shaders::compose_file("lib/slot_words.wgsl").map_err(|e| shader_err(entry, e))?;
    let mut parts: BTreeMap<&str, String> = BTreeMap::new();
    let mut section = "";
    for line in CONTROL_WGSL.lines() {
        if let Some(rest) = line.strip_prefix("//!") {
            section = match rest.strip_prefix("entry ") {
                Some(e) if e == entry => "mine",
                Some(_) => "other",
                None => match rest {
                    "common" => "common",
                    "args" => "args",
                    "solve" => "solve",
                    _ => "other",
                },
            };
            continue;
        }
        let text = parts.entry(section).or_default();
        text.push_str(line);
        text.push('\n');
    }
    let mine = parts.remove("mine").unwrap_or_default();
    let args = if mine.contains("read_write> args") {
        parts.remove("args").unwrap_or_default()
    } else {
        String::new()
    };
    let solve = if mine.contains("solve_partials") {
        parts.remove("solve").unwrap_or_default()
    } else {
        String::new()
    };
    let common = parts.remove("common").unwrap_or_default();
    Ok(control_words::control_wgsl() + &common + &words + &args + &solve + &mine)
}

pub(super) fn shader_err(label: &str, e: impl std::fmt::Display) -> GpuError {
    GpuError::Shader {
        label: label.to_string(),
        message: e.to_string(),
    }
}

/// The single compute entry point of a composed module, or the one named `preferred`.
pub(super) fn entry_of(label: &str, src: &str, preferred: &str) -> Result<String, GpuError> {
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

pub(super) fn pass_kernel(ctx: &GpuContext, stem: &str) -> Result<Kernel, GpuError> {
    let src = grains_shaders::compose_pass(stem).map_err(|e| shader_err(stem, e))?;
    let entry = entry_of(stem, &src, stem)?;
    Kernel::new(ctx, stem, &src, &entry)
}

pub(super) fn groups(count: u64, threads: u32) -> u64 {
    count.div_ceil(threads.max(1) as u64)
}

/// Kernel indices into `GpuBackend::kernels`.
pub(super) struct KernelIds {
    pub(super) decide: usize,
    pub(super) zero_cells: usize,
    pub(super) cell_count: usize,
    /// The three passes of a scan: blocks, their sums, their starts added.
    pub(super) scan_blocks: usize,
    pub(super) prefix_sum: usize,
    pub(super) scan_add: usize,
    pub(super) cursor: usize,
    pub(super) cell_scatter: usize,
    pub(super) pair_count: usize,
    pub(super) guard: usize,
    /// After the list's contact chains: freezes the batch when they took more packed slots
    /// than there are.
    pub(super) slot_guard: usize,
    pub(super) pair_fill: usize,
    pub(super) pair_record: usize,
    pub(super) clear_flags: usize,
    pub(super) slot_carry: usize,
    pub(super) commit_particles: usize,
    /// (kernel, pair source, indirect slot for a rebuilt source) per chain, in table order.
    pub(super) contact: Vec<(usize, SourceKind, Option<u32>)>,
    /// The step's passes, in the order the world's schedule lists them.
    pub(super) schedule: Schedule,
    /// Each pass of the schedule with its kernel.
    pub(super) passes: Vec<(Pass, usize)>,
    /// `gather_kick`, which takes the place of `gather` and `integrate_second_half` in the step
    /// where nothing runs between them ([`GpuOptions::fuse_gather_kick`]).
    pub(super) gather_kick: Option<usize>,
    /// The implicit solve's kernels, which take the place of the second half in an implicit
    /// world (backend/solve.rs).
    pub(super) solve: Option<super::solve::SolveKernels>,
}

impl KernelIds {
    /// The kernel of `pass`, which the schedule lists.
    pub(super) fn pass(&self, pass: Pass) -> usize {
        self.passes
            .iter()
            .find(|(p, _)| *p == pass)
            .map(|&(_, k)| k)
            .expect("every pass of the schedule is compiled")
    }

    /// Contact chains dispatched indirectly (over a rebuilt source), one indirect slot each.
    pub(super) fn indirect_contacts(&self) -> usize {
        self.contact.iter().filter(|c| c.2.is_some()).count()
    }
}

impl GpuBackend {
    pub(super) fn threads(&self, k: usize) -> u32 {
        self.program.kernels[k].threads()
    }

    pub(super) fn max_dim(&self) -> u32 {
        self.ctx.limits.max_compute_workgroups_per_dimension
    }

    /// Workgroups of a dispatch, refused beyond what an (x, y) grid can hold.
    pub(super) fn check_groups(&self, what: &str, g: u64) -> Result<u32, GpuError> {
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
    /// capacities, threads per group of the dispatches sized by the list total, and the
    /// workgroups of the passes every step runs ([`GpuBackend::every`]).
    pub(super) fn write_plan(&mut self) -> Result<(), GpuError> {
        let n = self.n as u64;
        let nc = self.n_cells as u64;
        let ids = &self.program.ids;
        let mut slots = vec![0u32; self.every_base() as usize];
        slots[S_ZERO_CELLS as usize] = self.check_groups("zero_cells", groups(nc, 64))?;
        slots[S_CELL_COUNT as usize] =
            self.check_groups("cell_count", groups(n, self.threads(ids.cell_count)))?;
        // A scan's blocks, one workgroup each, and the one workgroup that scans their sums.
        let blocks =
            |what, len: u64| self.check_groups(what, scan_block_count(len as usize) as u64);
        slots[S_SCAN_CELLS as usize] = blocks("scan_blocks", nc)?;
        slots[S_PREFIX_CELLS as usize] = 1;
        slots[S_CURSOR as usize] = self.check_groups("cursor", groups(nc, 64))?;
        slots[S_CELL_SCATTER as usize] =
            self.check_groups("cell_scatter", groups(n, self.threads(ids.cell_scatter)))?;
        slots[S_PAIR_COUNT as usize] =
            self.check_groups("pair_count", groups(n, self.threads(ids.pair_count)))?;
        slots[S_SCAN_NBR as usize] = blocks("scan_blocks", n)?;
        slots[S_PREFIX_NBR as usize] = 1;
        slots[S_GUARD as usize] = 1;
        slots[S_PAIR_FILL as usize] =
            self.check_groups("pair_fill", groups(n, self.threads(ids.pair_fill)))?;
        slots[S_PAIR_RECORD as usize] =
            self.check_groups("pair_record", groups(n, self.threads(ids.pair_record)))?;
        slots[S_CLEAR_FLAGS as usize] = self.threads(ids.clear_flags);
        slots[S_SLOT_CARRY as usize] = self.threads(ids.slot_carry);
        slots[S_COMMIT_PARTICLES as usize] =
            self.check_groups("commit_particles", groups(n + 1, 64))?;
        // Sized by the list's records (threads per group here, `guard` divides), at most their
        // capacity: check the worst case now.
        let mut by_records = vec![("clear_flags", ids.clear_flags)];
        self.check_groups(
            "slot_carry",
            groups(self.slot_capacity, self.threads(ids.slot_carry)),
        )?;
        for &(k, _, slot) in &ids.contact {
            if let Some(slot) = slot {
                slots[slot as usize] = self.threads(k);
                by_records.push(("contact", k));
            }
        }
        for (what, k) in by_records {
            self.check_groups(what, groups(self.rec_capacity, self.threads(k)))?;
        }
        slots.extend_from_slice(&self.program.every);
        let mut plan = vec![0u32; P_SLOTS];
        plan[P_N] = self.n as u32;
        plan[P_CELLS] = self.n_cells as u32;
        plan[P_SKIN] = (self.world.skin as f32).to_bits();
        plan[P_MAX_DIM] = self.max_dim();
        plan[P_EVERY] = self.every_base();
        plan[P_REC_CAPACITY] = self.rec_capacity as u32;
        plan[P_PRE] = self.program.every_pre as u32;
        plan[P_SLOT_CAPACITY] = self.slot_capacity as u32;
        plan.extend_from_slice(&slots);
        self.program.plan_slots = slots;
        self.ctx
            .queue
            .write_buffer(&self.arrays.bufs["plan"], 0, bytemuck::cast_slice(&plan));
        Ok(())
    }

    /// Bind group of kernel `k`: every binding by its own buffer name unless `alias` maps the
    /// binding name to another buffer.
    pub(super) fn op(
        &self,
        k: usize,
        alias: &[(&str, &'static str)],
        size: Size,
    ) -> Result<Op, GpuError> {
        // Each binding's host buffer: its own, its scratch host's, or the alias's.
        let mut hosts: BTreeMap<&str, &'static str> = self
            .arrays
            .bufs
            .keys()
            .chain(self.arrays.tex.keys())
            .map(|k| (*k, *k))
            .collect();
        for (binding, host) in super::buffers::SCRATCH {
            hosts.insert(binding, host);
        }
        for (binding, buffer) in alias {
            hosts.insert(binding, super::buffers::buffer_of(buffer));
        }
        let map: BTreeMap<&str, &wgpu::Buffer> = hosts
            .iter()
            .filter_map(|(b, h)| Some((*b, self.arrays.bufs.get(h)?)))
            .collect();
        let bound = self.program.kernels[k]
            .bindings
            .iter()
            .filter_map(|b| {
                let name = alias
                    .iter()
                    .find(|(a, _)| *a == b.name)
                    .map(|(_, buf)| *buf)
                    .or_else(|| {
                        self.arrays
                            .bufs
                            .keys()
                            .chain(self.arrays.tex.keys())
                            .find(|n| **n == b.name)
                            .copied()
                    })
                    .or_else(|| {
                        super::buffers::SCRATCH
                            .iter()
                            .find(|(s, _)| *s == b.name)
                            .map(|(s, _)| *s)
                    })?;
                let writes = matches!(
                    b.kind,
                    crate::kernel::BindingKind::StorageReadWrite
                        | crate::kernel::BindingKind::TextureReadWrite
                );
                Some((writes, name))
            })
            .collect();
        // Arrays larger than a binding: the kernel composed to bind them as windows.
        let (splits, windows) = self.splits_of(k, &hosts)?;
        let (textures, views) = self.textures_of(k, &hosts)?;
        self.check_reach(k, &hosts, &splits, &windows, &textures)?;
        let (pipeline, groups) = if splits.is_empty() && textures.is_empty() {
            (None, self.program.kernels[k].bind(&self.ctx, &map)?)
        } else {
            let mut cache = self
                .program
                .split_kernels
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let key = (k, splits.clone(), textures);
            if !cache.contains_key(&key) {
                let variant = self.program.kernels[k].variant(&self.ctx, &key.1, &key.2)?;
                cache.insert(key.clone(), variant);
            }
            let variant = &cache[&key];
            (
                Some(variant.pipeline.clone()),
                variant.bind_windows(&self.ctx, &map, &windows, &views)?,
            )
        };
        Ok(Op {
            kernel: k,
            pipeline,
            splits,
            groups,
            size,
            bound,
        })
    }

    /// Refuse kernel `k` bound with `splits` where its storage bindings, windows counted,
    /// exceed what a shader stage may bind, before composing it: the message says about how
    /// many particles would fit, each array scaled in proportion to the particle count (the
    /// particles' arrays are; the list's are for a pack of the same density).
    fn check_reach(
        &self,
        k: usize,
        hosts: &BTreeMap<&str, &'static str>,
        splits: &[grains_shaders::ArraySplit],
        windows: &BTreeMap<&str, Windows<'_>>,
        textures: &[grains_shaders::ArraySplit],
    ) -> Result<(), GpuError> {
        let kernel = &self.program.kernels[k];
        let base = kernel
            .bindings
            .iter()
            .filter(|b| b.kind.is_storage_buffer() && !textures.iter().any(|t| t.name == b.name))
            .count() as u64;
        let limit = self.ctx.limits.max_storage_buffers_per_shader_stage as u64;
        let extra: u64 = splits.iter().map(|s| s.parts as u64 - 1).sum();
        if base + extra <= limit {
            return Ok(());
        }
        // What `build_ops` may move into textures: the largest of the arrays bound as windows
        // that no kernel updates atomically.
        let hint = windows
            .iter()
            .filter_map(|(name, w)| {
                let host = *hosts.get(name)?;
                let bytes: u64 = w.segments.iter().map(|b| b.size()).sum();
                self.may_texture(host).then_some((bytes, host))
            })
            .max()
            .map(|(_, host)| host);
        *self
            .arrays
            .reach_hint
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = hint;
        // Each split array's windows at `m` particles, from its bytes and window now.
        let arrays: Vec<(u64, u64)> = windows
            .values()
            .map(|w| (w.segments.iter().map(|b| b.size()).sum(), w.window))
            .collect();
        let n = self.n as u64;
        let need = |m: u64| -> u64 {
            let windows: u64 = arrays
                .iter()
                .map(|&(size, window)| {
                    let bytes = (size as u128 * m as u128).div_ceil(n.max(1) as u128);
                    (bytes.div_ceil(window as u128) as u64).max(1) - 1
                })
                .sum();
            base + windows
        };
        // The largest count that fits (`need` grows with `m`).
        let (mut lo, mut hi) = (0u64, n);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if need(mid) <= limit {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let windows: Vec<String> = splits
            .iter()
            .map(|s| format!("{} in {} windows", s.name, s.parts))
            .collect();
        let binding = self.binding_bytes();
        Err(GpuError::KernelReach {
            kernel: kernel.label.clone(),
            needed: base + extra,
            limit,
            particles: self.n,
            windows: windows.join(", "),
            binding,
            fit: lo,
        })
    }

    /// The arrays of kernel `k` held in textures (their hosts in `hosts`): each one's split in
    /// textures as its kernel binds it (elements a texture, textures), and its textures' views.
    #[allow(clippy::type_complexity)]
    fn textures_of<'m>(
        &'m self,
        k: usize,
        hosts: &BTreeMap<&'m str, &'static str>,
    ) -> Result<
        (
            Vec<grains_shaders::ArraySplit>,
            BTreeMap<&'m str, Vec<&'m wgpu::TextureView>>,
        ),
        GpuError,
    > {
        let mut splits = Vec::new();
        let mut views = BTreeMap::new();
        for b in &self.program.kernels[k].bindings {
            let Some((&name, &host)) = hosts.get_key_value(b.name.as_str()) else {
                continue;
            };
            let Some(a) = self.arrays.tex.get(host) else {
                continue;
            };
            let words = b.stride as u64 / 4;
            if words == 0 || !a.words.is_multiple_of(words) {
                return Err(GpuError::Shader {
                    label: self.program.kernels[k].label.clone(),
                    message: format!(
                        "`{name}` is bound with elements of {} bytes, which its textures of \
                         {} words do not hold whole",
                        b.stride, a.words
                    ),
                });
            }
            splits.push(grains_shaders::ArraySplit {
                name: name.to_string(),
                chunk: (a.words / words) as u32,
                parts: a.parts.len() as u32,
            });
            views.insert(name, a.parts.iter().map(|(_, v)| v).collect());
        }
        Ok((splits, views))
    }

    /// Whether array `host` may be held in textures: some kernel binds it as a runtime array
    /// and none updates it atomically (nor is it the indirect arguments or the control words).
    pub(super) fn may_texture(&self, host: &str) -> bool {
        if ["args", "plan", "control"].contains(&host) || !self.arrays.bufs.contains_key(host) {
            return false;
        }
        let mut array = false;
        for b in self.program.kernels.iter().flat_map(|k| &k.bindings) {
            if super::buffers::buffer_of(&b.name) != host {
                continue;
            }
            if b.type_name.contains("atomic") {
                return false;
            }
            array |= b.stride > 0;
        }
        array
    }

    /// Bytes a storage binding may hold here: the adapter's limit, or the options' lower one.
    pub(super) fn binding_bytes(&self) -> u64 {
        let adapter = self.ctx.limits().max_storage_buffer_binding_size;
        match self.opts.binding_limit {
            0 => adapter,
            b => b.min(adapter),
        }
    }

    /// Bytes of the windows an array of `stride`-byte elements is bound in: as many whole
    /// elements as a binding holds, a multiple of the adapter's offset alignment.
    pub(super) fn window_bytes(&self, stride: u64) -> u64 {
        let align = (self.ctx.limits().min_storage_buffer_offset_alignment as u64).max(256);
        let unit = lcm(stride, align);
        self.binding_bytes() / unit * unit
    }

    /// The arrays of kernel `k` larger than a binding (their host buffers in `hosts`, with
    /// their segments), each split in windows ([`GpuBackend::window_bytes`]); and each one's
    /// windows as its kernel binds them.
    #[allow(clippy::type_complexity)]
    fn splits_of<'m>(
        &'m self,
        k: usize,
        hosts: &BTreeMap<&'m str, &'static str>,
    ) -> Result<
        (
            Vec<grains_shaders::ArraySplit>,
            BTreeMap<&'m str, Windows<'m>>,
        ),
        GpuError,
    > {
        let limit = self.binding_bytes();
        let mut splits = Vec::new();
        let mut windows = BTreeMap::new();
        for b in &self.program.kernels[k].bindings {
            let Some((&name, &host)) = hosts.get_key_value(b.name.as_str()) else {
                continue;
            };
            let segments = self.segments(host);
            let size: u64 = segments.iter().map(|s| s.size()).sum();
            if size <= limit {
                continue;
            }
            let stride = b.stride as u64;
            let too_large = |limit_name, limit| GpuError::BufferTooLarge {
                buffer: name.to_string(),
                size,
                limit_name,
                limit,
                particles: self.n,
            };
            let window = if stride == 0 {
                0
            } else {
                self.window_bytes(stride)
            };
            if window == 0 {
                return Err(too_large("max_storage_buffer_binding_size", limit));
            }
            if size / stride > u32::MAX as u64 {
                // WGSL indexes with 32 bits.
                return Err(too_large("32-bit index range", stride << 32));
            }
            // A window never straddles two segments: all but the last are whole windows.
            let seg = segments[0].size();
            if segments.len() > 1 && !seg.is_multiple_of(window) {
                return Err(GpuError::Shader {
                    label: self.program.kernels[k].label.clone(),
                    message: format!(
                        "`{name}`'s buffers of {seg} bytes are not whole windows of {window}"
                    ),
                });
            }
            splits.push(grains_shaders::ArraySplit {
                name: name.to_string(),
                chunk: (window / stride) as u32,
                parts: size.div_ceil(window) as u32,
            });
            windows.insert(
                name,
                Windows {
                    window,
                    segment: if segments.len() > 1 { seg } else { u64::MAX },
                    segments,
                },
            );
        }
        Ok((splits, windows))
    }

    /// The first indirect slot of the passes every step runs: after the rebuild's and the
    /// list-sized contact chains'.
    pub(super) fn every_base(&self) -> u32 {
        S_CONTACT + self.program.ids.indirect_contacts() as u32
    }

    /// Indirect slots the `args` buffer holds: the rebuild's, the list-sized contact chains',
    /// and one for each pass every step runs (at most one per chain, nine others and the
    /// implicit solve's seven).
    pub(super) fn max_slots(&self) -> u64 {
        (S_CONTACT as usize + 2 * self.program.ids.contact.len() + 9 + 7) as u64
    }

    /// The recorded sequences: the initial forces and the step.
    /// Every pass is dispatched indirectly, so that a frozen batch does nothing
    /// (control.wgsl); the passes every step runs get slots of their own, from
    /// [`GpuBackend::every_base`] on, whose sizes the plan keeps and the host writes.
    pub(super) fn build_ops(&mut self) -> Result<(), GpuError> {
        if self.opts.texture_limit > 0 && self.opts.texture_limit < u64::MAX {
            let big: Vec<&'static str> = self
                .arrays
                .bufs
                .keys()
                .copied()
                .filter(|h| self.may_texture(h) && self.array_bytes(h) > self.opts.texture_limit)
                .collect();
            for host in big {
                self.move_to_textures(host)?;
            }
        }
        loop {
            match self.build_ops_once() {
                Err(e @ GpuError::KernelReach { .. }) => {
                    let hint = self
                        .arrays
                        .reach_hint
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take();
                    match hint {
                        // Held in textures, the array no longer takes storage buffers.
                        Some(host) if self.opts.texture_limit < u64::MAX => {
                            self.move_to_textures(host)?
                        }
                        _ => return Err(e),
                    }
                }
                done => return done,
            }
        }
    }

    /// [`GpuBackend::build_ops`] with the arrays where they are now: the step's dispatches
    /// (the first half and what follows it, the rebuild, the contact chains, the gather and
    /// the passes after it, the second half) and the start's (the rebuild, the chains and the
    /// gather), sharing their bind groups, with the every-step slots' sizes.
    fn build_ops_once(&mut self) -> Result<(), GpuError> {
        let mut every = EverySlots {
            base: self.every_base(),
            groups: Vec::new(),
        };
        let head = self.head_ops(&mut every)?;
        let every_pre = every.groups.len();
        let rebuild = self.rebuild_op_list()?;
        let forces = self.force_ops(&mut every)?;
        let (gathered, mut end) = self.gather_ops(&mut every)?;
        let solve = match &self.program.ids.solve {
            Some(k) => Some(self.solve_ops(k, &mut every)?),
            None => None,
        };
        let recorded = self.solve_tally.recorded;
        // The underdamped solve is a kick: the starting state takes none (as on the CPU).
        let underdamped = self.world.dynamics.mode == grains_core::dynamics::Mode::Underdamped;
        let init_solve = solve
            .as_ref()
            .filter(|_| !underdamped)
            .map(|s| s.sequence(recorded, false));
        if let Some(s) = &solve {
            end.extend(s.sequence(recorded, true));
        }
        // The same bind groups serve both sequences.
        let guard = self.program.ids.guard;
        let guard_at = rebuild
            .iter()
            .position(|op| op.kernel == guard)
            .unwrap_or(0);
        let chains_at = rebuild.len();
        self.program.init_ops = rebuild
            .iter()
            .chain(&forces)
            .chain(&gathered)
            .chain(init_solve.iter().flatten())
            .map(dup)
            .collect();
        self.program.init_resume = (guard_at, chains_at);
        self.program.rebuild_ops = head.len()..head.len() + rebuild.len();
        self.program.step_resume = (head.len() + guard_at, head.len() + chains_at);
        self.program.step_ops = head
            .iter()
            .chain(&rebuild)
            .chain(&forces)
            .chain(&end)
            .map(dup)
            .collect();
        self.program.every = every.groups;
        self.program.every_pre = every_pre;
        self.write_plan()?;
        self.write_plan_args(self.every_slots());
        if let Some(s) = &solve {
            self.write_solve_words(s);
        }
        self.program.solve_ops = solve;
        Ok(())
    }

    /// The step's first dispatches: the schedule's head (the first half, then the clumps'
    /// members placed with their bodies and the walls moved, where the world has them).
    fn head_ops(&self, every: &mut EverySlots) -> Result<Vec<Op>, GpuError> {
        let mut head = Vec::new();
        for &pass in &self.program.ids.schedule.head {
            head.push(self.pass_op(pass, every)?);
        }
        Ok(head)
    }

    /// The dispatch of `pass` over its items, in the next every-step slot.
    fn pass_op(&self, pass: Pass, every: &mut EverySlots) -> Result<Op, GpuError> {
        let k = self.program.ids.pass(pass);
        let items = pass.items(&self.world) as u64;
        let g = self.check_groups(pass.stem(), groups(items, self.threads(k)))?;
        self.op(k, &[], every.slot(g))
    }

    /// An exclusive scan of `counts` into `out` over `len` (a uniform) elements: each block
    /// scanned (`slot` sizes its workgroups), the blocks' sums scanned by one workgroup
    /// (`one`), each block's start added.
    fn scan_ops(
        &self,
        counts: &'static str,
        out: &'static str,
        [len, blocks]: [&'static str; 2],
        [slot, one]: [u32; 2],
    ) -> Result<[Op; 3], GpuError> {
        let ids = &self.program.ids;
        Ok([
            self.op(
                ids.scan_blocks,
                &[
                    ("counts", counts),
                    ("out", out),
                    ("scan_len", len),
                    ("block_sums", "scan_sums"),
                ],
                Size::Indirect(slot),
            )?,
            self.op(
                ids.prefix_sum,
                &[
                    ("counts", "scan_sums"),
                    ("out", "scan_starts"),
                    ("scan_len", blocks),
                ],
                Size::Indirect(one),
            )?,
            self.op(
                ids.scan_add,
                &[
                    ("out", out),
                    ("scan_len", len),
                    ("block_start", "scan_starts"),
                ],
                Size::Indirect(slot),
            )?,
        ])
    }

    /// The rebuild's dispatches, each sized on the device (a step that does not rebuild runs
    /// none of them): the decision, the cells counted, scanned and filled, the candidates
    /// counted and scanned, the guard, the new list filled over the old one, its records, and
    /// the slots carried to them.
    fn rebuild_op_list(&self) -> Result<Vec<Op>, GpuError> {
        use Size::{Direct, Indirect};
        let ids = &self.program.ids;
        let cells = ["scan_len_cells", "scan_blocks_cells"];
        let list = ["scan_len_nbr", "scan_blocks_nbr"];
        let mut rebuild = vec![
            self.op(ids.decide, &[], Direct(1))?,
            self.op(ids.zero_cells, &[], Indirect(S_ZERO_CELLS))?,
            self.op(ids.cell_count, &[], Indirect(S_CELL_COUNT))?,
        ];
        rebuild.extend(self.scan_ops(
            "cell_counts",
            "cell_start",
            cells,
            [S_SCAN_CELLS, S_PREFIX_CELLS],
        )?);
        rebuild.extend([
            self.op(ids.cursor, &[], Indirect(S_CURSOR))?,
            self.op(ids.cell_scatter, &[], Indirect(S_CELL_SCATTER))?,
            self.op(ids.pair_count, &[], Indirect(S_PAIR_COUNT))?,
        ]);
        let nbr = [S_SCAN_NBR, S_PREFIX_NBR];
        rebuild.extend(self.scan_ops("nbr_count", "new_start", list, nbr)?);
        // The owning counts' scan: where each particle's records start.
        rebuild.extend(self.scan_ops("own_count", "new_pair_start", list, nbr)?);
        rebuild.extend([
            self.op(ids.guard, &[], Direct(1))?,
            // The new list goes over the old one: each slot in use keeps its pair, by which
            // the carry finds its new record.
            self.op(
                ids.pair_fill,
                &[("pair_start", "new_pair_start")],
                Indirect(S_PAIR_FILL),
            )?,
            self.op(
                ids.pair_record,
                &[("nbr_start", "new_start"), ("pair_start", "new_pair_start")],
                Indirect(S_PAIR_RECORD),
            )?,
            self.op(ids.clear_flags, &[], Indirect(S_CLEAR_FLAGS))?,
            self.op(
                ids.slot_carry,
                &[("pair_start", "new_pair_start")],
                Indirect(S_SLOT_CARRY),
            )?,
            self.op(ids.commit_particles, &[], Indirect(S_COMMIT_PARTICLES))?,
        ]);
        Ok(rebuild)
    }

    /// The contact chains' dispatches. The list's chains come first, then `slot_guard`, then
    /// the chains of sources that keep a history per pair (which a step whose list's chains
    /// run again after a slot overflow must not run twice); each chain writes slots of its
    /// own, so their order does not change what the gather sums.
    fn force_ops(&self, every: &mut EverySlots) -> Result<Vec<Op>, GpuError> {
        let ids = &self.program.ids;
        let mut forces = Vec::new();
        // Nothing on the device is sized by the list's entries.
        let sizes = Sizes::of(
            &self.world,
            0,
            self.rec_capacity as usize,
            self.slot_capacity as usize,
        );
        // In the schedule's order: the list's chains first.
        let chains: Vec<_> = ids
            .schedule
            .chains
            .iter()
            .map(|&c| ids.contact[c as usize])
            .collect();
        let listed = chains.iter().filter(|c| c.1.in_list()).count();
        for (at, &(k, src, slot)) in chains.iter().enumerate() {
            if at == listed {
                forces.push(self.op(ids.slot_guard, &[], Size::Direct(1))?);
            }
            let size = match slot {
                Some(slot) => Size::Indirect(slot),
                None => {
                    let items = if src.per_particle() {
                        self.world.particles.len()
                    } else {
                        sizes.slots(src)
                    };
                    every.slot(self.check_groups("contact", groups(items as u64, self.threads(k)))?)
                }
            };
            // The template's generic bindings, bound to the source's own arrays.
            let alias = [
                ("pair_chain", src.chain_map()),
                ("pair_params", params_buffer(src)),
                ("history", src.history_array()),
                ("slots", src.slots_array()),
                ("pair_active", src.active_array()),
            ];
            forces.push(self.op(k, &alias, size)?);
        }
        if listed == chains.len() {
            forces.push(self.op(ids.slot_guard, &[], Size::Direct(1))?);
        }
        Ok(forces)
    }

    /// After the contact passes: the gather and the passes that read this step's flags after
    /// it (shells, clump bodies, moving walls' power), where the initial forces end; and the
    /// step's end: those again, the kinematic work and the second half, or, in a step with
    /// nothing between the gather and the kick, the fused pass.
    fn gather_ops(&self, every: &mut EverySlots) -> Result<(Vec<Op>, Vec<Op>), GpuError> {
        let (ids, n) = (&self.program.ids, self.n as u64);
        let g = self.check_groups("gather", groups(n, self.threads(ids.pass(Pass::Gather))))?;
        let gather = every.slot(g);
        let mut gathered = vec![self.op(ids.pass(Pass::Gather), &[], gather)?];
        for &pass in &ids.schedule.after_gather {
            gathered.push(self.pass_op(pass, every)?);
        }
        // In an implicit world the solve takes the second half's place (backend/solve.rs).
        let second_half = match ids.solve {
            Some(_) => None,
            None => Some(self.pass_op(Pass::IntegrateSecondHalf, every)?),
        };
        // Last after the gather, once the force and torque on every body are complete; in the
        // steps only: the initial forces are not booked (see `kinematic_power`).
        let mut booked = Vec::new();
        for &pass in &ids.schedule.booked {
            booked.push(self.pass_op(pass, every)?);
        }
        let fused = ids.gather_kick.map(|k| (k, every.slot(g)));
        let mut end = Vec::new();
        match fused {
            Some((k, size)) => end.push(self.op(k, &[], size)?),
            None => {
                end.extend(gathered.iter().map(dup));
                end.extend(booked);
                end.extend(second_half);
            }
        }
        Ok((gathered, end))
    }
}

/// The every-step dispatch slots of a plan as it is built: each one's workgroups, in slot
/// order after `base`.
pub(super) struct EverySlots {
    base: u32,
    groups: Vec<u32>,
}

impl EverySlots {
    /// A new every-step slot of `g` workgroups.
    pub(super) fn slot(&mut self, g: u32) -> Size {
        self.groups.push(g);
        Size::Indirect(self.base + self.groups.len() as u32 - 1)
    }
}

use crate::kernel::Windows;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The least common multiple: the smallest size that is whole elements of both.
pub(super) fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

/// A copy of a recorded dispatch (its bind groups are shared).
pub(super) fn dup(op: &Op) -> Op {
    Op {
        kernel: op.kernel,
        pipeline: op.pipeline.clone(),
        splits: op.splits.clone(),
        groups: op.groups.clone(),
        size: op.size,
        bound: op.bound.clone(),
    }
}

impl GpuBackend {
    /// Dispatch sizes of slots `which` as the plan has them (fixed workgroup counts): the
    /// every-step slots, which a freeze zeroes and the host writes back before recording again,
    /// or the rebuild passes after the guard, for a step taken again from its guard.
    pub(super) fn write_plan_args(&self, which: impl IntoIterator<Item = u32>) {
        for s in which {
            let (x, y) = crate::program::split(self.program.plan_slots[s as usize], self.max_dim());
            self.ctx.queue.write_buffer(
                &self.arrays.bufs["args"],
                16 * s as u64,
                bytemuck::cast_slice(&[x, y, 1, 0]),
            );
        }
    }

    /// The every-step slots.
    pub(super) fn every_slots(&self) -> std::ops::Range<u32> {
        self.every_base()..self.program.plan_slots.len() as u32
    }

    /// The sizes of the dispatches over a list of `records` records (the contact chains of the
    /// list, which keep their size between rebuilds), as `guard` sets them.
    pub(super) fn write_list_args(&self, records: u64) {
        for &(k, _, slot) in &self.program.ids.contact {
            let Some(slot) = slot else { continue };
            let (x, y) = crate::program::split(
                records.div_ceil(self.threads(k) as u64) as u32,
                self.max_dim(),
            );
            self.ctx.queue.write_buffer(
                &self.arrays.bufs["args"],
                16 * slot as u64,
                bytemuck::cast_slice(&[x, y, 1, 0]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The control kernels, as the pass and chain kernels are in the shaders' tests, validate
    /// with every array they bind split in three windows of 7 elements (for buffers larger than
    /// a storage binding), and with those they do not update atomically in three textures: an
    /// access the rewrite cannot turn into a call fails here, not on a large run.
    #[test]
    fn control_kernels_validate_with_their_arrays_split() {
        let entries: Vec<&str> = CONTROL_WGSL
            .lines()
            .filter_map(|l| l.strip_prefix("//!entry "))
            .collect();
        assert!(entries.contains(&"commit_particles"), "{entries:?}");
        for entry in entries {
            let src = control_source(entry).unwrap_or_else(|e| panic!("{e}"));
            let module = grains_shaders::validate(&src, entry).unwrap_or_else(|e| panic!("{e}"));
            let splits: Vec<grains_shaders::ArraySplit> = grains_shaders::module_bindings(&module)
                .into_iter()
                // `args` and `control` are a few words a dispatch slot, never past a binding.
                .filter(|b| b.stride > 0 && b.name != "args" && b.name != "control")
                .map(|b| grains_shaders::ArraySplit {
                    name: b.name,
                    chunk: 7,
                    parts: 3,
                })
                .collect();
            let split = grains_shaders::split_arrays(entry, &src, &splits)
                .unwrap_or_else(|e| panic!("{e}"));
            grains_shaders::validate(&split, entry).unwrap_or_else(|e| panic!("{e}\n{split}"));
            // And with those it does not update atomically held in textures.
            let plain: Vec<grains_shaders::ArraySplit> = splits
                .into_iter()
                .filter(|s| {
                    grains_shaders::module_bindings(&module)
                        .iter()
                        .any(|b| b.name == s.name && !b.type_name.contains("atomic"))
                })
                .collect();
            let held = grains_shaders::texture_arrays(entry, &src, &plain)
                .unwrap_or_else(|e| panic!("{e}"));
            grains_shaders::validate(&held, entry).unwrap_or_else(|e| panic!("{e}\n{held}"));
        }
    }
}
