//! grains-core: everything of the DEM solver that does not need a GPU.
//!
//! - [`kernel_types`]: `#[repr(C)]` Pod mirrors of the WGSL structs, the types both backends' kernels use.
//! - [`registry`]: [`ResolverKind`], [`LawKind`], [`ChainSpec`], generated from one table.
//! - [`law`]: what a force law module provides; [`parity`]: random parity inputs.
//! - [`kernels`]: CPU twins of every WGSL kernel (resolvers, laws, passes).
//! - [`world`], [`materials`]: the state to simulate and the per-material-pair table.
//! - [`cpu`]: the CPU backend; [`backend`]: the interface both backends share.
//! - [`external`]: forces applied and particles fixed or released between steps.
//! - [`timestep`], [`restitution`]: derived figures; [`units`]: how messages print quantities.

pub mod backend;
pub mod cells;
pub mod cpu;
pub mod dynamics;
pub mod error;
pub mod external;
pub mod insert;
pub mod kernel_types;
pub mod kernels;
pub mod law;
pub mod material;
pub mod materials;
pub mod mesh_walls;
pub mod overlaps;
pub mod parity;
pub mod post;
pub mod registry;
pub mod restitution;
pub mod rings;
pub mod schedule;
pub mod servo;
pub mod shapes;
pub mod shells;
pub mod stage;
pub mod state;
pub mod stress;
pub mod timestep;
pub mod units;
pub mod wgsl_constants;
pub mod world;

pub use backend::{
    Backend, ContactCount, ContactRecord, Counters, EnergyReport, Fault, Snapshot, SourceSlots,
};
pub use cpu::CpuBackend;
pub use error::CoreError;
pub use registry::{ChainLayout, ChainSpec, LawKind, LawSpec, ResolverKind, Slot};
pub use state::BackendState;
pub use world::{Domain, Particles, World};
