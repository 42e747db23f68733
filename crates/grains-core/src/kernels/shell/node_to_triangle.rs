//! Resolver of node-to-triangle contact between shells, the 3-D counterpart of
//! [`super::node_to_segment`] (`shared/reference/003`'s method on a triangulated surface): the
//! closest point of a master triangle to a slave node, as barycentric weights, and the signed
//! closest approach. WGSL twin: `shaders/shell/node_to_triangle.wgsl`.
//!
//! Triangle `(x0, x1, x2)` counter-clockwise seen from outside its shell, so its outward normal
//! is `(x1 - x0) x (x2 - x0)` normalised. The closest point is found by Voronoi regions
//! (Ericson, "Real-Time Collision Detection", 2005, section 5.1.5): a vertex, an edge or the
//! face, with weights `w` (the point is `w0 x0 + w1 x1 + w2 x2`, the weights non-negative and
//! summing to 1). The approach is `d = sign(m . r) |r|`, `r` from the closest point to the
//! slave and `m` the pseudonormal of the region (the face's normal; for an edge the sum of its
//! two faces' normals; for a vertex the angle-weighted sum of its faces' normals: Baerentzen &
//! Aanaes 2005), which signs every point by the true inside of a closed surface; the pass that
//! calls it computes `m` for the region found. Negative is interference. `g = dd/dx_A` is
//! `sign r / |r|`. The penalty's force on the slave is `-k d g`, and the reaction goes to the
//! triangle's nodes as `-w_k F`: it sums to `-F` and its moment about the closest point is
//! zero (Mpacts' DistributeForcesAndMomentsToTriangle for a force at a point).

use glam::Vec3;

/// The closest point's region: the face.
pub const FACE: u32 = 0;
/// Regions 1, 2, 3: vertex 0, 1, 2.
pub const VERTEX: u32 = 1;
/// Regions 4, 5, 6: edge 0-1, 1-2, 2-0.
pub const EDGE: u32 = 4;

/// The closest point of triangle `(r0, r1, r2)` (measured from the slave) to the slave: its
/// barycentric weights and region.
pub fn closest_on_triangle(r0: Vec3, r1: Vec3, r2: Vec3) -> ([f32; 3], u32) {
    let (ab, ac) = (r1 - r0, r2 - r0);
    let ap = -r0;
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return ([1.0, 0.0, 0.0], VERTEX);
    }
    let bp = -r1;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return ([0.0, 1.0, 0.0], VERTEX + 1);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return ([1.0 - v, v, 0.0], EDGE);
    }
    let cp = -r2;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return ([0.0, 0.0, 1.0], VERTEX + 2);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return ([1.0 - w, 0.0, w], EDGE + 2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return ([0.0, 1.0 - w, w], EDGE + 1);
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    ([1.0 - v - w, v, w], FACE)
}

/// `v / |v|`, or zero for a zero (or overflowing) `v`.
pub fn unit_or_zero(v: Vec3) -> Vec3 {
    let l = v.length();
    if l > 0.0 && l < 3.0e38 {
        v / l
    } else {
        Vec3::ZERO
    }
}

/// The outward unit normal of triangle `(x0, x1, x2)`, from its corners measured alike.
pub fn triangle_normal(x0: Vec3, x1: Vec3, x2: Vec3) -> Vec3 {
    unit_or_zero((x1 - x0).cross(x2 - x0))
}

/// The signed approach `(d, g)` of the slave to the point `w` of triangle `(r0, r1, r2)`
/// (measured from the slave), `m` the pseudonormal of its region.
pub fn resolve_node_to_triangle(r0: Vec3, r1: Vec3, r2: Vec3, w: [f32; 3], m: Vec3) -> (f32, Vec3) {
    let r = -(w[0] * r0 + w[1] * r1 + w[2] * r2);
    let sign = if m.dot(r) < 0.0 { -1.0 } else { 1.0 };
    let dist = r.length();
    let g = if dist > 0.0 {
        sign * r / dist
    } else {
        unit_or_zero(m)
    };
    (sign * dist, g)
}
