//! Per-edge pass of the shells: the spring, dashpot and Maxwell relaxation of each mesh edge and
//! the bending of the hinge it forms. WGSL twin: `shaders/passes/shell_edges.wgsl`.
//!
//! A ring's segment ([`crate::rings`]) is an edge `(i, j, k, NO_NODE)`: its spring and dashpot
//! between i and j, and the bending of the node j where it meets the next segment, towards k
//! (the `segment_segment_common_node` resolver). A shell's hinge has both levers; an open
//! shell's boundary edge has no bending law.
//!
//! Each edge writes its own four force records (`shell_forces[4 gid + role]`, roles: common
//! nodes i, j, levers k, l) for `shell_gather`: `xyz` the force on that node (N); `w` of role
//! 0 the elastic energy stored in the edge (J), of role 1 the energy its dashpots dissipated
//! this step (J), of role 2 the spring's tension (N, for output). No float atomics: every
//! node sums its records in a fixed order.

use glam::Vec3;

use crate::kernel_types::{DomainParams, StepParams};
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::shell::{
    elastic_bending::law_elastic_bending, elastic_shell_spring::law_elastic_shell_spring,
    linear_bending::law_linear_bending, maxwell_shell::law_maxwell_shell,
    node_node_shell::resolve_node_node_shell,
    segment_segment_common_node::resolve_segment_segment_common_node,
    shell_viscosity::law_shell_viscosity,
    triangle_triangle_common_edge::resolve_triangle_triangle_common_edge,
};
use crate::kernels::{v3, v4xyz};
use crate::shells::{ShellEdgeParams, NO_NODE};

/// Edge `gid`: updates its rest length `rest` (m) and writes its four records `out`.
#[allow(clippy::too_many_arguments)]
pub fn shell_edges(
    gid: usize,
    step: &StepParams,
    domain: &DomainParams,
    edge_nodes: &[[u32; 4]],
    edge_params: &[ShellEdgeParams],
    pos: &[[f32; 4]],
    vel: &[[f32; 4]],
    rest: &mut f32,
    out: &mut [[f32; 4]],
) {
    let e = edge_nodes[gid];
    let p = edge_params[gid];
    let (i, j) = (e[0] as usize, e[1] as usize);
    let g = resolve_node_node_shell(pos[i], pos[j], vel[i], vel[j], domain);
    let dir = v3(g.dir);
    let mut fi = Vec3::ZERO;
    let mut fj = Vec3::ZERO;
    let mut fk = Vec3::ZERO;
    let mut fl = Vec3::ZERO;
    let mut elastic = 0.0f32;
    let mut damp = 0.0f32;
    let mut tension = 0.0f32;
    if p.stretch > 0.0 {
        if p.relax_time > 0.0 {
            let m = law_maxwell_shell(g.length, *rest, p.stretch, p.relax_time, step.dt);
            *rest = m[0];
            damp += m[1];
        }
        let s = law_elastic_shell_spring(g.length, *rest, p.stretch);
        tension = s[0];
        elastic += s[1];
        fi += tension * dir;
        fj -= tension * dir;
    }
    if p.viscosity > 0.0 {
        let v = law_shell_viscosity(g.vrel, p.viscosity, step.dt);
        let f = Vec3::new(v[0], v[1], v[2]);
        fi += f;
        fj -= f;
        damp += v[3];
    }
    if p.bend_law != 0 {
        let x1 = v4xyz(pos[i]);
        let rel = |q: u32| v3(min_image((v4xyz(pos[q as usize]) - x1).into(), domain));
        // A shell's hinge (levers k and l), or a ring's node j (towards k).
        let (theta, grad) = if e[3] != NO_NODE {
            let h = resolve_triangle_triangle_common_edge(rel(e[1]), rel(e[2]), rel(e[3]));
            (h.theta, h.grad)
        } else {
            let (rj, rk) = (rel(e[1]), rel(e[2]));
            let t = resolve_segment_segment_common_node(rj, rk - rj);
            (t.theta, [t.grad[0], t.grad[1], t.grad[2], [0.0; 3]])
        };
        let b = if p.bend_law == 1 {
            law_linear_bending(theta, p.theta0, p.bend)
        } else {
            law_elastic_bending(theta, p.theta0, p.bend)
        };
        fi -= b[0] * v3(grad[0]);
        fj -= b[0] * v3(grad[1]);
        fk -= b[0] * v3(grad[2]);
        fl -= b[0] * v3(grad[3]);
        elastic += b[1];
    }
    out[0] = [fi.x, fi.y, fi.z, elastic];
    out[1] = [fj.x, fj.y, fj.z, damp];
    out[2] = [fk.x, fk.y, fk.z, tension];
    out[3] = [fl.x, fl.y, fl.z, 0.0];
}
