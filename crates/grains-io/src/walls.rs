//! The walls of a frame as surfaces for ParaView: `walls_<step>.vtp`, part 3 of the series.
//!
//! Walls are infinite or open in the solver, so each is drawn over what the domain can see:
//!
//! - a plane (and a box's face) as the polygon where it cuts the domain's box, or, where it
//!   misses the box, a square as wide as the box's diagonal about the domain centre's
//!   projection on it;
//! - a cylinder as triangles between two rings of [`SEGMENTS`] points, at the axial bounds of
//!   the domain's box;
//! - a cone from its orifice up to the domain box's axial bound;
//! - a disk as one polygon of [`SEGMENTS`] points on its rim;
//! - a mesh wall's triangles where their particles are.
//!
//! Each wall is drawn where the backend holds it at the frame's step. A cylinder, a cone or a
//! disk turning about its own axis has the same shape at every angle, so the rings start at an
//! azimuth that turns with the wall: the drawn points follow the wall's rotation and a drum is
//! seen to turn. Geometry is computed in f64 and written as Float32.

use std::io::{self, Write};

use grains_core::kernel_types::{Triangle, Wall};
use grains_core::kernels::walls::{Outline, WallKind};
use grains_core::World;

/// Points on a cylinder's, a cone's or a disk's rim: fine enough that a drum looks round.
pub const SEGMENTS: usize = 64;

/// The `kind` cell value of a mesh wall's triangle (the others are [`Wall::kind`]).
pub const KIND_MESH: u32 = 4;

/// File name of the wall frame of `step`.
pub fn walls_file_name(step: u64) -> String {
    crate::vtk::part_file_name(3, step)
}

type V = [f64; 3];

fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: V, s: f64) -> V {
    a.map(|x| x * s)
}

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a` of unit length, or `fallback` where it has none (zero or not finite).
fn unit_or(a: V, fallback: V) -> V {
    let l = dot(a, a).sqrt();
    if l > 0.0 && l.is_finite() {
        scale(a, 1.0 / l)
    } else {
        fallback
    }
}

fn f64s(a: [f32; 3]) -> V {
    a.map(f64::from)
}

/// `x` turned by the rotation vector `angle` (rad about its direction), as the walls' motion
/// turns them (Rodrigues).
fn rotate(x: V, angle: V) -> V {
    let th = dot(angle, angle).sqrt();
    if th == 0.0 || !th.is_finite() {
        return x;
    }
    let k = scale(angle, 1.0 / th);
    let (s, c) = th.sin_cos();
    add(
        add(scale(x, c), scale(cross(k, x), s)),
        scale(k, dot(k, x) * (1.0 - c)),
    )
}

/// A unit vector perpendicular to the unit `a`, the same for the same `a`.
fn perpendicular(a: V) -> V {
    let other = if a[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    unit_or(cross(a, other), [0.0, 0.0, 1.0])
}

/// The unit axis of a round wall and two unit vectors across it, `(axis, e, f)`, `e` where the
/// rings start: the perpendicular of the wall's initial axis, turned as the wall has turned
/// (`omega` for `moved dt`), so the rings turn with it.
fn round_frame(w: &Wall, dt: f64) -> (V, V, V) {
    let a = unit_or(f64s(w.normal), [0.0, 0.0, 1.0]);
    let turn = scale(f64s(w.omega), f64::from(w.moved) * dt);
    let initial = rotate(a, scale(turn, -1.0));
    let e = rotate(perpendicular(initial), turn);
    let e = unit_or(sub(e, scale(a, dot(e, a))), perpendicular(a));
    (a, e, cross(a, e))
}

/// The 8 corners of the domain's box.
fn corners(world: &World) -> [V; 8] {
    let (lo, hi) = (world.domain.min, world.domain.max);
    std::array::from_fn(|b| std::array::from_fn(|k| if b >> k & 1 == 1 { hi[k] } else { lo[k] }))
}

/// The surfaces of a frame's walls: points, polygons, and per polygon its wall, kind and
/// material.
#[derive(Default)]
pub(crate) struct Surfaces {
    pub points: Vec<V>,
    pub polys: Vec<Vec<u32>>,
    /// Index in the world's walls; -1 for a mesh wall's triangle.
    pub wall: Vec<i64>,
    pub kind: Vec<u32>,
    pub material: Vec<u32>,
}

impl Surfaces {
    fn point(&mut self, x: V) -> u32 {
        self.points.push(x);
        (self.points.len() - 1) as u32
    }

    fn poly(&mut self, ids: Vec<u32>, wall: i64, kind: u32, material: u32) {
        self.polys.push(ids);
        self.wall.push(wall);
        self.kind.push(kind);
        self.material.push(material);
    }

    /// Plane `w`'s patch: the polygon where it cuts the domain's box.
    fn plane(&mut self, index: i64, w: &Wall, world: &World) {
        let n = unit_or(f64s(w.normal), [0.0, 0.0, 1.0]);
        let p = f64s(w.point);
        let c = corners(world);
        let diag = dot(sub(c[7], c[0]), sub(c[7], c[0])).sqrt();
        // A box face lies on the domain's face: its corners are on the plane to rounding.
        let eps = 1e-6 * diag.max(f64::MIN_POSITIVE);
        let d = c.map(|x| dot(sub(x, p), n));
        let mut cut: Vec<V> = Vec::new();
        for b in 0..8 {
            if d[b].abs() <= eps {
                cut.push(sub(c[b], scale(n, d[b])));
            }
            for k in 0..3 {
                let o = b | 1 << k;
                let crosses = (d[b] < -eps && d[o] > eps) || (d[b] > eps && d[o] < -eps);
                if o != b && crosses {
                    let t = d[b] / (d[b] - d[o]);
                    cut.push(add(c[b], scale(sub(c[o], c[b]), t)));
                }
            }
        }
        let mut ring: Vec<V> = Vec::new();
        for x in cut {
            if ring
                .iter()
                .all(|y| dot(sub(x, *y), sub(x, *y)).sqrt() > eps)
            {
                ring.push(x);
            }
        }
        let (u, v) = {
            let u = perpendicular(n);
            (u, cross(n, u))
        };
        if ring.len() < 3 {
            // The plane misses the box: a square about the box centre's projection.
            let mid = scale(add(c[0], c[7]), 0.5);
            let at = sub(mid, scale(n, dot(sub(mid, p), n)));
            let h = 0.5 * diag;
            ring = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(a, b)| add(at, add(scale(u, a * h), scale(v, b * h))))
                .to_vec();
        }
        let centre = scale(
            ring.iter().fold([0.0; 3], |s, x| add(s, *x)),
            1.0 / ring.len() as f64,
        );
        let angle = |x: &V| {
            let r = sub(*x, centre);
            dot(r, v).atan2(dot(r, u))
        };
        ring.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
        let ids = ring.into_iter().map(|x| self.point(x)).collect();
        self.poly(ids, index, w.kind, w.material);
    }

    /// A ring of [`SEGMENTS`] points of `radius` about `centre`, starting at `e`.
    fn ring(&mut self, centre: V, e: V, f: V, radius: f64) -> Vec<u32> {
        (0..SEGMENTS)
            .map(|k| {
                let th = std::f64::consts::TAU * k as f64 / SEGMENTS as f64;
                let r = add(scale(e, radius * th.cos()), scale(f, radius * th.sin()));
                self.point(add(centre, r))
            })
            .collect()
    }

    /// A cylinder's or cone's surface: triangles between the ring of `r0` at axial `s0` and
    /// the ring of `r1` at `s1`.
    fn band(&mut self, index: i64, w: &Wall, dt: f64, (s0, r0): (f64, f64), (s1, r1): (f64, f64)) {
        let (a, e, f) = round_frame(w, dt);
        let p = f64s(w.point);
        let low = self.ring(add(p, scale(a, s0)), e, f, r0);
        let high = self.ring(add(p, scale(a, s1)), e, f, r1);
        for k in 0..SEGMENTS {
            let j = (k + 1) % SEGMENTS;
            self.poly(vec![low[k], low[j], high[k]], index, w.kind, w.material);
            self.poly(vec![low[j], high[j], high[k]], index, w.kind, w.material);
        }
    }

    /// Wall `index` as it stands.
    fn wall(&mut self, index: i64, w: &Wall, world: &World) {
        let dt = world.dt;
        // Axial bounds of the domain's box along a round wall's axis, from its point.
        let along = || {
            let a = unit_or(f64s(w.normal), [0.0, 0.0, 1.0]);
            let s = corners(world).map(|x| dot(sub(x, f64s(w.point)), a));
            let lo = s.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo, hi)
        };
        let Some(kind) = WallKind::of(w.kind) else {
            // A kind this writer does not know is left out rather than drawn wrong.
            return;
        };
        match kind.outline(w, along()) {
            Outline::Plane => self.plane(index, w, world),
            Outline::Band(low, high) => self.band(index, w, dt, low, high),
            Outline::Disk => {
                let (_, e, f) = round_frame(w, dt);
                let ids = self.ring(f64s(w.point), e, f, f64::from(w.radius));
                self.poly(ids, index, w.kind, w.material);
            }
            Outline::Nothing => {}
        }
    }

    /// The mesh walls' triangles (`triangles`, as they stand): each carried by one of the
    /// world's last particles, its vertices relative to that particle's centre in `pos`.
    fn meshes(&mut self, world: &World, triangles: &[Triangle], pos: &[[f32; 4]]) {
        let p = &world.particles;
        let n = p.shape.len();
        for i in n - world.triangle_tail()..n {
            let rec = p.shape_of(i);
            let k = rec.data[0].to_bits() as usize;
            let tri: Option<&Triangle> = triangles.get(k).or(world.triangles.get(k));
            let (Some(t), Some(c)) = (tri, pos.get(i).or(p.pos.get(i))) else {
                continue;
            };
            let c = [c[0], c[1], c[2]].map(f64::from);
            let ids = [t.a, t.b, t.c]
                .iter()
                .map(|v| self.point(add(c, f64s(*v))))
                .collect();
            let material = p.material.get(i).copied().unwrap_or_default();
            self.poly(ids, -1, KIND_MESH, material);
        }
    }
}

/// The surfaces of `walls` (the world's walls as they stand now; the mesh walls' bodies after
/// them are drawn as their triangles) and of the world's mesh walls, `triangles` as they stand,
/// whose particles are at `pos` (every particle of the solver, the triangles last).
pub(crate) fn surfaces(
    world: &World,
    walls: &[Wall],
    triangles: &[Triangle],
    pos: &[[f32; 4]],
) -> Surfaces {
    let mut s = Surfaces::default();
    for (k, w) in walls.iter().take(world.walls.len()).enumerate() {
        s.wall(k as i64, w, world);
    }
    s.meshes(world, triangles, pos);
    s
}

/// Writes `s` as VTK polydata (ASCII): the points, each surface piece a polygon, with cell
/// data `wall` (its index among the world's walls, -1 for a mesh triangle), `kind`
/// ([`Wall::kind`], [`KIND_MESH`] for a mesh triangle) and `material`.
pub(crate) fn write_surfaces(w: &mut impl Write, s: &Surfaces) -> io::Result<()> {
    writeln!(
        w,
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <PolyData>\n    <Piece NumberOfPoints=\"{}\" NumberOfPolys=\"{}\">",
        s.points.len(),
        s.polys.len()
    )?;
    writeln!(w, "      <Points>\n        <DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">")?;
    for x in &s.points {
        let x = x.map(|c| c as f32);
        writeln!(w, "          {} {} {}", x[0], x[1], x[2])?;
    }
    writeln!(w, "        </DataArray>\n      </Points>\n      <Polys>")?;
    writeln!(
        w,
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">"
    )?;
    for c in &s.polys {
        let ids: Vec<String> = c.iter().map(u32::to_string).collect();
        writeln!(w, "          {}", ids.join(" "))?;
    }
    writeln!(
        w,
        "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">"
    )?;
    let mut at = 0;
    for c in &s.polys {
        at += c.len();
        writeln!(w, "          {at}")?;
    }
    writeln!(
        w,
        "        </DataArray>\n      </Polys>\n      <CellData Scalars=\"wall\">"
    )?;
    let column = |w: &mut dyn Write, name: &str, values: &mut dyn Iterator<Item = i64>| {
        writeln!(
            w,
            "        <DataArray type=\"Int64\" Name=\"{name}\" format=\"ascii\">"
        )?;
        for v in values {
            writeln!(w, "          {v}")?;
        }
        writeln!(w, "        </DataArray>")
    };
    column(w, "wall", &mut s.wall.iter().copied())?;
    column(w, "kind", &mut s.kind.iter().map(|&k| i64::from(k)))?;
    column(w, "material", &mut s.material.iter().map(|&k| i64::from(k)))?;
    writeln!(
        w,
        "      </CellData>\n    </Piece>\n  </PolyData>\n</VTKFile>"
    )
}
