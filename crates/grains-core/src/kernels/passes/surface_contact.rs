//! Per-particle pass of node-to-surface contact (`shared/reference/003`): each node of a ring
//! or shell with contact, as a slave, finds its master element (segment or triangle) on every
//! ring or shell near it and its penalty force. WGSL twin:
//! `shaders/passes/surface_contact.wgsl`.
//!
//! The candidates are the node's partners in the neighbour list (its own records' partners,
//! then its head's owners: [`for_each_neighbour`]), whose cut-off the contact widens
//! ([`crate::shells::Shells::surface_range`]) so that every node of every element within reach
//! of a slave is listed. Each candidate node brings the elements it is a corner of
//! (`surface_start`, `surface_elems`, [`crate::shells::Shells::surface_index`]); of every master
//! ring or shell the element with the smallest `|d|` is the master (the first met on a tie:
//! the same on both backends, whose lists are alike). A slave meets its own ring or shell only
//! with `self_contact`, and never an element that shares a node with one of its own (the
//! elements around it). `d` is signed by the pseudonormal of the closest feature
//! ([`pseudonormal`]), so a tie between two elements sharing that feature gives the same force.
//! Of the masters with `d < 0`, the first [`MASTERS`] in the order met are kept.
//!
//! Records, [`SURFACE_RECORDS`] per particle: per master `(element as bits, w0, w1, w2)` (the
//! closest point's weights on the element's nodes) and `(F, energy)`, `F` the force on the
//! slave, an unused master with [`NO_NODE`] as its element; then `(energy, masters kept as
//! bits, rings or shells seen past [`SEEN`] as bits, 0)`. The reaction on the master nodes,
//! `-w_k F`, is `surface_gather`'s.

use glam::Vec3;

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::shell::node_to_segment::{resolve_node_to_segment, segment_normal};
use crate::kernels::shell::node_to_triangle::{
    closest_on_triangle, resolve_node_to_triangle, triangle_normal, EDGE, FACE, VERTEX,
};
use crate::kernels::shell::penalty::law_penalty;
use crate::kernels::{v3, v4xyz};
use crate::shells::{ShellParams, NO_NODE};

/// Records per particle: two per master, and a summary.
pub const SURFACE_RECORDS: usize = 7;
/// Master rings or shells a slave keeps.
pub const MASTERS: usize = 3;
/// Distinct rings or shells a slave compares within reach.
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

/// The surfaces' tables a slave reads.
#[derive(Clone, Copy)]
pub struct Surfaces<'a> {
    pub shells: &'a [ShellParams],
    /// `(a, b, c, shell)` per element, `c = NO_NODE` for a ring's segment.
    pub shell_tris: &'a [[u32; 4]],
    /// Particle p's elements are `surface_elems[surface_start[p]..surface_start[p + 1]]`.
    pub surface_start: &'a [u32],
    pub surface_elems: &'a [u32],
}

impl Surfaces<'_> {
    fn elements(&self, p: u32) -> &[u32] {
        let (a, b) = (
            self.surface_start[p as usize],
            self.surface_start[p as usize + 1],
        );
        &self.surface_elems[a as usize..b as usize]
    }
}

/// The outward pseudonormal of a feature (`shared/reference/003` made exact at corners):
/// `node`'s for a vertex (`other = NO_NODE`: its elements' normals, a triangle's weighted by
/// its angle at the node), or the edge `node -> other`'s of triangle `t` (the normals of its
/// two triangles). `rel` gives positions measured from the slave.
pub fn pseudonormal(
    s: &Surfaces<'_>,
    node: u32,
    other: u32,
    t: u32,
    rel: &impl Fn(u32) -> Vec3,
) -> Vec3 {
    let mut m = Vec3::ZERO;
    for &e in s.elements(node) {
        let tri = s.shell_tris[e as usize];
        if tri[2] == NO_NODE {
            m += segment_normal(rel(tri[0]), rel(tri[1]));
            continue;
        }
        let x = [rel(tri[0]), rel(tri[1]), rel(tri[2])];
        let n = triangle_normal(x[0], x[1], x[2]);
        if other == NO_NODE {
            let c = (0..3).find(|&c| tri[c] == node).unwrap_or(0);
            let (e1, e2) = (x[(c + 1) % 3] - x[c], x[(c + 2) % 3] - x[c]);
            m += e1.cross(e2).length().atan2(e1.dot(e2)) * n;
        } else if e == t || tri[..3].contains(&other) {
            m += n;
        }
    }
    m
}

