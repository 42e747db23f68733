// CPU twin: crates/grains-core/src/kernels/shell/node_to_segment.rs
//
// A slave node against a master segment x0 -> x1 of a ring (interior on the left), from
// r0 = x0 - x_A and r1 = x1 - x_A, with m0, m1 the pseudonormals of its nodes: projection
// parameter s, signed closest approach d (negative inside; at a node, signed by its
// pseudonormal), and g = dd/dx_A.

struct NodeSegment {
    s: f32,
    d: f32,
    g: vec3<f32>,
}

fn segment_normal(x0: vec3<f32>, x1: vec3<f32>) -> vec3<f32> {
    let t = vec3<f32>(x1.x - x0.x, x1.y - x0.y, 0.0);
    return vec3<f32>(t.y, -t.x, 0.0) / sqrt(t.x * t.x + t.y * t.y);
}

fn resolve_node_to_segment(r0: vec3<f32>, r1: vec3<f32>, m0: vec3<f32>, m1: vec3<f32>) -> NodeSegment {
    let t = vec3<f32>(r1.x - r0.x, r1.y - r0.y, 0.0);
    let l2 = t.x * t.x + t.y * t.y;
    let n = segment_normal(r0, r1);
    let a0 = vec3<f32>(-r0.x, -r0.y, 0.0);
    let s = dot(a0, t) / l2;
    if (s > 0.0 && s < 1.0) {
        return NodeSegment(s, dot(n, a0), n);
    }
    var r = a0;
    var m = m0;
    if (s > 0.0) {
        r = vec3<f32>(-r1.x, -r1.y, 0.0);
        m = m1;
    }
    var sign = 1.0;
    if (dot(m, r) < 0.0) {
        sign = -1.0;
    }
    let dist = length(r);
    var g = n;
    if (dist > 0.0) {
        g = sign * r / dist;
    }
    return NodeSegment(s, sign * dist, g);
}
