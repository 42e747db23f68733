//! Errors of the GPU backend.

use thiserror::Error;

/// What can go wrong when setting up or running the GPU backend.
#[derive(Debug, Error)]
pub enum GpuError {
    /// A saved state that does not fit the scene it is restored into.
    #[error("cannot resume on the GPU: {0}")]
    State(String),
    /// `--adapter` named no adapter wgpu sees.
    #[error("--adapter {asked}: no such adapter; wgpu sees {list} (`grains info` lists them)")]
    UnknownAdapter { asked: String, list: String },
    /// The implicit solve stopped the run (no convergence, or a matrix not positive definite).
    #[error("{0}")]
    Solve(grains_core::CoreError),
    /// No adapter matched the request.
    #[error("no GPU adapter found{detail} (install a Vulkan driver, or Mesa's lavapipe for a CPU fallback)")]
    NoAdapter {
        /// What was asked for, for the message.
        detail: String,
    },
    /// The adapter refused to create a device.
    #[error("the adapter \"{adapter}\" refused to create a device: {message}")]
    Device { adapter: String, message: String },
    /// A buffer is larger than the device allows in one binding or one allocation.
    #[error(
        "buffer \"{buffer}\" needs {size} bytes for {particles} particles, over the device's \
         {limit_name} of {limit} bytes, so at most about {} particles fit; run fewer particles, \
         the CPU backend, or a device with larger limits",
        (*limit as u128 * (*particles).max(1) as u128 / (*size).max(1) as u128)
    )]
    BufferTooLarge {
        buffer: String,
        size: u64,
        limit_name: &'static str,
        limit: u64,
        particles: usize,
    },
    /// A kernel needs more of some per-stage resource than the device offers.
    #[error(
        "kernel \"{kernel}\" needs {needed} {what}, the device allows {limit}; run fewer \
         particles, the CPU backend, or a device with larger limits"
    )]
    KernelLimit {
        kernel: String,
        what: &'static str,
        needed: u64,
        limit: u64,
    },
    /// A kernel would bind more storage buffers than a shader stage may, once its arrays
    /// past a storage binding are counted as the windows they are bound in: what one
    /// dispatch can reach is the device's storage buffers a stage times its binding size.
    #[error(
        "kernel \"{kernel}\" would bind {needed} storage buffers for {particles} particles \
         ({windows}, each window at most {}, the device's storage binding), and the device \
         allows {limit} in a shader stage, so one dispatch reaches at most {}: about {fit} \
         particles of this scene fit; run at most that many, the CPU backend, or a device with \
         more storage buffers a stage",
        size_text(*binding),
        size_text(binding * limit)
    )]
    KernelReach {
        kernel: String,
        needed: u64,
        limit: u64,
        particles: usize,
        /// The arrays bound as windows, e.g. `history in 6 windows, slots in 6 windows`.
        windows: String,
        /// Bytes a storage binding holds.
        binding: u64,
        /// About how many particles of the scene the kernel could bind (its arrays scaled in
        /// proportion).
        fit: u64,
    },
    /// A dispatch would need more workgroups than one dimension allows.
    #[error(
        "{what} needs {groups} workgroups in one dimension, over the device's limit of {limit} \
         ({particles} particles)"
    )]
    TooManyWorkgroups {
        what: String,
        groups: u64,
        limit: u32,
        particles: usize,
    },
    /// The shaders crate could not compose or validate a kernel.
    #[error("shader \"{label}\": {message}")]
    Shader { label: String, message: String },
    /// A kernel declares a binding the backend has no buffer for (a contract mismatch between
    /// the WGSL and the CPU twin's parameter names).
    #[error("kernel \"{kernel}\" declares binding \"{name}\" (group {group}, binding {binding}), which the GPU backend does not provide")]
    UnknownBinding {
        kernel: String,
        name: String,
        group: u32,
        binding: u32,
    },
    /// The device reported a validation or out-of-memory error.
    #[error("device error in {context}: {message}")]
    Validation { context: String, message: String },
    /// The core library rejected the world.
    #[error(transparent)]
    Core(#[from] grains_core::CoreError),
    /// Reading a buffer back failed.
    #[error("reading buffer \"{0}\" back from the device failed")]
    Readback(String),
}

/// `bytes` as whole MiB, or as bytes below one.
pub(crate) fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} B")
    }
}
