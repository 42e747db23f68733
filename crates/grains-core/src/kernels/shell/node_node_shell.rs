//! Resolver of a mesh edge as a spring: the two nodes' distance, direction and relative
//! velocity (Mpacts Node_Node_Shell, `shared/reference/000`). WGSL twin:
//! `shaders/shell/node_node_shell.wgsl`.
//!
//! Its topology step (the two adjacent triangles and their lever nodes, the effective
//! thickness and element volume `V12 = A1 t1 + A2 t2`) runs once, on the host, when the shell
//! is built ([`crate::shells::mesh_edges`]); what changes every step is computed here.

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::{v3, v4xyz};

/// What the edge laws read (WGSL struct `EdgeGeom`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EdgeGeom {
    /// Unit vector from node i to node j (zero for coincident nodes).
    pub dir: [f32; 3],
    /// Distance of the nodes (m).
    pub length: f32,
    /// Velocity of node i relative to node j (m/s).
    pub vrel: [f32; 3],
}

/// The edge `i -> j` from the nodes' positions and velocities (`xyz` of each vec4).
pub fn resolve_node_node_shell(
    xi: [f32; 4],
    xj: [f32; 4],
    vi: [f32; 4],
    vj: [f32; 4],
    domain: &DomainParams,
) -> EdgeGeom {
    let d = v3(min_image((v4xyz(xj) - v4xyz(xi)).into(), domain));
    let length = d.length();
    let dir = if length > 0.0 { d / length } else { d };
    EdgeGeom {
        dir: dir.into(),
        length,
        vrel: (v4xyz(vi) - v4xyz(vj)).into(),
    }
}
