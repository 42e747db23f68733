//! Rings: closed polylines of nodes in the plane z = 0, the deformable cells of a 2-D scene (a
//! membrane seen edge-on). A ring is built once, on the host, into the tables of the shell
//! passes ([`crate::shells`]), whose elements it shares:
//!
//! - each **node** becomes a particle (a sphere of the ring's contact radius, in the plane,
//!   without rotational freedom), whose mass is that of half of each of its two segments, a
//!   filament of square section `thickness^2` of the ring's material;
//! - each **segment** `(a, b)` becomes one shell edge `(a, b, c, NO_NODE)`, `c` the node after
//!   `b`: the segment's spring (`spring`, `F = k (L - L0)`, `L0` its initial length) and
//!   dashpot (`shell_viscosity`, `Gamma = mu t / sqrt(3)` as on a shell) between a and b, and
//!   the bending of node b (`linear_bending` or `elastic_bending` of the turning angle, the
//!   `segment_segment_common_node` resolver);
//! - each segment is also a "triangle" `(a, b, NO_NODE, ring)` of the `shell_volume` pass,
//!   whose measure for a ring is the enclosed area (`area_conservation`).
//!
//! Orientation, as node-to-segment contact needs it (`shared/reference/003`): walking from
//! node 0 to node 1 the interior is on the left, so a ring's nodes run anticlockwise and its
//! signed area is positive; a clockwise ring is refused.

use crate::error::CoreError;
use crate::kernels::shell::segment_segment_common_node::turning_angle;
use crate::kernels::shell::{BendingLaw, DampingLaw};
use crate::material::Material;
use crate::shells::{push_node, ShellEdgeParams, ShellParams, Shells, SurfaceContact, NO_NODE};
use crate::world::Particles;

/// The area law of a ring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AreaLaw {
    /// `k_a` (N/m) of `area_conservation`.
    pub stiffness: f64,
    /// Rest area (m^2); `None` for the initial area.
    pub rest_area: Option<f64>,
}

/// The laws of one ring, slot by slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RingLaws {
    /// Spring stiffness of every segment (N/m), the `spring` law.
    pub stretch: Option<f64>,
    pub bending: Option<BendingLaw>,
    pub damping: Option<DampingLaw>,
    pub area: Option<AreaLaw>,
    pub contact: Option<SurfaceContact>,
}

/// A ring as the scene gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct RingSpec {
    /// Node positions in the plane (m), anticlockwise.
    pub points: Vec<[f64; 2]>,
    /// Material index.
    pub material: u32,
    /// Thickness of the membrane (m).
    pub thickness: f64,
    /// Contact radius of its nodes (m); `None`: 0.45 of the shortest segment.
    pub contact_radius: Option<f64>,
    /// Initial velocity of every node (m/s, in the plane).
    pub velocity: [f64; 2],
    pub laws: RingLaws,
}

/// `n` points on the circle of `center` and `radius`, anticlockwise from angle 0.
pub fn circle(center: [f64; 2], radius: f64, n: u32) -> Vec<[f64; 2]> {
    (0..n)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / n as f64;
            [center[0] + radius * a.cos(), center[1] + radius * a.sin()]
        })
        .collect()
}

/// Signed area (m^2) of the closed polyline `points` (positive anticlockwise).
pub fn polygon_area(points: &[[f64; 2]]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|k| {
            let (a, b) = (points[k], points[(k + 1) % n]);
            0.5 * (a[0] * b[1] - a[1] * b[0])
        })
        .sum()
}

/// The first two segments of the closed polyline `p` that share no node and intersect, by a
/// sweep along x (segments sorted by their left end, each compared with those that start
/// before it ends): `(a, b)` with `a < b`.
fn crossing_segments(p: &[[f64; 2]]) -> Option<(usize, usize)> {
    let n = p.len();
    let seg = |k: usize| (p[k], p[(k + 1) % n]);
    let orient = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    let cross = |i: usize, j: usize| {
        let ((a, b), (c, d)) = (seg(i), seg(j));
        let (o1, o2) = (orient(a, b, c), orient(a, b, d));
        let (o3, o4) = (orient(c, d, a), orient(c, d, b));
        o1 * o2 <= 0.0 && o3 * o4 <= 0.0 && !(o1 == 0.0 && o2 == 0.0)
    };
    let mut order: Vec<usize> = (0..n).collect();
    let lo = |k: usize| seg(k).0[0].min(seg(k).1[0]);
    let hi = |k: usize| seg(k).0[0].max(seg(k).1[0]);
    order.sort_by(|&a, &b| lo(a).total_cmp(&lo(b)));
    let mut found: Option<(usize, usize)> = None;
    for (x, &i) in order.iter().enumerate() {
        for &j in &order[x + 1..] {
            if lo(j) > hi(i) {
                break;
            }
            let adjacent = (i + 1) % n == j || (j + 1) % n == i;
            if !adjacent && cross(i, j) {
                let pair = (i.min(j), i.max(j));
                found = Some(found.map_or(pair, |f| f.min(pair)));
            }
        }
    }
    found
}

