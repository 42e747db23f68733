//! Per-particle gather of the shell elements, after the contact gather: a node adds its edge
//! records and its share of its shell's pressure to its force, and half of each of its edges'
//! dissipation to its ledger. WGSL twin: `shaders/passes/shell_gather.wgsl`.
//!
//! Entries (`shell_start`, `shell_entry`, built once by [`crate::shells::Shells::node_index`])
//! are summed in their fixed order. A triangle corner `(a, b, c)` at this node contributes
//! `-p (x_b - x_a) x (x_c - x_a) / 6`; a ring segment's corner (a triangle `(a, b, NO_NODE)`)
//! contributes `-p dA/dx` of `area_conservation`. Particles that are not nodes have no entries
//! and are left untouched.

use glam::Vec3;

use crate::kernel_types::{DomainParams, StepParams};
use crate::kernels::passes::gather::kahan_add;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::shell::area_conservation::segment_area_gradient;
use crate::kernels::{v3, v4xyz};
use crate::shells::{NO_NODE, TRIANGLE_ENTRY};

/// Add node `gid`'s shell forces into `force` and its dissipation into `dissipated`.
#[allow(clippy::too_many_arguments)]
pub fn shell_gather(
    gid: usize,
    step: &StepParams,
    domain: &DomainParams,
    shell_start: &[u32],
    shell_entry: &[u32],
    shell_forces: &[[f32; 4]],
    shell_tris: &[[u32; 4]],
    shell_volumes: &[[f32; 4]],
    pos: &[[f32; 4]],
    force: &mut [f32; 4],
    dissipated: &mut [f32; 4],
) {
    let (k0, k1) = (shell_start[gid], shell_start[gid + 1]);
    if k0 == k1 {
        return;
    }
    let mut f = Vec3::ZERO;
    let mut damp = 0.0f32;
    let xa = v4xyz(pos[gid]);
    for k in k0..k1 {
        let e = shell_entry[k as usize];
        if e & TRIANGLE_ENTRY == 0 {
            let r = shell_forces[e as usize];
            f += Vec3::new(r[0], r[1], r[2]);
            if e % 4 < 2 {
                damp += 0.5 * shell_forces[(e - e % 4 + 1) as usize][3];
            }
        } else {
            let c = e & !TRIANGLE_ENTRY;
            let tri = shell_tris[(c / 3) as usize];
            let corner = c % 3;
            let p = shell_volumes[tri[3] as usize][1];
            let rel = |q: u32| v3(min_image((v4xyz(pos[q as usize]) - xa).into(), domain));
            if tri[2] == NO_NODE {
                f -= p * segment_area_gradient(corner, rel(tri[(1 - corner) as usize]));
                continue;
            }
            let (b, cc) = if corner == 0 {
                (tri[1], tri[2])
            } else if corner == 1 {
                (tri[2], tri[0])
            } else {
                (tri[0], tri[1])
            };
            f -= p * rel(b).cross(rel(cc)) / 6.0;
        }
    }
    *force = [force[0] + f.x, force[1] + f.y, force[2] + f.z, force[3]];
    let a = *dissipated;
    let (d0, d1) = kahan_add(a[0], a[1], damp, step.unit);
    *dissipated = [d0, d1, a[2], a[3]];
}
