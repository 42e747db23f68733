//! Resolver of a ring's node: the signed turning angle between the two segments of a closed
//! polyline that meet at a node, and its gradient with respect to the three nodes (the 2-D
//! counterpart of [`super::triangle_triangle_common_edge`], for the rings of
//! [`crate::rings`]). WGSL twin: `shaders/shell/segment_segment_common_node.wgsl`.
//!
//! Nodes `x1 -> x2 -> x3` in the ring's order, in the plane z = 0 (z is ignored). With
//! `e1 = x2 - x1`, `e2 = x3 - x2` and `perp(e) = (-e_y, e_x, 0)` (e turned a quarter
//! anticlockwise), the turning angle is `theta = atan2(e1 x e2 . z, e1 . e2)`: 0 where the
//! polyline runs straight on, positive where it turns left (on an anticlockwise ring, whose
//! interior is on the left, every node of a convex ring turns left and the angles sum to
//! 2 pi). As `theta` is the polar angle of `e2` less that of `e1`, and the polar angle `phi`
//! of a vector `e` has `d phi / d e = perp(e) / |e|^2`:
//!
//! `d theta/d x1 = perp(e1) / |e1|^2`, `d theta/d x3 = perp(e2) / |e2|^2`,
//! `d theta/d x2 = -(d theta/d x1 + d theta/d x3)`.
//!
//! The gradients sum to zero and, `theta` being invariant under rotation about z, exert no
//! moment: bending forces `-dE/dtheta grad theta` conserve momentum and angular momentum.

use glam::Vec3;

/// A ring node's turning angle and gradient (WGSL struct `TurnGeom`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TurnGeom {
    /// Signed turning angle at the node (rad), in (-pi, pi].
    pub theta: f32,
    /// `d theta / d x_k` for the nodes `x1, x2, x3` (1/m).
    pub grad: [[f32; 3]; 3],
}

/// `e` turned a quarter anticlockwise in the plane, over `|e|^2` (z ignored).
fn polar_gradient(e: Vec3) -> Vec3 {
    Vec3::new(-e.y, e.x, 0.0) / (e.x * e.x + e.y * e.y)
}

/// The node from `e1 = x2 - x1` and `e2 = x3 - x2` (m).
pub fn resolve_segment_segment_common_node(e1: Vec3, e2: Vec3) -> TurnGeom {
    let theta = (e1.x * e2.y - e1.y * e2.x).atan2(e1.x * e2.x + e1.y * e2.y);
    let g1 = polar_gradient(e1);
    let g3 = polar_gradient(e2);
    let g2 = -(g1 + g3);
    TurnGeom {
        theta,
        grad: [g1.into(), g2.into(), g3.into()],
    }
}

/// The turning angle at `x2` of the polyline `x1 -> x2 -> x3` (host side: reference angles).
pub fn turning_angle(x1: [f32; 3], x2: [f32; 3], x3: [f32; 3]) -> f32 {
    let (x1, x2, x3) = (Vec3::from(x1), Vec3::from(x2), Vec3::from(x3));
    resolve_segment_segment_common_node(x2 - x1, x3 - x2).theta
}
