// CPU twin: crates/grains-core/src/kernels/walls/disk.rs
//!include lib/types.wgsl

// Exact: to the face within the radius, to the rim beyond it.
fn disk_distance_bound(w: Wall, a: f32, rho: f32) -> f32 {
    let out = max(rho - w.radius, 0.0);
    return sqrt(a * a + out * out);
}
