// CPU twin: crates/grains-core/src/kernels/walls/cylinder.rs
//!include lib/types.wgsl

// Exact: the distance from the axis less the radius.
fn cylinder_distance_bound(w: Wall, a: f32, rho: f32) -> f32 {
    return abs(rho - w.radius);
}
