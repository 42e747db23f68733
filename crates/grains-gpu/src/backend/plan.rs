//! The plan of a step: the kernels (passes, control kernels and one per contact chain), the
//! indirect-dispatch slots and the recorded sequences of dispatches with their bind groups.

use super::*;
use crate::program::{Op, Size};
use grains_core::kernels::sources::SourceKind;

/// The WGSL of one of this crate's control kernels: the common header plus its section.
pub(super) fn control_source(entry: &str) -> String {
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
    pub(super) integrate_first_half: usize,
    pub(super) decide: usize,
    pub(super) zero_cells: usize,
    pub(super) cell_count: usize,
    pub(super) prefix_sum: usize,
    pub(super) cursor: usize,
    pub(super) cell_scatter: usize,
    pub(super) pair_count: usize,
    pub(super) guard: usize,
    pub(super) pair_fill: usize,
    pub(super) pair_record: usize,
    /// Only a replay dispatches it ([`GpuBackend::restore`]).
    pub(super) list_owners: usize,
    pub(super) history_carry: usize,
    pub(super) commit_list: usize,
    pub(super) commit_particles: usize,
    /// (kernel, pair source, indirect slot for a rebuilt source) per chain, in table order.
    pub(super) contact: Vec<(usize, SourceKind, Option<u32>)>,
    pub(super) gather: usize,
    /// `shell_volume`, `shell_edges`, `shell_gather`, in a world with shells.
    pub(super) shell: Option<[usize; 3]>,
    /// `wall_motion`, `wall_power`, in a world with a moving wall.
    pub(super) moving: Option<[usize; 2]>,
    /// `clump_place`, `clump_gather`, in a world with clumps.
    pub(super) clumps: Option<[usize; 2]>,
    pub(super) integrate_second_half: usize,
}

impl KernelIds {
    /// Contact chains dispatched indirectly (over a rebuilt source), one indirect slot each.
    pub(super) fn indirect_contacts(&self) -> usize {
        self.contact.iter().filter(|c| c.2.is_some()).count()
    }
}

/// Workgroups of one scan over `count` elements: shaders/passes/prefix_sum.wgsl is a single
/// workgroup that walks the whole array in chunks, dispatched as exactly one group.
pub(super) fn prefix_groups_for(_k: &Kernel, _count: u64) -> u32 {
    1
}

