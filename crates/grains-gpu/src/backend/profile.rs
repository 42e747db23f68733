//! `grains bench --profile`: where a GPU step's time and memory traffic go, pass by pass.
//!
//! While profiling, every dispatch of a step runs in its own compute pass with a timestamp at
//! its beginning and end (wgpu's `TIMESTAMP_QUERY`, which lavapipe has); without timestamps
//! each dispatch is submitted alone and timed on the host, which includes the submission's
//! overhead. The traffic of a pass is counted from the buffers it binds: the live length of
//! every array it reads (read-only bindings) and of every array it may write (read-write
//! bindings, counted as read and written), so it is what a pass streams if it touches each
//! element once; rebuild passes count at the share of steps that rebuilt.

use std::collections::BTreeMap;
use std::time::Instant;

use super::*;
use crate::program::{record_timed, Size};

/// Per-dispatch totals while profiling.
pub(super) struct Profiler {
    /// Nanoseconds per index of `step_ops`.
    nanos: Vec<f64>,
    steps: u64,
    timestamps: bool,
}

/// One pass (kernel) of the step, profiled.
#[derive(Clone, Debug)]
pub struct PassProfile {
    /// Kernel label (the pass's stem, or `chain <id> <name>` for a contact chain).
    pub label: String,
    /// Dispatches per step (rebuild passes: rebuilds per step).
    pub dispatches: f64,
    /// Time per step (s).
    pub seconds: f64,
    /// Bytes read per step.
    pub read: f64,
    /// Bytes written per step.
    pub written: f64,
}

/// A profiled run of the GPU step.
#[derive(Clone, Debug)]
pub struct StepProfile {
    pub steps: u64,
    pub particles: usize,
    pub rebuilds: u64,
    /// Whether the times are device timestamps (else host timings of lone submissions).
    pub timestamps: bool,
    /// Passes in the order of the step (a kernel dispatched several times is summed).
    pub passes: Vec<PassProfile>,
}

impl StepProfile {
    /// Bytes moved per particle-step (read plus written).
    pub fn bytes_per_particle_step(&self) -> f64 {
        let b: f64 = self.passes.iter().map(|p| p.read + p.written).sum();
        b / self.particles as f64
    }

    /// The throughput (particle-steps/s) a device of `bandwidth` bytes/s would reach if the
    /// step were bound by memory traffic alone.
    pub fn bandwidth_bound(&self, bandwidth: f64) -> f64 {
        bandwidth / self.bytes_per_particle_step()
    }
}

