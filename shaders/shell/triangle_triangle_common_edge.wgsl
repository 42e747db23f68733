// CPU twin: crates/grains-core/src/kernels/shell/triangle_triangle_common_edge.rs
//
// A hinge's signed angle and its gradient for the four nodes (common x1 -> x2, levers x3, x4),
// from e = x2 - x1, r3 = x3 - x1, r4 = x4 - x1.

struct HingeGeom {
    theta: f32,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
    g4: vec3<f32>,
}

fn resolve_triangle_triangle_common_edge(e: vec3<f32>, r3: vec3<f32>, r4: vec3<f32>) -> HingeGeom {
    let n1 = cross(e, r3);
    let n2 = cross(-e, r4 - e);
    let l = sqrt(dot(e, e));
    let a1 = n1 / dot(n1, n1);
    let a2 = n2 / dot(n2, n2);
    let theta = atan2(dot(cross(n1, n2), e) / l, dot(n1, n2));
    let g3 = -l * a1;
    let g4 = -l * a2;
    let g1 = -(dot(r3 - e, e) / l * a1 + dot(r4 - e, e) / l * a2);
    let g2 = dot(r3, e) / l * a1 + dot(r4, e) / l * a2;
    return HingeGeom(theta, g1, g2, g3, g4);
}
