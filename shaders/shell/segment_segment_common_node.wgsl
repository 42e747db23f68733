// CPU twin: crates/grains-core/src/kernels/shell/segment_segment_common_node.rs
//
// A ring node's signed turning angle in the plane z = 0 and its gradient for the three nodes
// x1 -> x2 -> x3, from e1 = x2 - x1, e2 = x3 - x2.

struct TurnGeom {
    theta: f32,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
}

fn polar_gradient(e: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(-e.y, e.x, 0.0) / (e.x * e.x + e.y * e.y);
}

fn resolve_segment_segment_common_node(e1: vec3<f32>, e2: vec3<f32>) -> TurnGeom {
    let theta = atan2(e1.x * e2.y - e1.y * e2.x, e1.x * e2.x + e1.y * e2.y);
    let g1 = polar_gradient(e1);
    let g3 = polar_gradient(e2);
    let g2 = -(g1 + g3);
    return TurnGeom(theta, g1, g2, g3);
}
