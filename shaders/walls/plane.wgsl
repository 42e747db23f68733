// CPU twin: crates/grains-core/src/kernels/walls/plane.rs
//!include lib/types.wgsl

// The signed height above the plane.
fn plane_distance_bound(w: Wall, a: f32, rho: f32) -> f32 {
    return a;
}