/// A slave against element `t`: `(weights, d, g)`, `rel` measuring positions from the slave.
pub fn resolve_element(
    s: &Surfaces<'_>,
    t: u32,
    rel: &impl Fn(u32) -> Vec3,
) -> ([f32; 3], f32, Vec3) {
    let tri = s.shell_tris[t as usize];
    let (x0, x1) = (rel(tri[0]), rel(tri[1]));
    if tri[2] == NO_NODE {
        let m0 = pseudonormal(s, tri[0], NO_NODE, t, rel);
        let m1 = pseudonormal(s, tri[1], NO_NODE, t, rel);
        let c = resolve_node_to_segment(x0, x1, m0, m1);
        let w = c.s.clamp(0.0, 1.0);
        return ([1.0 - w, w, 0.0], c.d, Vec3::from(c.g));
    }
    let x2 = rel(tri[2]);
    let (w, region) = closest_on_triangle(x0, x1, x2);
    let m = if region == FACE {
        triangle_normal(x0, x1, x2)
    } else if region < EDGE {
        pseudonormal(s, tri[(region - VERTEX) as usize], NO_NODE, t, rel)
    } else {
        let k = (region - EDGE) as usize;
        pseudonormal(s, tri[k], tri[(k + 1) % 3], t, rel)
    };
    let (d, g) = resolve_node_to_triangle(x0, x1, x2, w, m);
    (w, d, g)
}

/// The best element of one master ring or shell so far.
#[derive(Clone, Copy, Debug, Default)]
struct Master {
    shell: u32,
    element: u32,
    w: [f32; 3],
    d: f32,
    g: Vec3,
}

/// Whether element `t` shares a node with one of the slave's own elements `own`.
pub fn touches(s: &Surfaces<'_>, t: u32, own: &[u32]) -> bool {
    let tri = s.shell_tris[t as usize];
    own.iter().any(|&e| {
        let o = s.shell_tris[e as usize];
        tri[..3]
            .iter()
            .any(|&q| q != NO_NODE && o[..3].contains(&q))
    })
}

/// Slave `gid`'s records `out` ([`SURFACE_RECORDS`]).
pub fn surface_contact(
    gid: usize,
    domain: &DomainParams,
    s: &Surfaces<'_>,
    list: (&[u32], &[u32], &[u32], &[u32]),
    pos: &[[f32; 4]],
    out: &mut [[f32; 4]],
) {
    out.fill([0.0; 4]);
    for k in 0..MASTERS {
        out[2 * k][0] = f32::from_bits(NO_NODE);
    }
    let own = s.elements(gid as u32);
    let Some(&first) = own.first() else {
        return;
    };
    let own_shell = s.shell_tris[first as usize][3];
    let xa = v4xyz(pos[gid]);
    let rel = |q: u32| v3(min_image((v4xyz(pos[q as usize]) - xa).into(), domain));
    let mut seen = [Master::default(); SEEN];
    let (mut n_seen, mut overflow) = (0usize, 0u32);
    let (nbr_start, pair_start, pair_j, head_pair) = list;
    for_each_neighbour(gid, nbr_start, pair_start, pair_j, head_pair, |q| {
        for &t in s.elements(q) {
            let shell = s.shell_tris[t as usize][3];
            let params = s.shells[shell as usize];
            if shell == own_shell && (params.self_contact == 0 || touches(s, t, own)) {
                continue;
            }
            let (w, d, g) = resolve_element(s, t, &rel);
            if d.abs() > params.contact_reach {
                continue;
            }
            let m = Master {
                shell,
                element: t,
                w,
                d,
                g,
            };
            match seen[..n_seen].iter_mut().find(|x| x.shell == shell) {
                Some(x) if d.abs() < x.d.abs() => *x = m,
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
        let p = law_penalty(m.d, s.shells[m.shell as usize].contact_stiffness);
        let f = -p[0] * m.g;
        out[2 * kept] = [f32::from_bits(m.element), m.w[0], m.w[1], m.w[2]];
        out[2 * kept + 1] = [f.x, f.y, f.z, p[1]];
        energy += p[1];
        kept += 1;
    }
    out[2 * MASTERS] = [
        energy,
        f32::from_bits(kept as u32),
        f32::from_bits(overflow),
        0.0,
    ];
}