impl GpuBackend {
    pub(super) fn threads(&self, k: usize) -> u32 {
        self.kernels[k].threads()
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
    /// capacity, and threads per group of the dispatches sized by the list total.
    pub(super) fn write_plan(&mut self) -> Result<(), GpuError> {
        let n = self.n as u64;
        let nc = self.n_cells as u64;
        let ids = &self.ids;
        let mut slots = vec![0u32; S_CONTACT as usize + ids.indirect_contacts()];
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
        slots[S_PAIR_RECORD as usize] = self.threads(ids.pair_record);
        slots[S_HISTORY_CARRY as usize] = self.threads(ids.history_carry);
        slots[S_COMMIT_LIST as usize] = self.threads(ids.commit_list);
        slots[S_COMMIT_PARTICLES as usize] =
            self.check_groups("commit_particles", groups(n + 1, 64))?;
        // Sized by the list total, at most the capacity: check the worst case now.
        let mut by_total = vec![
            ("pair_record", ids.pair_record),
            ("history_carry", ids.history_carry),
            ("commit_list", ids.commit_list),
        ];
        for &(k, _, slot) in &ids.contact {
            if let Some(slot) = slot {
                slots[slot as usize] = self.threads(k);
                by_total.push(("contact", k));
            }
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
        // plan[5] is unused: a rebuild no longer copies history (it stays packed in place).
        plan[6] = self.rec_capacity as u32;
        plan.extend_from_slice(&slots);
        self.ctx
            .queue
            .write_buffer(&self.bufs["plan"], 0, bytemuck::cast_slice(&plan));
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
        let mut map: BTreeMap<&str, &wgpu::Buffer> =
            self.bufs.iter().map(|(k, v)| (*k, v)).collect();
        for (binding, buffer) in alias {
            map.insert(binding, &self.bufs[buffer]);
        }
        let bound = self.kernels[k]
            .bindings
            .iter()
            .filter_map(|b| {
                let name = alias
                    .iter()
                    .find(|(a, _)| *a == b.name)
                    .map(|(_, buf)| *buf)
                    .or_else(|| self.bufs.keys().find(|n| **n == b.name).copied())?;
                Some((b.kind == crate::kernel::BindingKind::StorageReadWrite, name))
            })
            .collect();
        Ok(Op {
            kernel: k,
            groups: self.kernels[k].bind(&self.ctx, &map)?,
            size,
            bound,
        })
    }

    pub(super) fn build_ops(&mut self) -> Result<(), GpuError> {
        use Size::{Direct, Indirect};
        let ids = &self.ids;
        let n = self.n as u64;
        let rebuild = vec![
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
            // The owning counts' scan: where each particle's records start.
            self.op(
                ids.prefix_sum,
                &[
                    ("counts", "own_count"),
                    ("out", "new_pair_start"),
                    ("scan_len", "scan_len_nbr"),
                ],
                Indirect(S_PREFIX_NBR),
            )?,
            self.op(ids.guard, &[], Direct(1))?,
            self.op(
                ids.pair_fill,
                &[("nbr_start", "new_start"), ("nbr_j", "new_j")],
                Indirect(S_PAIR_FILL),
            )?,
            self.op(
                ids.pair_record,
                &[
                    ("nbr_start", "new_start"),
                    ("nbr_j", "new_j"),
                    ("pair_start", "new_pair_start"),
                ],
                Indirect(S_PAIR_RECORD),
            )?,
            self.op(
                ids.history_carry,
                &[
                    ("nbr_start", "new_start"),
                    ("nbr_j", "new_j"),
                    ("old_start", "nbr_start"),
                    ("old_j", "nbr_j"),
                    ("old_slot", "nbr_slot"),
                    ("nbr_slot", "new_slot"),
                    ("old_pair_start", "pair_start"),
                    ("pair_start", "new_pair_start"),
                ],
                Indirect(S_HISTORY_CARRY),
            )?,
            self.op(ids.commit_list, &[], Indirect(S_COMMIT_LIST))?,
            self.op(ids.commit_particles, &[], Indirect(S_COMMIT_PARTICLES))?,
        ];
        // The forces from an even step count [0] and from an odd one [1]: the list's contact
        // passes read last step's packed history from the buffer that holds it and write this
        // step's to the other (see `GpuBackend::history_at`).
        let mut forces = [Vec::new(), Vec::new()];
        let sizes = Sizes::of(
            &self.world,
            self.capacity as usize,
            self.rec_capacity as usize,
            self.slot_capacity as usize,
        );
        for &(k, src, slot) in &ids.contact {
            let size = match slot {
                Some(slot) => Indirect(slot),
                None => {
                    let items = if src.per_particle() {
                        self.world.particles.len()
                    } else {
                        sizes.slots(src)
                    };
                    Direct(self.check_groups("contact", groups(items as u64, self.threads(k)))?)
                }
            };
            for (parity, seq) in forces.iter_mut().enumerate() {
                let (read, write) = if src.in_list() {
                    (
                        GpuBackend::history_at(parity as u64),
                        GpuBackend::history_at(parity as u64 + 1),
                    )
                } else {
                    (src.history_array(), src.history_array())
                };
                // The template's generic bindings, bound to the source's own arrays.
                let alias = [
                    ("pair_chain", src.chain_map()),
                    ("pair_params", params_buffer(src)),
                    ("history", write),
                    ("history_in", read),
                    ("slots", src.slots_array()),
                    ("pair_active", src.active_array()),
                ];
                seq.push(self.op(k, &alias, size)?);
            }
        }
        let g = self.check_groups("gather", groups(n, self.threads(ids.gather)))?;
        for seq in &mut forces {
            seq.push(self.op(ids.gather, &[], Direct(g))?);
        }
        // The passes after the contact passes and the gather, the same from either parity.
        let mut tail = Vec::new();
        if let Some([volume, edges, gather]) = ids.shell {
            let sh = &self.world.shells;
            let counts = [
                ("shell_volume", volume, sh.shells.len() as u64),
                ("shell_edges", edges, sh.edges.len() as u64),
                ("shell_gather", gather, n),
            ];
            for (what, k, count) in counts {
                let g = self.check_groups(what, groups(count, self.threads(k)))?;
                tail.push(self.op(k, &[], Direct(g))?);
            }
        }
        let mut motion = Vec::new();
        if let Some([place, gather]) = ids.clumps {
            // Members follow their bodies after the drift, before any rebuild or contact;
            // bodies take their members' forces after the gather.
            let g = self.check_groups("clump_place", groups(n, self.threads(place)))?;
            motion.push(self.op(place, &[], Direct(g))?);
            let g = self.check_groups("clump_gather", groups(n, self.threads(gather)))?;
            tail.push(self.op(gather, &[], Direct(g))?);
        }
        if let Some([wall_motion, wall_power]) = ids.moving {
            let g = self.check_groups("wall_motion", groups(self.n_walls as u64, 64))?;
            motion.push(self.op(wall_motion, &[], Direct(g))?);
            let g = self.check_groups("wall_power", groups(n, self.threads(wall_power)))?;
            tail.push(self.op(wall_power, &[], Direct(g))?);
        }

        for seq in &mut forces {
            seq.extend(tail.iter().map(dup));
        }
        let g1 = self.check_groups(
            "integrate_first_half",
            groups(n, self.threads(ids.integrate_first_half)),
        )?;
        let g2 = self.check_groups(
            "integrate_second_half",
            groups(n, self.threads(ids.integrate_second_half)),
        )?;
        let mut head = vec![self.op(ids.integrate_first_half, &[], Direct(g1))?];
        head.append(&mut motion);
        let second_half = self.op(ids.integrate_second_half, &[], Direct(g2))?;
        // The same bind groups serve every sequence. The initial forces leave the state of
        // step 0, whose packed history is in `history`: the passes of an odd step count.
        self.init_ops = rebuild.iter().chain(&forces[1]).map(dup).collect();
        self.rebuild_ops = head.len()..head.len() + rebuild.len();
        self.step_ops = forces.map(|f| {
            head.iter()
                .chain(&rebuild)
                .chain(&f)
                .chain(std::iter::once(&second_half))
                .map(dup)
                .collect()
        });
        Ok(())
    }
}

/// A copy of a recorded dispatch (its bind groups are shared).
fn dup(op: &Op) -> Op {
    Op {
        kernel: op.kernel,
        groups: op.groups.clone(),
        size: op.size,
        bound: op.bound.clone(),
    }
}
