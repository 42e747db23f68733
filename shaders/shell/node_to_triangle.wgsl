// CPU twin: crates/grains-core/src/kernels/shell/node_to_triangle.rs
//
// A slave node against a master triangle (counter-clockwise seen from outside), corners
// measured from the slave: the closest point's barycentric weights and region (Ericson 5.1.5),
// and the signed approach by the region's pseudonormal m.

const FACE: u32 = 0u;
const VERTEX: u32 = 1u;
const EDGE: u32 = 4u;

struct TriangleClosest {
    w: vec3<f32>,
    region: u32,
}

fn closest_on_triangle(r0: vec3<f32>, r1: vec3<f32>, r2: vec3<f32>) -> TriangleClosest {
    let ab = r1 - r0;
    let ac = r2 - r0;
    let ap = -r0;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return TriangleClosest(vec3<f32>(1.0, 0.0, 0.0), VERTEX);
    }
    let bp = -r1;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return TriangleClosest(vec3<f32>(0.0, 1.0, 0.0), VERTEX + 1u);
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        let v = d1 / (d1 - d3);
        return TriangleClosest(vec3<f32>(1.0 - v, v, 0.0), EDGE);
    }
    let cp = -r2;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return TriangleClosest(vec3<f32>(0.0, 0.0, 1.0), VERTEX + 2u);
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        let w = d2 / (d2 - d6);
        return TriangleClosest(vec3<f32>(1.0 - w, 0.0, w), EDGE + 2u);
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return TriangleClosest(vec3<f32>(0.0, 1.0 - w, w), EDGE + 1u);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    return TriangleClosest(vec3<f32>(1.0 - v - w, v, w), FACE);
}

fn unit_or_zero(v: vec3<f32>) -> vec3<f32> {
    let l = sqrt(dot(v, v));
    if (l > 0.0 && l < 3.0e38) {
        return v / l;
    }
    return vec3<f32>(0.0, 0.0, 0.0);
}

fn triangle_normal(x0: vec3<f32>, x1: vec3<f32>, x2: vec3<f32>) -> vec3<f32> {
    return unit_or_zero(cross(x1 - x0, x2 - x0));
}

// (d, g) as a vec4: g in xyz, d in w.
fn resolve_node_to_triangle(r0: vec3<f32>, r1: vec3<f32>, r2: vec3<f32>, w: vec3<f32>, m: vec3<f32>) -> vec4<f32> {
    let r = -(w.x * r0 + w.y * r1 + w.z * r2);
    var sign = 1.0;
    if (dot(m, r) < 0.0) {
        sign = -1.0;
    }
    let dist = sqrt(dot(r, r));
    var g = unit_or_zero(m);
    if (dist > 0.0) {
        g = sign * r / dist;
    }
    return vec4<f32>(g, sign * dist);
}
