//! grains-gpu: the DEM step on a GPU through wgpu.
//!
//! - [`GpuContext`]: adapter choice and a device opened with the adapter's own limits.
//! - [`GpuBackend`]: the world resident on the device, stepped by the WGSL twins of the CPU
//!   kernels with no read-back per step (docs/architecture.md, "One time step").
//! - [`kernel`]: pipelines whose bind groups are built by binding name, from reflection.

mod backend;
mod device;
mod error;
pub mod kernel;
pub mod memory;
mod program;

pub use backend::{GpuBackend, GpuOptions, PassProfile, StepProfile};
pub use device::{list_adapters, AdapterChoice, AdapterRequest, AdapterSummary, GpuContext};
pub use error::GpuError;
