// CPU twin: crates/grains-core/src/kernels/walls/cone.rs
//!include lib/types.wgsl

// The distance to the cone's generating line in the point's meridian plane: at most the
// distance to the surface.
fn cone_distance_bound(w: Wall, a: f32, rho: f32) -> f32 {
    return abs(rho - (w.radius + w.slope * a)) / sqrt(1.0 + w.slope * w.slope);
}
