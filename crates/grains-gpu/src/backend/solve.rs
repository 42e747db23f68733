//! The implicit dynamics' solve on the device (shaders/lib/solve.wgsl): its kernels, buffers
//! and recorded dispatches, and the host's side of a solve that needs more iterations than a
//! step records.
//!
//! A step of an implicit world ends, after the gather, with the solve instead of the second
//! half: `solve_assemble`, `solve_start` and `solve_begin`, then `iterations` times the five
//! dispatches of an iteration (`solve_apply`, `solve_alpha`, `solve_update`, `solve_beta`,
//! `solve_direction`), `solve_check`, and in a step `solve_book`, then `solve_finish`. A solve
//! that converges turns the iteration passes' dispatches to nothing for the rest of its step
//! (their indirect sizes zeroed), so the iterations recorded past it cost an empty dispatch
//! each. One that has not converged when `solve_check` runs freezes the batch: the host records
//! more iterations, the check and the step's end, and goes on (every vector and scalar stays on
//! the device); at the iteration cap, or on a direction along which the matrix is not positive,
//! the run stops with the step, the iterations and the residual. The host sizes the iterations
//! a step records from the most a solve needed lately.

use super::plan::{dup, groups};
use super::*;
use crate::program::{Op, Size};
use grains_core::kernel_types::{MatBlock, SolveParams, SymBlock};

/// The solve's kernels.
pub(super) struct SolveKernels {
    assemble: usize,
    start: usize,
    begin: usize,
    apply: usize,
    alpha: usize,
    update: usize,
    beta: usize,
    direction: usize,
    check: usize,
    book: usize,
    finish: usize,
}

/// Compile the solve's passes and control kernels.
pub(super) fn compile(
    ctx: &GpuContext,
    add: &mut dyn FnMut(Kernel) -> usize,
) -> Result<SolveKernels, GpuError> {
    let ctl = |name: &str| Kernel::new(ctx, name, &plan::control_source(name)?, name);
    Ok(SolveKernels {
        assemble: add(plan::pass_kernel(ctx, "solve_assemble")?),
        start: add(plan::pass_kernel(ctx, "solve_start")?),
        begin: add(ctl("solve_begin")?),
        apply: add(plan::pass_kernel(ctx, "solve_apply")?),
        alpha: add(ctl("solve_alpha")?),
        update: add(plan::pass_kernel(ctx, "solve_update")?),
        beta: add(ctl("solve_beta")?),
        direction: add(plan::pass_kernel(ctx, "solve_direction")?),
        check: add(ctl("solve_check")?),
        book: add(plan::pass_kernel(ctx, "solve_book")?),
        finish: add(plan::pass_kernel(ctx, "solve_finish")?),
    })
}

/// The solve's recorded dispatches (their bind groups made once per plan).
pub(super) struct SolveOps {
    /// Assembly, start and `solve_begin`.
    head: Vec<Op>,
    /// One iteration's five dispatches.
    iteration: Vec<Op>,
    check: Op,
    /// None in the static mode, whose steps book nothing.
    book: Option<Op>,
    finish: Op,
    /// The every-step slots of solve_apply, solve_update and solve_direction.
    slots: [u32; 3],
}

/// The host's side of the solves: the iterations a step records and what the device counted.
#[derive(Default)]
pub(super) struct SolveTally {
    /// Iterations each step records before `solve_check`.
    pub(super) recorded: u32,
    /// Whether a solve needed more than that since the last resizing.
    pub(super) ran_over: bool,
    /// The most iterations one solve took since the last resizing of the recorded ones.
    pub(super) most: u32,
    pub(super) solves: u64,
    pub(super) iterations: u64,
}

/// Iterations a step records at first, and the multiple they are rounded to.
const FIRST_RECORDED: u32 = 32;
const RECORDED_STEP: u32 = 8;

impl SolveOps {
    /// The solve's dispatches as a step (`book`) or the initial forces record them, with
    /// `iterations` iterations before the check.
    pub(super) fn sequence(&self, iterations: u32, book: bool) -> Vec<Op> {
        let mut out: Vec<Op> = self.head.iter().map(dup).collect();
        out.extend(self.more(iterations, book));
        out
    }

    /// What follows a frozen check: `iterations` more, the check, and the step's end.
    pub(super) fn more(&self, iterations: u32, book: bool) -> Vec<Op> {
        let mut out = Vec::new();
        for _ in 0..iterations {
            out.extend(self.iteration.iter().map(dup));
        }
        out.push(dup(&self.check));
        if book {
            out.extend(self.book.iter().map(dup));
        }
        out.push(dup(&self.finish));
        out
    }
}

