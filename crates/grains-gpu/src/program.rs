//! Recorded dispatch sequences: a kernel, its bind groups and how many workgroups to run.

use crate::kernel::Kernel;

/// How a dispatch is sized.
#[derive(Clone, Copy, Debug)]
pub enum Size {
    /// A host-known workgroup count.
    Direct(u32),
    /// Read from slot `k` of the indirect-arguments buffer, written on the device.
    Indirect(u32),
}

/// One dispatch.
pub struct Op {
    pub kernel: usize,
    /// The pipeline of the kernel composed with its arrays split over several bindings, where
    /// a buffer it binds is larger than a binding (`Kernel::split`); `None` for the kernel's.
    pub pipeline: Option<wgpu::ComputePipeline>,
    /// The arrays split for that pipeline, with their parts.
    pub splits: Vec<grains_shaders::ArraySplit>,
    pub groups: Vec<wgpu::BindGroup>,
    pub size: Size,
    /// `(whether the kernel writes it, buffer name)` of each binding, for the traffic count
    /// of `grains bench --profile`.
    pub bound: Vec<(bool, &'static str)>,
}

/// Record `ops` into a compute pass.
pub fn record(
    pass: &mut wgpu::ComputePass<'_>,
    kernels: &[Kernel],
    ops: &[Op],
    args: &wgpu::Buffer,
    max_dim: u32,
) {
    for op in ops {
        if let Size::Direct(0) = op.size {
            continue;
        }
        dispatch(pass, kernels, op, args, max_dim);
    }
}

/// Bind and dispatch one op in `pass`.
fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    kernels: &[Kernel],
    op: &Op,
    args: &wgpu::Buffer,
    max_dim: u32,
) {
    pass.set_pipeline(op.pipeline.as_ref().unwrap_or(&kernels[op.kernel].pipeline));
    for (i, g) in op.groups.iter().enumerate() {
        pass.set_bind_group(i as u32, g, &[]);
    }
    match op.size {
        Size::Direct(g) => {
            let (x, y) = split(g, max_dim);
            pass.dispatch_workgroups(x, y, 1)
        }
        Size::Indirect(slot) => pass.dispatch_workgroups_indirect(args, slot as u64 * 16),
    }
}

/// Record one dispatch into its own compute pass, with timestamps at the pass's beginning and
/// end at query indices `at` and `at + 1` (the profiler's form of [`record`]).
pub fn record_timed(
    enc: &mut wgpu::CommandEncoder,
    kernels: &[Kernel],
    op: &Op,
    args: &wgpu::Buffer,
    max_dim: u32,
    queries: &wgpu::QuerySet,
    at: u32,
) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(&kernels[op.kernel].label),
        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
            query_set: queries,
            beginning_of_pass_write_index: Some(at),
            end_of_pass_write_index: Some(at + 1),
        }),
    });
    dispatch(&mut pass, kernels, op, args, max_dim);
}

/// `g` workgroups as an (x, y) grid within the per-dimension limit (the passes number their
/// invocations row by row, see shaders/lib/dispatch.wgsl, and skip the surplus).
pub fn split(g: u32, max_dim: u32) -> (u32, u32) {
    let x = g.min(max_dim);
    if x == 0 {
        return (0, 1);
    }
    (x, g.div_ceil(x))
}
