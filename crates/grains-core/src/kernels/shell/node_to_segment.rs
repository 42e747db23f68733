//! Resolver of node-to-segment contact between rings: the signed closest approach of a slave
//! node to a master segment, its projection parameter and the gradient of the approach with
//! respect to the slave (Elgailani, "Node-To-Segment Contact Method", `shared/reference/003`).
//! WGSL twin: `shaders/shell/node_to_segment.wgsl`.
//!
//! Segment `x0 -> x1` of a ring whose interior is on the left walking from node 0 to node 1,
//! so its outward normal is `n = (t_y, -t_x) / |t|` with `t = x1 - x0` (the plane z = 0; z is
//! ignored). The slave A projects at `s = (x_A - x0) . t / |t|^2`. The reference's three cases:
//!
//! - `0 < s < 1`: the projection lies on the segment, `d = n . (x_A - x0)`;
//! - `s <= 0`: the closest point is node 0, `d = +-|x_A - x0|`;
//! - `s >= 1`: the closest point is node 1, `d = +-|x_A - x1|`;
//!
//! negative is interference (the slave inside the master ring), positive a gap. On the segment
//! the sign is that of `n . (x_A - x0)`, as the reference has it. At a node the reference takes
//! the same segment's normal, which makes the sign depend on which of the node's two segments
//! is asked (both are equally close) and is wrong on one side of every corner; here it is that
//! of the node's pseudonormal `m` (the sum of its two segments' outward unit normals, the 2-D
//! angle-weighted pseudonormal of Baerentzen & Aanaes 2005, "Signed distance computation using
//! the angle weighted pseudonormal", IEEE TVCG 11:243), which gives the true inside of the ring
//! for any point whose closest feature is the node: `d = sign(m . (x_A - x_k)) |x_A - x_k|`.
//! `g = d d / d x_A` is `n` on the segment and the unit vector from the closest node to the
//! slave, times the sign, at a node; the penalty law's force on the slave is `-k d g`, and the
//! reaction goes to the master nodes as `(1 - s) F` and `s F` with `s` clamped to [0, 1] (the
//! whole reaction on the end node when the projection misses the segment).

use glam::Vec3;

/// A slave node against a master segment (WGSL struct `NodeSegment`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeSegment {
    /// Projection parameter along the segment (unclamped).
    pub s: f32,
    /// Signed closest approach (m): negative inside the master ring.
    pub d: f32,
    /// `d d / d x_A` (unit, in the plane).
    pub g: [f32; 3],
}

/// The outward unit normal of segment `x0 -> x1` of a ring (interior on the left), from any
/// two points of it measured alike.
pub fn segment_normal(x0: Vec3, x1: Vec3) -> Vec3 {
    let t = Vec3::new(x1.x - x0.x, x1.y - x0.y, 0.0);
    Vec3::new(t.y, -t.x, 0.0) / (t.x * t.x + t.y * t.y).sqrt()
}

/// The slave against segment `x0 -> x1`, from `r0 = x0 - x_A` and `r1 = x1 - x_A` (m, minimum
/// image), with `m0`, `m1` the pseudonormals of nodes 0 and 1 (any length).
pub fn resolve_node_to_segment(r0: Vec3, r1: Vec3, m0: Vec3, m1: Vec3) -> NodeSegment {
    let t = Vec3::new(r1.x - r0.x, r1.y - r0.y, 0.0);
    let l2 = t.x * t.x + t.y * t.y;
    let n = segment_normal(r0, r1);
    let a0 = Vec3::new(-r0.x, -r0.y, 0.0);
    let s = a0.dot(t) / l2;
    if s > 0.0 && s < 1.0 {
        return NodeSegment {
            s,
            d: n.dot(a0),
            g: n.into(),
        };
    }
    let (r, m) = if s <= 0.0 {
        (a0, m0)
    } else {
        (Vec3::new(-r1.x, -r1.y, 0.0), m1)
    };
    let sign = if m.dot(r) < 0.0 { -1.0 } else { 1.0 };
    let dist = r.length();
    let g = if dist > 0.0 { sign * r / dist } else { n };
    NodeSegment {
        s,
        d: sign * dist,
        g: g.into(),
    }
}
