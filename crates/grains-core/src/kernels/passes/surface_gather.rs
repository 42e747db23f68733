//! Per-particle gather of node-to-surface contact, after `surface_contact`: a ring or shell
//! node adds the forces on it as a slave (its own records) and, as a master node, the
//! reactions of the slaves whose master element it is a corner of: `-w_k F` with `w_k` its
//! weight in the closest point (`shared/reference/003`'s `(1 - s) F`, `s F` on a segment; the
//! barycentric split on a triangle). The slaves are its partners in the neighbour list
//! ([`for_each_neighbour`]), every slave within reach of an element being a partner of all the
//! element's nodes. No float atomics: every node sums in a fixed order. WGSL twin:
//! `shaders/passes/surface_gather.wgsl`.

use glam::Vec3;

use crate::kernels::passes::surface_contact::{for_each_neighbour, MASTERS, SURFACE_RECORDS};
use crate::shells::NO_NODE;

/// Add node `gid`'s node-to-surface forces into `force`.
pub fn surface_gather(
    gid: usize,
    shell_tris: &[[u32; 4]],
    surface_start: &[u32],
    list: (&[u32], &[u32], &[u32], &[u32]),
    surface_records: &[[f32; 4]],
    force: &mut [f32; 4],
) {
    let has = |p: usize| surface_start[p] < surface_start[p + 1];
    if !has(gid) {
        return;
    }
    let mut f = Vec3::ZERO;
    let records = |q: usize| &surface_records[SURFACE_RECORDS * q..][..2 * MASTERS];
    for r in records(gid).chunks(2) {
        if r[0][0].to_bits() != NO_NODE {
            f += Vec3::new(r[1][0], r[1][1], r[1][2]);
        }
    }
    let (nbr_start, pair_start, pair_j, head_pair) = list;
    for_each_neighbour(gid, nbr_start, pair_start, pair_j, head_pair, |q| {
        if !has(q as usize) {
            return;
        }
        for r in records(q as usize).chunks(2) {
            let t = r[0][0].to_bits();
            if t == NO_NODE {
                continue;
            }
            let tri = shell_tris[t as usize];
            let fq = Vec3::new(r[1][0], r[1][1], r[1][2]);
            for c in 0..3 {
                if tri[c] == gid as u32 {
                    f -= r[0][c + 1] * fq;
                }
            }
        }
    });
    *force = [force[0] + f.x, force[1] + f.y, force[2] + f.z, force[3]];
}