impl GpuBackend {
    /// The solve's arrays: its constants, each material's drag, each chain's matrix record
    /// offset, the shells' edge viscosity (`shell_viscosity`, per edge), the fixed pairs'
    /// blocks, the vectors and the scalars.
    pub(super) fn create_solve_buffers(&mut self, shell_viscosity: &[f32]) -> Result<(), GpuError> {
        use bytemuck::cast_slice;
        let none = wgpu::BufferUsages::empty();
        let w = &self.world;
        let params = SolveParams::of(w);
        let drag: Vec<[f32; 4]> = w
            .materials
            .iter()
            .map(|m| {
                [
                    m.drag.translational as f32,
                    m.drag.rotational as f32,
                    0.0,
                    0.0,
                ]
            })
            .collect();
        let offsets: Vec<u32> = grains_core::cpu::solve::matrix_offsets(&w.table)
            .into_iter()
            .map(|o| o.map_or(u32::MAX, |o| o as u32))
            .collect();
        let (n, nf) = (self.n as u64, w.fixed_pairs.len() as u64);
        let params = bytemuck::bytes_of(&params).to_vec();
        self.upload("solve_params", &params, 0, wgpu::BufferUsages::UNIFORM)?;
        self.upload("material_drag", cast_slice(&drag), 16, none)?;
        self.upload("matrix_offset", cast_slice(&offsets), 4, none)?;
        self.upload("shell_viscosity", cast_slice(shell_viscosity), 4, none)?;
        let vec4 = 16 * n.max(1);
        // Partials of dispatches split over a grid: up to one row's surplus more.
        let partials = 16 * (groups(n, 64) + self.max_dim() as u64);
        let zeroed: [(&'static str, u64); 8] = [
            (
                "mat_fixed",
                std::mem::size_of::<MatBlock>() as u64 * nf.max(1),
            ),
            ("solve_x", vec4),
            ("solve_r", vec4),
            ("solve_p", vec4),
            ("solve_q", vec4),
            (
                "solve_pre",
                std::mem::size_of::<SymBlock>() as u64 * n.max(1),
            ),
            ("solve_partials", partials),
            ("solve", 4 * SOLVE_WORDS as u64),
        ];
        for (name, size) in zeroed {
            let segments = self.make_storage(name, size, false)?;
            self.set_array(name, segments);
        }
        let cap = self.world.dynamics.max_iterations.max(1);
        self.solve_tally.recorded = FIRST_RECORDED.min(cap);
        Ok(())
    }

    /// The solve's dispatches, with every-step slots for its passes.
    pub(super) fn solve_ops(
        &self,
        k: &SolveKernels,
        every: &mut plan::EverySlots,
    ) -> Result<SolveOps, GpuError> {
        let n = self.n as u64;
        let nf = self.world.fixed_pairs.len() as u64;
        let mut slot = |what: &str, kernel: usize, items: u64| -> Result<Size, GpuError> {
            let g = self.check_groups(what, groups(items, self.threads(kernel)))?;
            Ok(every.slot(g))
        };
        let assemble = slot("solve_assemble", k.assemble, n.max(nf))?;
        let start = slot("solve_start", k.start, n)?;
        let apply = slot("solve_apply", k.apply, n)?;
        let update = slot("solve_update", k.update, n)?;
        let direction = slot("solve_direction", k.direction, n)?;
        let book = slot("solve_book", k.book, n)?;
        let finish = slot("solve_finish", k.finish, n)?;
        let index = |s: Size| match s {
            Size::Indirect(i) => i,
            Size::Direct(_) => unreachable!("every-step slots are indirect"),
        };
        let one = Size::Direct(1);
        let is_static = self.world.dynamics.mode == grains_core::dynamics::Mode::Static;
        Ok(SolveOps {
            head: vec![
                self.op(k.assemble, &[], assemble)?,
                self.op(k.start, &[], start)?,
                self.op(k.begin, &[], one)?,
            ],
            iteration: vec![
                self.op(k.apply, &[], apply)?,
                self.op(k.alpha, &[], one)?,
                self.op(k.update, &[], update)?,
                self.op(k.beta, &[], one)?,
                self.op(k.direction, &[], direction)?,
            ],
            check: self.op(k.check, &[], one)?,
            book: if is_static {
                None
            } else {
                Some(self.op(k.book, &[], book)?)
            },
            finish: self.op(k.finish, &[], finish)?,
            slots: [index(apply), index(update), index(direction)],
        })
    }

    /// The solve's fixed words: its passes' slots, the partials they write, the iteration cap
    /// and the squared tolerance.
    pub(super) fn write_solve_words(&self, ops: &SolveOps) {
        let d = &self.world.dynamics;
        let (x, y) = crate::program::split(groups(self.n as u64, 64) as u32, self.max_dim());
        let tol2 = ((d.tolerance * d.tolerance) as f32).to_bits();
        let q = &self.ctx.queue;
        let buf = &self.arrays.bufs["solve"];
        q.write_buffer(
            buf,
            4 * SW_SLOT_APPLY as u64,
            bytemuck::cast_slice(&ops.slots),
        );
        // SW_GROUPS, SW_MAX_ITER, SW_TOL2 follow one another.
        q.write_buffer(
            buf,
            4 * SW_GROUPS as u64,
            bytemuck::cast_slice(&[x * y, d.max_iterations, tol2]),
        );
    }

    /// The kernels of an iteration (none outside an implicit world).
    pub(super) fn solve_iteration_kernels(&self) -> Vec<usize> {
        match &self.program.ids.solve {
            Some(k) => vec![k.apply, k.alpha, k.update, k.beta, k.direction],
            None => Vec::new(),
        }
    }

    /// After a thawed check: the recorded iterations again, the check and the step's end (the
    /// initial forces' without the booking).
    pub(super) fn record_solve_more(&self, initial: bool) {
        if let Some(ops) = &self.program.solve_ops {
            self.record_ops(&ops.more(self.solve_tally.recorded, !initial));
        }
    }

    /// Take the device's solve counts from `words` (the `solve` buffer read back) and clear
    /// them there.
    pub(super) fn take_solve_counts(&mut self, words: &[u32]) {
        let t = &mut self.solve_tally;
        t.solves += words[SW_SOLVES as usize] as u64;
        t.iterations += words[SW_ITER_TOTAL as usize] as u64;
        let most = words[SW_ITER_MAX as usize];
        t.ran_over |= most > t.recorded;
        t.most = t.most.max(most);
        self.ctx.queue.write_buffer(
            &self.arrays.bufs["solve"],
            4 * SW_SOLVES as u64,
            bytemuck::cast_slice(&[0u32; 3]),
        );
    }

    /// After a batch: record as many iterations a step as the most a solve needed lately, with
    /// a quarter and 4 more, in multiples of 8 (at least 8, at most the cap): more after a
    /// solve ran over, fewer when most of them go unused.
    pub(super) fn size_recorded_iterations(&mut self) -> Result<(), GpuError> {
        let t = &mut self.solve_tally;
        let most = std::mem::take(&mut t.most);
        if most == 0 {
            return Ok(());
        }
        let cap = self.world.dynamics.max_iterations.max(1);
        let want = (most + most / 4 + 4)
            .next_multiple_of(RECORDED_STEP)
            .clamp(RECORDED_STEP, cap);
        let over = std::mem::take(&mut t.ran_over);
        if (over && want > t.recorded) || want * 2 < t.recorded {
            t.recorded = want;
            self.build_ops()?;
        }
        Ok(())
    }

    /// A frozen check, with the solve's words `words`: Ok for a solve still running (the host
    /// thaws the batch and records more, [`GpuBackend::record_solve_more`]), or the run's
    /// error for one that ended without converging.
    pub(super) fn solve_frozen(&mut self, words: &[u32], step: u64) -> Result<(), GpuError> {
        let state = words[SW_STATE as usize];
        if state == SOLVE_RUNNING {
            self.solve_tally.ran_over = true;
            return Ok(());
        }
        let f = |w: u32| f32::from_bits(words[w as usize]) as f64;
        let residual = (f(SW_RR) / f(SW_SCALE2).max(f64::MIN_POSITIVE)).sqrt();
        let cause = if state == SOLVE_INDEFINITE {
            "the matrix lost positive definiteness (a compressed spring's transverse \
             stiffness, or a stiffness too large for the drag at this dt)"
        } else {
            "the matrix is ill-conditioned: a particle with almost no drag, or stiffness and \
             drag many orders of magnitude apart; raise max_iterations or the drag (the GPU \
             solves in f32: a tolerance under about 1e-7 may not be reachable)"
        };
        Err(GpuError::Solve(grains_core::CoreError::SolveFailed {
            step,
            iterations: words[SW_ITER as usize],
            residual,
            tolerance: self.world.dynamics.tolerance,
            cause: cause.into(),
        }))
    }
}
