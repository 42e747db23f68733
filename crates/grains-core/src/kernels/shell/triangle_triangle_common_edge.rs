//! Resolver of a hinge: the signed angle between two triangles sharing an edge and its
//! gradient with respect to the four nodes (Mpacts Triangle_Triangle_CommonEdge_Angle,
//! `shared/reference/000`; the gradient in the form of Bridson, Marino & Fedkiw 2003,
//! "Simulation of clothing with folds and wrinkles", and Fedosov 2010, pp. 221-223). WGSL twin:
//! `shaders/shell/triangle_triangle_common_edge.wgsl`.
//!
//! Nodes: `x1 -> x2` the common edge as triangle 1 = `(x1, x2, x3)` runs it, `x3` and `x4` the
//! levers of triangle 1 and triangle 2 = `(x2, x1, x4)`. With `e = x2 - x1`,
//! `n1 = e x (x3 - x1)`, `n2 = (x1 - x2) x (x4 - x2)` (both outward on a consistently oriented
//! mesh), `theta = atan2((n1 x n2) . e / |e|, n1 . n2)`: 0 for a flat hinge, positive where
//! the surface is convex. With `a_k = n_k / |n_k|^2`:
//!
//! `d theta/d x3 = -|e| a1`, `d theta/d x4 = -|e| a2`,
//! `d theta/d x1 = -((x3 - x2).e a1 + (x4 - x2).e a2) / |e|`,
//! `d theta/d x2 = ((x3 - x1).e a1 + (x4 - x1).e a2) / |e|`.
//!
//! The four gradients sum to zero and, being the gradient of a rotation-invariant angle,
//! exert no moment: bending forces `-dE/dtheta grad theta` conserve momentum and angular
//! momentum exactly.

use glam::Vec3;

/// A hinge's angle and gradient (WGSL struct `HingeGeom`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HingeGeom {
    /// Signed angle between the triangles' normals (rad), in (-pi, pi].
    pub theta: f32,
    /// `d theta / d x_k` for the nodes `x1, x2, x3, x4` (1/m).
    pub grad: [[f32; 3]; 4],
}

/// The hinge from `e = x2 - x1`, `r3 = x3 - x1`, `r4 = x4 - x1` (m).
pub fn resolve_triangle_triangle_common_edge(e: Vec3, r3: Vec3, r4: Vec3) -> HingeGeom {
    let n1 = e.cross(r3);
    let n2 = (-e).cross(r4 - e);
    let l = e.length();
    let a1 = n1 / n1.dot(n1);
    let a2 = n2 / n2.dot(n2);
    let theta = (n1.cross(n2).dot(e) / l).atan2(n1.dot(n2));
    let g3 = -l * a1;
    let g4 = -l * a2;
    let g1 = -((r3 - e).dot(e) / l * a1 + (r4 - e).dot(e) / l * a2);
    let g2 = r3.dot(e) / l * a1 + r4.dot(e) / l * a2;
    HingeGeom {
        theta,
        grad: [g1.into(), g2.into(), g3.into(), g4.into()],
    }
}

/// The angle of the hinge of nodes `x1..x4` (host side: reference angles).
pub fn hinge_angle(x1: [f32; 3], x2: [f32; 3], x3: [f32; 3], x4: [f32; 3]) -> f32 {
    let (x1, x2, x3, x4) = (
        Vec3::from(x1),
        Vec3::from(x2),
        Vec3::from(x3),
        Vec3::from(x4),
    );
    resolve_triangle_triangle_common_edge(x2 - x1, x3 - x1, x4 - x1).theta
}