impl GpuBackend {
    /// Run `steps` steps with every dispatch timed, and count each pass's traffic.
    pub fn profile(&mut self, steps: u64) -> Result<StepProfile, GpuError> {
        let timestamps = self
            .ctx
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY);
        self.profiler = Some(Profiler {
            nanos: vec![0.0; self.program.step_ops.len()],
            steps: 0,
            timestamps,
        });
        let rebuilds0 = self.tally.rebuild_steps.len() as u64;
        let (solves0, iterations0) = (self.solve_tally.solves, self.solve_tally.iterations);
        let run = self.advance(steps, false);
        let prof = self.profiler.take();
        run?;
        let prof = prof.ok_or_else(|| GpuError::Readback("profile".into()))?;
        let rebuilds = self.tally.rebuild_steps.len() as u64 - rebuilds0;
        let timed = prof.steps.max(1) as f64;
        let share = rebuilds as f64 / steps.max(1) as f64;
        // The solve's iterations run as many times as it took, of the `recorded` each step
        // dispatches (the rest are empty).
        let solves = (self.solve_tally.solves - solves0).max(1) as f64;
        let iterations = (self.solve_tally.iterations - iterations0) as f64;
        let iteration_share = iterations / solves / self.solve_tally.recorded.max(1) as f64;
        let iteration_kernels = self.solve_iteration_kernels();
        let sizes = self.sizes();
        let chains: Vec<usize> = self.program.ids.contact.iter().map(|c| c.0).collect();
        let far = std::mem::size_of::<grains_core::kernels::sources::neighbour::FarSlot>();
        let words = self.world.table.nbr_history_words;
        let live = |name: &str, i: usize| -> f64 {
            let chain = chains.contains(&self.program.step_ops[i].kernel);
            match name {
                // What the list keeps of each packed slot, and its history unpadded.
                "slots" => return (far * self.contacts as usize) as f64,
                "history" => return (4 * words * self.contacts as usize) as f64,
                // The list's contact passes read a particle's mark only after a pass found too
                // few slots (shaders/lib/packed_slots.wgsl).
                "pos_comp" if chain => return 0.0,
                _ => {}
            }
            if let Some(a) = STATE_ARRAYS.iter().find(|a| a.name == name) {
                return (a.extent.len(&sizes) * a.elem) as f64;
            }
            match name {
                // A word for each pair that comes into or leaves contact, a few in a step.
                "free_slots" => 0.0,
                // A rebuild reads each slot's pair; the contact passes write a pair's when it
                // comes into contact, a few in a step.
                "slot_pair" if self.program.rebuild_ops.contains(&i) => 8.0 * self.contacts as f64,
                "slot_pair" => 0.0,
                "pair_j" => 4.0 * self.records as f64,
                // The broad phase's scratch, a word a particle, in buffers dead meanwhile.
                "particle_cell" | "sorted" | "nbr_count" | "own_count" => 4.0 * self.n as f64,
                "head_pair" => 4.0 * (self.total - self.records) as f64,
                "mat_block" => 32.0 * self.records as f64,
                // One vec4 per workgroup of 64, of a buffer sized for a grid's surplus.
                "solve_partials" => 16.0 * self.n.div_ceil(64) as f64,
                _ => self.array_bytes(name) as f64,
            }
        };
        let mut passes: Vec<PassProfile> = Vec::new();
        let mut at: BTreeMap<String, usize> = BTreeMap::new();
        for (i, op) in self.program.step_ops.iter().enumerate() {
            if let Size::Direct(0) = op.size {
                continue;
            }
            let label = self.program.kernels[op.kernel].label.clone();
            // Rebuild passes are sized on the device: zero workgroups unless the step rebuilds.
            let on_rebuild =
                self.program.rebuild_ops.contains(&i) && matches!(op.size, Size::Indirect(_));
            let runs = if on_rebuild {
                share
            } else if iteration_kernels.contains(&op.kernel) {
                iteration_share
            } else {
                1.0
            };
            let (mut read, mut written) = (0.0, 0.0);
            for &(writes, name) in &op.bound {
                let b = live(name, i);
                read += b;
                if writes {
                    written += b;
                }
            }
            let k = *at.entry(label.clone()).or_insert_with(|| {
                passes.push(PassProfile {
                    label,
                    dispatches: 0.0,
                    seconds: 0.0,
                    read: 0.0,
                    written: 0.0,
                });
                passes.len() - 1
            });
            let p = &mut passes[k];
            p.dispatches += runs;
            p.seconds += prof.nanos[i] * 1e-9 / timed;
            p.read += runs * read;
            p.written += runs * written;
        }
        Ok(StepProfile {
            steps,
            particles: self.n,
            rebuilds,
            timestamps: prof.timestamps,
            passes,
        })
    }

    /// `submit_steps` while profiling: each dispatch in its own timed pass.
    pub(super) fn submit_steps_timed(&mut self, k: u64) {
        let Some(mut prof) = self.profiler.take() else {
            return;
        };
        // Both parities' sequences have the same dispatches, in the same order.
        let ops: Vec<usize> = (0..self.program.step_ops.len())
            .filter(|&i| !matches!(self.program.step_ops[i].size, Size::Direct(0)))
            .collect();
        if prof.timestamps {
            // A query set holds at most 4096 timestamps: two per dispatch.
            let per_batch = (4096 / (2 * ops.len().max(1)) as u64).max(1);
            let mut left = k;
            while left > 0 {
                let batch = left.min(per_batch);
                let count = (2 * ops.len() as u64 * batch) as u32;
                let queries = self.ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("profile"),
                    ty: wgpu::QueryType::Timestamp,
                    count,
                });
                let resolved = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("profile timestamps"),
                    size: 8 * count as u64,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let mut enc = self.encoder();
                let mut q = 0;
                for _ in 0..batch {
                    let seq = &self.program.step_ops;
                    for &i in &ops {
                        record_timed(
                            &mut enc,
                            &self.program.kernels,
                            &seq[i],
                            &self.arrays.bufs["args"],
                            self.max_dim(),
                            &queries,
                            q,
                        );
                        q += 2;
                    }
                }
                enc.resolve_query_set(&queries, 0..count, &resolved, 0);
                let bytes = crate::device::read_back(
                    &self.ctx,
                    enc,
                    &[("profile timestamps", &resolved, 8 * count as u64)],
                )
                .ok()
                .and_then(|mut v| v.pop())
                .unwrap_or_default();
                let stamps: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
                let period = self.ctx.queue.get_timestamp_period() as f64;
                for (j, pair) in stamps.chunks_exact(2).enumerate() {
                    let i = ops[j % ops.len()];
                    prof.nanos[i] += pair[1].saturating_sub(pair[0]) as f64 * period;
                }
                left -= batch;
            }
        } else {
            for _ in 0..k {
                let seq = &self.program.step_ops;
                for &i in &ops {
                    let t0 = Instant::now();
                    let mut enc = self.encoder();
                    {
                        let mut pass = enc.begin_compute_pass(&Default::default());
                        crate::program::record(
                            &mut pass,
                            &self.program.kernels,
                            std::slice::from_ref(&seq[i]),
                            &self.arrays.bufs["args"],
                            self.max_dim(),
                        );
                    }
                    self.ctx.queue.submit([enc.finish()]);
                    let _ = self.ctx.device.poll(wgpu::PollType::wait_indefinitely());
                    prof.nanos[i] += t0.elapsed().as_nanos() as f64;
                }
            }
        }
        prof.steps += k;
        self.profiler = Some(prof);
        self.tally.steps += k;
    }
}
