//! Per-shell pass: each shell's enclosed volume and the pressure of its volume law. WGSL twin:
//! `shaders/passes/shell_volume.wgsl`.
//!
//! One invocation per shell sums its triangles in order, `V = sum r_a . (r_b x r_c) / 6` with
//! `r` measured from the shell's reference node (minimum image on periodic axes), so a shell
//! may straddle a periodic boundary. Writes `shell_volumes[gid] = (V, p, energy, 0)`; the
//! `shell_gather` pass turns `p` into node forces. A shell of a few thousand triangles is one
//! short loop; many shells run in parallel.
//!
//! A ring ([`crate::rings`]) lists its segments as triangles `(a, b, NO_NODE, ring)`: its
//! measure is the enclosed area (`area_conservation`'s shoelace sum), under the same law.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::shell::area_conservation::segment_area;
use crate::kernels::shell::volume_conservation::law_volume_conservation;
use crate::kernels::{v3, v4xyz};
use crate::shells::{ShellParams, NO_NODE};

/// Shell `gid`'s `(V, p, energy, 0)`.
pub fn shell_volume(
    gid: usize,
    domain: &DomainParams,
    shells: &[ShellParams],
    shell_tris: &[[u32; 4]],
    pos: &[[f32; 4]],
    out: &mut [f32; 4],
) {
    let s = shells[gid];
    let x0 = v4xyz(pos[s.ref_node as usize]);
    let rel = |q: u32| v3(min_image((v4xyz(pos[q as usize]) - x0).into(), domain));
    let mut v = 0.0f32;
    for t in s.tri_start..s.tri_start + s.tri_count {
        let tri = shell_tris[t as usize];
        let (a, b): (Vec3, Vec3) = (rel(tri[0]), rel(tri[1]));
        v += if tri[2] == NO_NODE {
            segment_area(a, b)
        } else {
            a.dot(b.cross(rel(tri[2]))) / 6.0
        };
    }
    let law = law_volume_conservation(v, s.rest_volume, s.volume_stiffness);
    *out = [v, law[0], law[1], 0.0];
}
