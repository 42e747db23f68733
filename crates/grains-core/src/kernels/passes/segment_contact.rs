//! Per-particle pass of node-to-segment contact between rings (`shared/reference/003`): each
//! node of a ring with contact, as a slave, finds its master segment on every ring near it and
//! its penalty force. WGSL twin: `shaders/passes/segment_contact.wgsl`.
//!
//! The candidates are the node's partners in the neighbour list (its own records' partners,
//! then its head's owners: [`for_each_neighbour`]), whose cut-off node-to-segment contact widens
//! ([`crate::shells::Shells::segment_range`]) so that every node within a ring's reach plus a
//! segment of a slave is listed: every segment within reach has both its end nodes among the
//! candidates. Each candidate node brings its two segments; of every master ring the segment
//! with the smallest `|d|` is the master (the first met on a tie: the same on both backends,
//! whose lists are alike), a ring's own segments only with `self_contact` and beyond
//! [`SELF_SKIP`] nodes on either side. Of the masters with `d < 0`, the first [`MASTERS`] in
//! the order met are kept.
//!
//! Records, [`SEGMENT_RECORDS`] per particle (`segment_records[4 gid ..]`): per master
//! `(segment's first node as bits, s, F_x, F_y)`, `F` the force on the slave, the unused ones
//! with [`NO_NODE`] as their node; then `(energy, masters kept as bits, rings seen past
//! [`SEEN`] as bits, 0)`. The reaction on the master nodes is `segment_gather`'s.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::shell::node_to_segment::{resolve_node_to_segment, segment_normal};
use crate::kernels::shell::penalty::law_penalty;
use crate::kernels::{v3, v4xyz};
use crate::rings::SELF_SKIP;
use crate::shells::{ShellParams, NO_NODE};

/// Records per particle.
pub const SEGMENT_RECORDS: usize = 4;
/// Master rings a slave keeps.
pub const MASTERS: usize = 3;
/// Distinct rings a slave compares within reach.
pub const SEEN: usize = 8;

/// Every particle partner of `gid` in the neighbour list, walls left out: its records'
/// partners (above it) in record order, then its head's records' owners (below it) in head
/// order. WGSL twin: `for_each_neighbour` in `shaders/lib/neighbours.wgsl`.
pub fn for_each_neighbour(
    gid: usize,
    nbr_start: &[u32],
    pair_start: &[u32],
    pair_j: &[u32],
    head_pair: &[u32],
    mut visit: impl FnMut(u32),
) {
    let n = (pair_start.len() - 1) as u32;
    let (r0, r1) = (pair_start[gid], pair_start[gid + 1]);
    for &q in &pair_j[r0 as usize..r1 as usize] {
        if q < n {
            visit(q);
        }
    }
    let (start, end) = (nbr_start[gid], nbr_start[gid + 1]);
    let own = (r1 - r0).min(end - start);
    let h0 = start - r0;
    for &r in &head_pair[h0 as usize..(h0 + end - start - own) as usize] {
        if r != u32::MAX {
            // The owner of record r: the last particle whose records start at or before it.
            visit((pair_start.partition_point(|&s| s <= r) - 1) as u32);
        }
    }
}

/// Nodes between `a` and `b` along their ring of `count` nodes from `first`.
pub fn hops(a: u32, b: u32, first: u32, count: u32) -> u32 {
    let d = (a - first).abs_diff(b - first);
    d.min(count - d)
}

/// The best segment of one master ring so far.
#[derive(Clone, Copy, Debug, Default)]
struct Master {
    ring: u32,
    start: u32,
    s: f32,
    d: f32,
    g: Vec3,
}

/// Slave `gid`'s records `out` ([`SEGMENT_RECORDS`]).
#[allow(clippy::too_many_arguments)]
pub fn segment_contact(
    gid: usize,
    domain: &DomainParams,
    shells: &[ShellParams],
    segment_links: &[[u32; 4]],
    list: (&[u32], &[u32], &[u32], &[u32]),
    pos: &[[f32; 4]],
    out: &mut [[f32; 4]],
) {
    let empty = [f32::from_bits(NO_NODE), 0.0, 0.0, 0.0];
    out.fill(empty);
    out[MASTERS] = [0.0; 4];
    let own = segment_links[gid];
    if own[0] == NO_NODE {
        return;
    }
    let xa = v4xyz(pos[gid]);
    let rel = |q: u32| v3(min_image((v4xyz(pos[q as usize]) - xa).into(), domain));
    let mut seen = [Master::default(); SEEN];
    let (mut n_seen, mut overflow) = (0usize, 0u32);
    let (nbr_start, pair_start, pair_j, head_pair) = list;
    for_each_neighbour(gid, nbr_start, pair_start, pair_j, head_pair, |q| {
        let link = segment_links[q as usize];
        if link[0] == NO_NODE {
            return;
        }
        let ring = shells[link[0] as usize];
        for a in [link[1], q] {
            let b = segment_links[a as usize][2];
            // A node's sign is its pseudonormal's: the normals of the segments before and
            // after this one join this one's.
            if link[0] == own[0]
                && (ring.self_contact == 0
                    || hops(gid as u32, a, ring.ref_node, ring.tri_count) <= SELF_SKIP
                    || hops(gid as u32, b, ring.ref_node, ring.tri_count) <= SELF_SKIP)
            {
                continue;
            }
            let (la, lb) = (segment_links[a as usize], segment_links[b as usize]);
            let (xp, x0, x1, xn) = (rel(la[1]), rel(a), rel(b), rel(lb[2]));
            let n = segment_normal(x0, x1);
            let m0 = segment_normal(xp, x0) + n;
            let m1 = n + segment_normal(x1, xn);
            let c = resolve_node_to_segment(x0, x1, m0, m1);
            if c.d.abs() > ring.contact_reach {
                continue;
            }
            let m = Master {
                ring: link[0],
                start: a,
                s: c.s,
                d: c.d,
                g: Vec3::from(c.g),
            };
            match seen[..n_seen].iter_mut().find(|x| x.ring == link[0]) {
                Some(x) if c.d.abs() < x.d.abs() => *x = m,
                Some(_) => {}
                None if n_seen < SEEN => {
                    seen[n_seen] = m;
                    n_seen += 1;
                }
                None => overflow += 1,
            }
        }
    });
    let (mut kept, mut energy) = (0usize, 0.0f32);
    for m in seen[..n_seen].iter().filter(|m| m.d < 0.0) {
        if kept == MASTERS {
            break;
        }
        let p = law_penalty(m.d, shells[m.ring as usize].contact_stiffness);
        let f = -p[0] * m.g;
        out[kept] = [f32::from_bits(m.start), m.s, f.x, f.y];
        energy += p[1];
        kept += 1;
    }
    out[MASTERS] = [
        energy,
        f32::from_bits(kept as u32),
        f32::from_bits(overflow),
        0.0,
    ];
}
