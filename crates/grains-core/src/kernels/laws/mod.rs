//! Force laws. Each `law_<name>(geom, params, history, force)` only adds into the
//! [`crate::gpu_types::ContactForce`]; a chain is the ordered list of calls.
//! Laws are called only while the pair is within the chain's interaction range.

pub mod cundall_strack;
pub mod hertz;
pub mod hertz_damped;
pub mod linear;
pub mod viscous;

pub use cundall_strack::law_cundall_strack;
pub use hertz::law_hertz;
pub use hertz_damped::law_hertz_damped;
pub use linear::law_linear;
pub use viscous::law_viscous;