fn length(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

/// Refuse a ring that cannot be built: too few nodes, a zero-length segment, a clockwise
/// ring, an area law with a rest area that is not positive.
fn check(spec: &RingSpec) -> Result<(), CoreError> {
    let bad = |what: String| Err(CoreError::BadMesh(what));
    let p = &spec.points;
    if p.len() < 3 {
        return bad(format!("a ring needs at least 3 nodes, found {}", p.len()));
    }
    if let Some(k) = (0..p.len()).find(|&k| length(p[k], p[(k + 1) % p.len()]) <= 0.0) {
        return bad(format!(
            "nodes {k} and {} of the ring coincide",
            (k + 1) % p.len()
        ));
    }
    if let Some((a, b)) = crossing_segments(p) {
        let n = p.len();
        return bad(format!(
            "the ring crosses itself: its segments {a} (nodes {a}-{}) and {b} (nodes {b}-{}) \
             intersect; a ring must be a simple closed polyline",
            (a + 1) % n,
            (b + 1) % n
        ));
    }
    let area = polygon_area(p);
    if area <= 0.0 {
        return bad(format!(
            "the ring's nodes run clockwise (signed area {area:e} m^2); walking from node 0 to \
             node 1 the interior must be on the left: list them anticlockwise"
        ));
    }
    if let Some(AreaLaw {
        rest_area: Some(a0),
        ..
    }) = spec.laws.area
    {
        if a0 <= 0.0 {
            return bad(format!("the rest area must be positive, found {a0:e} m^2"));
        }
    }
    Ok(())
}

impl Shells {
    /// Append ring `spec`'s nodes to `particles` and its elements to these tables.
    pub fn add_ring(
        &mut self,
        spec: &RingSpec,
        materials: &[Material],
        particles: &mut Particles,
    ) -> Result<(), CoreError> {
        check(spec)?;
        let mat = materials
            .get(spec.material as usize)
            .ok_or_else(|| CoreError::BadMesh(format!("no material {}", spec.material)))?;
        let (p, n) = (&spec.points, spec.points.len());
        let seg: Vec<f64> = (0..n).map(|k| length(p[k], p[(k + 1) % n])).collect();
        let shortest = seg.iter().copied().fold(f64::INFINITY, f64::min);
        let radius = spec.contact_radius.unwrap_or(0.45 * shortest);
        let t = spec.thickness;
        let first = particles.len() as u32;
        let ring = self.shells.len() as u32;
        for k in 0..n {
            let m = mat.density * t * t * 0.5 * (seg[k] + seg[(k + n - 1) % n]);
            let (x, v) = (p[k], spec.velocity);
            let node = [x[0], x[1], 0.0, radius];
            push_node(particles, node, [v[0], v[1], 0.0], m, spec.material);
        }
        let tri_start = self.triangles.len() as u32;
        for (a, &length) in seg.iter().enumerate() {
            let (b, c) = ((a + 1) % n, (a + 2) % n);
            let mut e = ShellEdgeParams {
                shell: ring,
                stretch: spec.laws.stretch.unwrap_or(0.0) as f32,
                ..Default::default()
            };
            match spec.laws.damping {
                Some(DampingLaw::ShellViscosity { viscosity }) => {
                    e.viscosity =
                        crate::kernels::shell::shell_viscosity::coefficient(viscosity, t) as f32;
                }
                Some(DampingLaw::MaxwellShell { relaxation_time }) => {
                    e.relax_time = relaxation_time as f32;
                }
                None => {}
            }
            if let Some(law) = spec.laws.bending {
                let x = |q: usize| [p[q][0] as f32, p[q][1] as f32, 0.0];
                e.bend_law = law.code();
                e.bend = law.stiffness(mat, t) as f32;
                e.theta0 = law
                    .reference_angle()
                    .unwrap_or(turning_angle(x(a), x(b), x(c)) as f64)
                    as f32;
            }
            let node = |q: usize| first + q as u32;
            self.edges.push([node(a), node(b), node(c), NO_NODE]);
            self.edge_params.push(e);
            self.rest.push(length as f32);
            self.triangles.push([node(a), node(b), NO_NODE, ring]);
        }
        let (volume_stiffness, rest_volume) = match spec.laws.area {
            Some(a) => (
                a.stiffness as f32,
                a.rest_area.unwrap_or(polygon_area(p)) as f32,
            ),
            None => (0.0, polygon_area(p) as f32),
        };
        let longest = seg.iter().copied().fold(0.0, f64::max);
        let (contact_stiffness, self_contact, contact_reach) =
            SurfaceContact::params(spec.laws.contact, longest);
        self.shells.push(ShellParams {
            volume_stiffness,
            rest_volume,
            tri_start,
            tri_count: n as u32,
            ref_node: first,
            contact_stiffness,
            self_contact,
            contact_reach,
        });
        self.nodes.push((first, n as u32));
        Ok(())
    }
}
