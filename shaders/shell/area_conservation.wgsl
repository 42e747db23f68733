// CPU twin: crates/grains-core/src/kernels/shell/area_conservation.rs
//
// A ring segment's share of the enclosed area (shoelace, z ignored) and the gradient of that
// share at one of its corners (0: start, 1: end), r the other end measured from the corner.

fn segment_area(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return 0.5 * (a.x * b.y - a.y * b.x);
}

fn segment_area_gradient(corner: u32, r: vec3<f32>) -> vec3<f32> {
    if (corner == 0u) {
        return 0.5 * vec3<f32>(r.y, -r.x, 0.0);
    }
    return 0.5 * vec3<f32>(-r.y, r.x, 0.0);
}
