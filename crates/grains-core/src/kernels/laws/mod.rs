//! Force laws, one module each: its parameter and history structs, its scene keys, mixing,
//! range, time-step estimate, parity inputs (the [`crate::law::Law`] trait) and its CPU twin
//! `law_<name>(geom, params, [history,] force)`, which only adds into the
//! [`crate::gpu_types::ContactForce`]; a chain is the ordered list of calls. Laws are called
//! only while the pair is within the chain's interaction range. The registry table
//! (`crate::registry`) lists each law once.

pub mod cundall_strack;
pub mod hertz;
pub mod hertz_damped;
pub mod linear;
pub mod viscous;
