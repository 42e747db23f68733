//! Per-particle gather of node-to-segment contact, after `segment_contact`: a ring node adds
//! the forces on it as a slave (its own records) and, as a master node, the reactions of the
//! slaves whose master segment it ends: `-(1 - s) F` as the segment's first node, `-s F` as
//! its second, `s` clamped to [0, 1] (`shared/reference/003`). The slaves are its partners in
//! the neighbour list ([`for_each_neighbour`]), every slave within reach of a segment being a
//! partner of both its end nodes. No float atomics: every node sums in a fixed order. WGSL
//! twin: `shaders/passes/segment_gather.wgsl`.

use glam::Vec3;

use crate::kernels::passes::segment_contact::{for_each_neighbour, MASTERS, SEGMENT_RECORDS};
use crate::shells::NO_NODE;

/// Add node `gid`'s node-to-segment forces into `force`.
pub fn segment_gather(
    gid: usize,
    segment_links: &[[u32; 4]],
    list: (&[u32], &[u32], &[u32], &[u32]),
    segment_records: &[[f32; 4]],
    force: &mut [f32; 4],
) {
    let own = segment_links[gid];
    if own[0] == NO_NODE {
        return;
    }
    let mut f = Vec3::ZERO;
    let records = |q: usize| &segment_records[SEGMENT_RECORDS * q..][..MASTERS];
    for r in records(gid) {
        if r[0].to_bits() != NO_NODE {
            f += Vec3::new(r[2], r[3], 0.0);
        }
    }
    let (nbr_start, pair_start, pair_j, head_pair) = list;
    for_each_neighbour(gid, nbr_start, pair_start, pair_j, head_pair, |q| {
        if segment_links[q as usize][0] == NO_NODE {
            return;
        }
        for r in records(q as usize) {
            let start = r[0].to_bits();
            let s = r[1].clamp(0.0, 1.0);
            let fq = Vec3::new(r[2], r[3], 0.0);
            if start == gid as u32 {
                f -= (1.0 - s) * fq;
            } else if start == own[1] {
                f -= s * fq;
            }
        }
    });
    *force = [force[0] + f.x, force[1] + f.y, force[2], force[3]];
}
