//! Sphere-triangle resolver with a contact fraction. WGSL twin:
//! `shaders/resolvers/sphere_triangle.wgsl`.
//!
//! Body 1 is a sphere, body 2 the particle that carries the triangle (usually fixed, maybe
//! translating): the triangle's vertices are `b2.pos + t.a`, `b2.pos + t.b`, `b2.pos + t.c`,
//! reached from the sphere through the minimum image. The contact is with the triangle's plane,
//! on the side of the sphere's centre (two-sided): with `h` the centre's signed distance from
//! the plane, the normal points from the sphere into the plane and `delta = R - |h|`. Its
//! fraction is that of the sphere's contact circle with the plane (centre the projection of the
//! sphere's centre, radius `a = sqrt(R^2 - h^2)`) lying inside the triangle, as Mpacts'
//! `NGon_Sphere` contact does: `area(disk n triangle) / (pi a^2)`, computed exactly
//! ([`disk_triangle_area`]), so that a sphere on a flat mesh feels, summed over the triangles
//! it touches, exactly the force of the plane. A circle that misses the triangle is no contact:
//! `delta` is then `R` minus the distance from the centre to the triangle (negative), so that
//! a sphere approaching an edge or a vertex sees its gap close continuously. The contact point
//! is in the middle of the overlap below the centre (as `sphere_plane`); `r_eff = R` and
//! Woo's lengths `l1 = l2 = R` (a flat facet).

use crate::kernels::resolvers::body_contact;
use glam::{Vec2, Vec3, Vec4};

use crate::kernel_types::SourcePair;
use crate::kernel_types::{ContactGeom, DomainParams, SphereBody, Triangle};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{flip_geom, ordered, triangle_index, Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::{v3, v4xyz};
use crate::parity::shape_inputs;
use crate::parity::SplitMix;
use crate::shapes::KIND_TRIANGLE;

/// The angle (rad, in (-pi, pi]) turning 2D vector `u` to `v`; neither may be zero.
pub fn disk_angle(u: Vec2, v: Vec2) -> f32 {
    (u.x * v.y - u.y * v.x).atan2(u.x * v.x + u.y * v.y)
}

/// Signed area (m^2, positive for `p` to `q` counter-clockwise about the origin) of the disk of
/// radius `a` (m) about the origin intersected with the triangle `(0, p, q)`.
///
/// The edge `p + s (q - p)` enters the disk at `s1` and leaves it at `s2` (the roots of
/// `|p + s (q - p)| = a`, clamped to [0, 1]): the part inside contributes its triangle with the
/// origin, the parts outside the circular sectors they subtend (the signed-triangle
/// decomposition of a polygon's area about a point, applied to its intersection with a disk;
/// the roots as for a segment against a sphere, Ericson, *Real-Time Collision Detection*, 2005,
/// §5.3.2).
pub fn disk_edge_area(p: Vec2, q: Vec2, a: f32) -> f32 {
    let dv = q - p;
    let aa = dv.dot(dv);
    let a2 = a * a;
    if aa <= 0.0 {
        return 0.0;
    }
    let b = p.dot(dv);
    let c = p.dot(p) - a2;
    let disc = b * b - aa * c;
    if disc <= 0.0 {
        // The edge's line misses the disk: a sector only.
        return 0.5 * a2 * disk_angle(p, q);
    }
    let sq = disc.sqrt();
    let s1 = ((-b - sq) / aa).clamp(0.0, 1.0);
    let s2 = ((-b + sq) / aa).clamp(0.0, 1.0);
    let m1 = p + dv * s1;
    let m2 = p + dv * s2;
    let mut area = 0.5 * (m1.x * m2.y - m1.y * m2.x);
    if s1 > 0.0 {
        area += 0.5 * a2 * disk_angle(p, m1);
    }
    if s2 < 1.0 {
        area += 0.5 * a2 * disk_angle(m2, q);
    }
    area
}

/// Area (m^2) of the disk of centre `c` and radius `a` (m) intersected with the triangle
/// `p0 p1 p2` (2D, either winding): the sum of [`disk_edge_area`] over the three edges seen
/// from `c`. Zero for `a = 0`.
pub fn disk_triangle_area(c: Vec2, a: f32, p0: Vec2, p1: Vec2, p2: Vec2) -> f32 {
    let q0 = p0 - c;
    let q1 = p1 - c;
    let q2 = p2 - c;
    let area = disk_edge_area(q0, q1, a) + disk_edge_area(q1, q2, a) + disk_edge_area(q2, q0, a);
    area.abs()
}

/// Distance (m) from the origin to the 2D segment `p q`.
pub fn origin_segment_distance(p: Vec2, q: Vec2) -> f32 {
    let dv = q - p;
    let aa = dv.dot(dv);
    let mut s = 0.0;
    if aa > 0.0 {
        s = (-p.dot(dv) / aa).clamp(0.0, 1.0);
    }
    let x = p + dv * s;
    x.dot(x).sqrt()
}

/// Whether the origin lies in the 2D triangle `p0 p1 p2` (either winding, edges included).
pub fn origin_in_triangle(p0: Vec2, p1: Vec2, p2: Vec2) -> bool {
    let c0 = p0.x * p1.y - p0.y * p1.x;
    let c1 = p1.x * p2.y - p1.y * p2.x;
    let c2 = p2.x * p0.y - p2.y * p0.x;
    (c0 >= 0.0 && c1 >= 0.0 && c2 >= 0.0) || (c0 <= 0.0 && c1 <= 0.0 && c2 <= 0.0)
}

/// Unit normal of triangle `t`, `(b - a) x (c - a)` normalised; +z for a degenerate one.
pub fn triangle_normal(t: &Triangle) -> Vec3 {
    let m = (v3(t.b) - v3(t.a)).cross(v3(t.c) - v3(t.a));
    let l = m.dot(m).sqrt();
    if l > 0.0 {
        m / l
    } else {
        Vec3::Z
    }
}

/// The contact of the sphere at `x1` (centre xyz, radius w) with triangle `t` of the particle
/// at `x2` (centre xyz; w unused): `(h, delta, fraction, a)`, with `h` (m) the signed distance
/// of the triangle's plane from the sphere's centre along [`triangle_normal`], `delta` (m) the
/// resolver's overlap, `fraction` the share of the contact circle inside the triangle and `a`
/// (m) the circle's radius.
///
/// `a^2` is computed as `(R - |h|)(R + |h|)`, which keeps its relative precision for shallow
/// contacts where `R^2 - h^2` would cancel.
pub fn sphere_triangle_contact(
    x1: [f32; 4],
    x2: [f32; 4],
    t: &Triangle,
    domain: &DomainParams,
) -> Vec4 {
    let d = v3(min_image((v4xyz(x2) - v4xyz(x1)).to_array(), domain));
    let va = d + v3(t.a);
    let vb = d + v3(t.b);
    let vc = d + v3(t.c);
    let m = triangle_normal(t);
    let ab = v3(t.b) - v3(t.a);
    let lab = ab.dot(ab).sqrt();
    let e1 = if lab > 0.0 { ab / lab } else { Vec3::X };
    let e2 = m.cross(e1);
    let h = va.dot(m);
    let r = x1[3];
    let ah = h.abs();
    let delta0 = r - ah;
    let a = (delta0 * (r + ah)).max(0.0).sqrt();
    // In-plane coordinates about the projection of the sphere's centre.
    let p0 = Vec2::new(va.dot(e1), va.dot(e2));
    let p1 = Vec2::new(vb.dot(e1), vb.dot(e2));
    let p2 = Vec2::new(vc.dot(e1), vc.dot(e2));
    // The circle meets the triangle iff the centre's in-plane distance `rho` to it is below
    // `a`: decided here rather than from the area, whose sectors cancel only to rounding for
    // a circle that misses the triangle.
    let inside = origin_in_triangle(p0, p1, p2);
    let mut rho = 0.0;
    if !inside {
        rho = origin_segment_distance(p0, p1)
            .min(origin_segment_distance(p1, p2))
            .min(origin_segment_distance(p2, p0));
    }
    let disk = std::f32::consts::PI * a * a;
    let mut fraction = 0.0;
    if rho < a {
        fraction = 1.0;
        if disk > 0.0 {
            fraction = (disk_triangle_area(Vec2::ZERO, a, p0, p1, p2) / disk).min(1.0);
        }
    } else if inside {
        // a = 0 (touching, or clear of the plane) above the triangle.
        fraction = 1.0;
    }
    let mut delta = delta0;
    if fraction <= 0.0 {
        // Never positive: rounding must not make a missed triangle touch.
        delta = (r - (h * h + rho * rho).sqrt()).min(0.0);
    }
    Vec4::new(h, delta, fraction, a)
}

/// Overlap (m) of the sphere at `x1` (centre xyz, radius w) with triangle `t` of the particle
/// at `x2` (centre xyz, w unused), computed exactly as [`resolve_sphere_triangle`] computes
/// `delta` (the contact pass's early out): negative, minus the gap to the triangle, when the
/// contact circle misses it.
pub fn sphere_triangle_overlap(
    x1: [f32; 4],
    x2: [f32; 4],
    t: &Triangle,
    domain: &DomainParams,
) -> f32 {
    sphere_triangle_contact(x1, x2, t, domain).y
}

/// Resolve the contact between sphere `b1` and triangle `t` carried by particle `b2`.
///
/// The normal is the triangle's, towards the plane from the sphere's side (for a centre in the
/// plane, [`triangle_normal`]); `arm2 = point - b2.pos` (minimum image); `vrel` includes
/// `b2.vel + b2.omega x arm2`.
pub fn resolve_sphere_triangle(
    b1: &SphereBody,
    b2: &SphereBody,
    t: &Triangle,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let x1 = [b1.pos[0], b1.pos[1], b1.pos[2], b1.radius];
    let x2 = [b2.pos[0], b2.pos[1], b2.pos[2], b2.radius];
    let k = sphere_triangle_contact(x1, x2, t, domain);
    let m = triangle_normal(t);
    let n = if k.x < 0.0 { -m } else { m };
    let delta = k.y;
    let p1 = v3(b1.pos);
    let d = v3(min_image((v3(b2.pos) - p1).to_array(), domain));
    let arm1 = n * (b1.radius - 0.5 * delta);
    let arm2 = arm1 - d;
    body_contact(
        b1,
        arm1,
        b2,
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius,
        [b1.radius, b1.radius],
        k.z,
        dt,
    )
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct SphereTriangleResolver;

impl Resolver for SphereTriangleResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour];
    /// The fraction sums arc areas (asin, sqrt): a few more ulps.
    const PARITY_TOLERANCE: f32 = 1e-4;
    const READS_SHAPES: bool = true;
    const ADAPTER: &'static str = r#"fn pair_geom(pr: SourcePair) -> ContactGeom {
    var t = pr.q;
    var s = pr.p;
    let tri_is_p = shapes[shape[pr.p]].kind == KIND_TRIANGLE;
    if (tri_is_p) {
        t = pr.p;
        s = pr.q;
    }
    let g = resolve_sphere_triangle(load_sphere(pos[s], vel[s], omega[s]), load_sphere(pos[t], vel[t], omega[t]), triangle_of(t), domain, step.dt);
    if (tri_is_p) {
        return flip_geom(g);
    }
    return g;
}
fn pair_overlap(pr: SourcePair) -> f32 {
    return pair_geom(pr).delta;
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        // Against a facet, the particle's curvature alone (the larger bound).
        ra.max(rb)
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        // Written sphere first: flipped when the triangle is the lower index.
        let (t, s, tri_is_q) = ordered(pr, KIND_TRIANGLE, b);
        let g = resolve_sphere_triangle(
            &load_sphere(s, b.pos, b.vel, b.omega),
            &load_sphere(t, b.pos, b.vel, b.omega),
            &b.triangles[triangle_index(t, b)],
            b.domain,
            b.step.dt,
        );
        if tri_is_q {
            g
        } else {
            flip_geom(&g)
        }
    }

    type Body1 = SphereBody;
    type Body2 = SphereBody;
    const TWIN_ARGS: &'static str = "b1, b2, t, domain, dt";

    fn twin(
        c: &ResolverCase<SphereBody, SphereBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_sphere_triangle(&c.b1, &c.b2, &c.triangle, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, SphereBody> {
        let s = shape_inputs(rng, i);
        s.case(s.spheres.0, s.spheres.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_types::Wall;
    use crate::kernels::resolvers::sphere_plane::resolve_sphere_plane;
    use crate::parity::SplitMix;
    use glam::{DVec2, DVec3};
    use std::f64::consts::PI;

    fn d3(a: [f32; 3]) -> DVec3 {
        DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
    }

    fn d2(a: Vec2) -> DVec2 {
        DVec2::new(a.x as f64, a.y as f64)
    }

    fn tri(a: [f32; 3], b: [f32; 3], c: [f32; 3]) -> Triangle {
        Triangle {
            a,
            b,
            c,
            ..Default::default()
        }
    }

    /// Area of disk(c, a) n triangle in f64 by slicing: on each of `rows` horizontal lines
    /// (midpoint rule over the disk's height) the disk's chord is intersected with the
    /// triangle's, exactly.
    fn sliced_area(c: DVec2, a: f64, p: [DVec2; 3], rows: usize) -> f64 {
        let dy = 2.0 * a / rows as f64;
        let mut sum = 0.0;
        for k in 0..rows {
            let y = c.y - a + (k as f64 + 0.5) * dy;
            let half = (a * a - (y - c.y).powi(2)).max(0.0).sqrt();
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for e in 0..3 {
                let (u, v) = (p[e], p[(e + 1) % 3]);
                if (u.y - y) * (v.y - y) <= 0.0 && u.y != v.y {
                    let x = u.x + (y - u.y) * (v.x - u.x) / (v.y - u.y);
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
            }
            let len = hi.min(c.x + half) - lo.max(c.x - half);
            if len > 0.0 {
                sum += len * dy;
            }
        }
        sum
    }

    /// (a) `disk_triangle_area` against slicing in f64 on 300 random disk/triangle pairs
    /// (triangles in [-1, 1]^2, centres in [-1.2, 1.2]^2, radii 0.01 to 2: disks inside
    /// triangles, triangles inside disks, partial overlaps, no overlap).
    ///
    /// Tolerance: 2e-5 of the disk's area. The slicing's own error (midpoint rule with 20,000
    /// rows; the chords have square-root ends) is below 1e-6 of the disk's area, checked here
    /// against 40,000 rows. The f32 evaluation rounds coordinates (up to ~2) to ~1e-7, moving
    /// the area by about perimeter x 1e-7, i.e. up to ~1e-5 of the smallest disks' (a = 0.01)
    /// area. Measured worst: printed (3.2e-7 of the disk's area).
    #[test]
    fn disk_triangle_area_against_slicing() {
        let mut rng = SplitMix(0xC0A5_0006);
        let mut worst = 0.0f64;
        for i in 0..300 {
            let p =
                [0; 3].map(|_| Vec2::new(rng.range(-1.0, 1.0) as f32, rng.range(-1.0, 1.0) as f32));
            let c = Vec2::new(rng.range(-1.2, 1.2) as f32, rng.range(-1.2, 1.2) as f32);
            let a = rng.log_uniform(0.01, 2.0);
            let got = disk_triangle_area(c, a, p[0], p[1], p[2]) as f64;
            assert!(got.is_finite(), "case {i}");
            let pd = p.map(d2);
            let (cd, ad) = (d2(c), a as f64);
            let want = sliced_area(cd, ad, pd, 20_000);
            let finer = sliced_area(cd, ad, pd, 40_000);
            let disk = PI * ad * ad;
            assert!(
                (want - finer).abs() <= 1e-6 * disk,
                "case {i}: slicing {want} {finer}"
            );
            let err = (got - want).abs() / disk;
            worst = worst.max(err);
            assert!(err <= 2e-5, "case {i}: {got} want {want} (disk {disk})");
        }
        eprintln!("disk_triangle_area: worst error / disk area = {worst:.3e}");
    }

    /// A flat square floor `[-w, w]^2` at z = 0 split into `k x k` squares of two triangles
    /// each, carried by a particle at `centre` (vertices relative to it).
    fn floor(k: usize, w: f32, centre: [f32; 3]) -> Vec<Triangle> {
        let step = 2.0 * w / k as f32;
        let at = |i: usize, j: usize| {
            [
                -w + step * i as f32 - centre[0],
                -w + step * j as f32 - centre[1],
                -centre[2],
            ]
        };
        let mut out = Vec::new();
        for i in 0..k {
            for j in 0..k {
                out.push(tri(at(i, j), at(i + 1, j), at(i + 1, j + 1)));
                // Opposite winding for half of them: the contact is two-sided.
                out.push(tri(at(i, j), at(i, j + 1), at(i + 1, j + 1)));
            }
        }
        out
    }

    /// (b) A sphere resting on a flat floor made of 2 or 32 triangles: for 1000 random
    /// positions over the interior (the contact circle inside the floor; overlaps 1e-3 R to
    /// 0.3 R), the fractions of the triangles sum to 1 within 1e-4, and every touched
    /// triangle's delta, normal and contact point equal the plane's.
    ///
    /// 1e-4: each fraction carries the f32 rounding of the edges' positions (~1e-7 of the
    /// coordinates, up to 1) over the circle's radius, a >= 0.045 R; the worst sum is printed.
    #[test]
    fn fractions_of_a_flat_floor_sum_to_one() {
        let mut rng = SplitMix(0xC0A5_0007);
        let wall = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
        let mut worst = 0.0f64;
        for (k, centre) in [(1, [0.0, 0.0, 0.0]), (4, [0.3, -0.2, 0.1])] {
            let tris = floor(k, 1.0, centre);
            let carrier = SphereBody {
                pos: centre,
                radius: 0.0,
                ..Default::default()
            };
            for i in 0..1000usize {
                let r = rng.range(0.05, 0.4) as f32;
                let delta = r * rng.log_uniform(1e-3, 0.3);
                let a = (delta * (2.0 * r - delta)).sqrt();
                let lim = 1.0 - a - 1e-3;
                let b = SphereBody {
                    pos: [
                        rng.range(-lim as f64, lim as f64) as f32,
                        rng.range(-lim as f64, lim as f64) as f32,
                        r - delta,
                    ],
                    radius: r,
                    vel: rng.vec3(1.0),
                    inv_mass: 1.0,
                    omega: rng.vec3(10.0),
                    _pad: 0.0,
                };
                let plane = resolve_sphere_plane(&b, &wall, 1e-6);
                let domain = DomainParams::default();
                let mut sum = 0.0f64;
                for t in &tris {
                    let g = resolve_sphere_triangle(&b, &carrier, t, &domain, 1e-6);
                    let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
                    assert!(fields.iter().all(|x| x.is_finite()), "case {i}: {g:?}");
                    if g.fraction > 0.0 {
                        sum += g.fraction as f64;
                        assert!((g.delta - plane.delta).abs() <= 1e-6 * r, "case {i}");
                        assert_eq!(g.normal, plane.normal, "case {i}");
                        let moved = (v3(g.point) - v3(plane.point)).length();
                        assert!(moved <= 1e-6, "case {i}: {moved}");
                    } else {
                        assert!(g.delta <= 0.0, "case {i}");
                    }
                }
                worst = worst.max((sum - 1.0).abs());
                assert!((sum - 1.0).abs() <= 1e-4, "{k}x{k}, case {i}: sum {sum}");
            }
        }
        eprintln!("sphere_triangle: worst |sum of fractions - 1| on a floor = {worst:.3e}");
    }

    /// Exact f64 distance from the origin to the triangle `p` (3D).
    fn distance_to_triangle(p: [DVec3; 3]) -> f64 {
        let seg = |u: DVec3, v: DVec3| {
            let dv = v - u;
            let s = (-u.dot(dv) / dv.dot(dv)).clamp(0.0, 1.0);
            (u + dv * s).length()
        };
        let mut best = seg(p[0], p[1]).min(seg(p[1], p[2])).min(seg(p[2], p[0]));
        let m = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
        let h = p[0].dot(m);
        let foot = m * h;
        let side = |u: DVec3, v: DVec3| (u - foot).cross(v - foot).dot(m);
        let s = [side(p[0], p[1]), side(p[1], p[2]), side(p[2], p[0])];
        if s.iter().all(|&x| x >= 0.0) || s.iter().all(|&x| x <= 0.0) {
            best = best.min(h.abs());
        }
        best
    }

    /// (c) Random spheres near a random triangle (within 1.5 R of a point of its plane in or
    /// somewhat outside it, either side, some periodic images): where the
    /// contact circle misses the triangle (fraction 0) `delta` is negative and equals `R -`
    /// the f64 distance to the triangle (within 8 ulps of the coordinates); where it meets it,
    /// `delta = R - |h|` and the distance to the triangle is at most `R`; the normal points
    /// from the centre to the plane; `delta` equals the overlap function's.
    #[test]
    fn missed_triangle_is_no_contact() {
        let mut rng = SplitMix(0xC0A5_0008);
        let (mut misses, mut hits) = (0, 0);
        let mut worst = 0.0f64;
        for i in 0..1000usize {
            let carrier = SphereBody {
                pos: rng.vec3(0.05),
                radius: 0.01,
                vel: rng.vec3(0.1),
                omega: rng.vec3(1.0),
                ..Default::default()
            };
            let t = tri(rng.vec3(0.02), rng.vec3(0.02), rng.vec3(0.02));
            let r = rng.log_uniform(1e-3, 1e-2);
            // Near a point of the triangle's plane in or somewhat outside it.
            let u = rng.range(-0.3, 1.0) as f32;
            let v = rng.range(-0.3, 1.3 - u as f64) as f32;
            let foot = v3(t.a) + (v3(t.b) - v3(t.a)) * u + (v3(t.c) - v3(t.a)) * v;
            let offset = v3(rng.unit()) * (r * rng.range(0.0, 1.5) as f32);
            let mut pos = v3(carrier.pos) + foot + offset;
            let mut domain = DomainParams::default();
            if i.is_multiple_of(4) {
                domain.periodic_mask = 0b101;
                domain.length = [0.2, 0.0, 0.3];
                pos.x -= 0.2;
                pos.z += 0.3;
            }
            let b = SphereBody {
                pos: pos.to_array(),
                radius: r,
                vel: rng.vec3(1.0),
                inv_mass: 2.0,
                omega: rng.vec3(10.0),
                _pad: 0.0,
            };
            let g = resolve_sphere_triangle(&b, &carrier, &t, &domain, 1e-6);
            let x1 = [b.pos[0], b.pos[1], b.pos[2], r];
            let x2 = [carrier.pos[0], carrier.pos[1], carrier.pos[2], 0.01];
            assert_eq!(g.delta, sphere_triangle_overlap(x1, x2, &t, &domain));
            let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            assert!(fields.iter().all(|x| x.is_finite()), "case {i}: {g:?}");
            assert_eq!(g.m_eff, 0.5);

            let mut c = d3(b.pos);
            if domain.periodic_mask != 0 {
                c.x += 0.2;
                c.z -= 0.3;
            }
            let rel = [t.a, t.b, t.c].map(|v| d3(carrier.pos) + d3(v) - c);
            let dist = distance_to_triangle(rel);
            let scale = c.abs().max_element() + 0.1;
            let tol = 8.0 * f32::EPSILON as f64 * scale;
            let m = (rel[1] - rel[0]).cross(rel[2] - rel[0]).normalize();
            let h = rel[0].dot(m);
            // The normal points from the centre towards the plane (either way for a centre
            // within rounding of the plane).
            assert!(
                d3(g.normal).dot(m) * h >= 0.0 || h.abs() <= tol,
                "case {i}: h {h}"
            );
            if g.fraction == 0.0 {
                misses += 1;
                assert!(g.delta <= 0.0, "case {i}: {}", g.delta);
                let want = r as f64 - dist;
                if want < -tol {
                    assert!(g.delta < 0.0);
                }
                let err = (g.delta as f64 - want.min(0.0)).abs();
                worst = worst.max(err / tol);
                assert!(err <= tol, "case {i}: delta {} want {want}", g.delta);
            } else {
                // The circle meets the triangle, or the sphere is off the plane above the
                // triangle (a = 0, fraction 1): delta = R - |h| either way, which is then also
                // R - the distance to the triangle.
                let err = (g.delta as f64 - (r as f64 - h.abs())).abs();
                worst = worst.max(err / tol);
                assert!(err <= tol, "case {i}");
                if g.delta > 0.0 {
                    hits += 1;
                    assert!(dist <= r as f64 + tol, "case {i}: {dist} > {r}");
                } else {
                    assert_eq!(g.fraction, 1.0);
                    assert!(
                        (g.delta as f64 - (r as f64 - dist)).abs() <= tol,
                        "case {i}"
                    );
                }
                // arm2 from the carrier's (minimum-image) centre.
                let want_arm2 = d3(g.point) - (c + rel[0] - d3(t.a)) + (c - d3(b.pos));
                assert!((d3(g.arm2) - want_arm2).length() <= tol, "case {i}");
            }
        }
        assert!(misses > 100 && hits > 100, "{misses} misses, {hits} hits");
        eprintln!(
            "sphere_triangle: {hits} hits, {misses} misses; worst delta error / tolerance = {worst:.3e}"
        );
    }

    /// (d) No NaN in the degenerate cases: the centre on a vertex or an edge (in the plane, or
    /// above it by R so that a = 0, or by less), the centre in the plane inside the triangle,
    /// a degenerate triangle, a zero-radius sphere. `a = 0` gives fraction 1 inside, 0
    /// outside.
    #[test]
    fn degenerate_cases_are_finite() {
        let t = tri([0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]);
        let carrier = SphereBody::default();
        let domain = DomainParams::default();
        let r = 0.004f32;
        let spots = [
            [0.0, 0.0],
            [0.01, 0.0],
            [0.0, 0.01],
            [0.005, 0.0],
            [0.005, 0.005],
            [0.0, 0.003],
            [0.002, 0.002],
            [-0.001, -0.001],
            [0.02, 0.02],
        ];
        for (k, s) in spots.iter().enumerate() {
            for z in [0.0, r, -r, 0.5 * r, 1e-9, r + 1e-3] {
                for radius in [r, 0.0] {
                    let b = SphereBody {
                        pos: [s[0], s[1], z],
                        radius,
                        vel: [0.1, 0.0, 0.0],
                        inv_mass: 1.0,
                        omega: [0.0, 1.0, 0.0],
                        _pad: 0.0,
                    };
                    let g = resolve_sphere_triangle(&b, &carrier, &t, &domain, 1e-6);
                    let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
                    assert!(fields.iter().all(|x| x.is_finite()), "{s:?} {z}: {g:?}");
                    assert!((0.0..=1.0).contains(&g.fraction));
                    if z == r && radius == r {
                        // a = 0: inside (edges included) or not.
                        let inside = s[0] >= 0.0 && s[1] >= 0.0 && s[0] + s[1] <= 0.01;
                        assert_eq!(g.fraction, if inside { 1.0 } else { 0.0 }, "spot {k}");
                    }
                }
            }
        }
        // On a vertex in the plane: a quarter of the circle (the corner is a right angle).
        let b = SphereBody {
            pos: [0.0, 0.0, 0.0],
            radius: 0.001,
            ..Default::default()
        };
        let g = resolve_sphere_triangle(&b, &carrier, &t, &domain, 1e-6);
        assert!((g.fraction - 0.25).abs() < 1e-6, "{}", g.fraction);
        // On an edge's middle: half.
        let b = SphereBody {
            pos: [0.005, 0.0, 0.0005],
            radius: 0.001,
            ..Default::default()
        };
        let g = resolve_sphere_triangle(&b, &carrier, &t, &domain, 1e-6);
        assert!((g.fraction - 0.5).abs() < 1e-6, "{}", g.fraction);
        // A degenerate triangle: no NaN, no contact.
        let flat = tri([0.0; 3], [0.01, 0.0, 0.0], [0.02, 0.0, 0.0]);
        for pos in [[0.005, 0.0, 0.0], [0.005, 0.001, 0.0], [0.0, 0.0, 0.002]] {
            let b = SphereBody {
                pos,
                radius: r,
                ..Default::default()
            };
            let g = resolve_sphere_triangle(&b, &carrier, &flat, &domain, 1e-6);
            let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            assert!(fields.iter().all(|x| x.is_finite()), "{pos:?}: {g:?}");
            // Rounding leaves the cross product of collinear edges a little off zero, and the
            // "normal" it gives sees a sliver: the fraction is negligible, not exactly 0.
            assert!(g.fraction < 1e-6, "{pos:?}: {}", g.fraction);
        }
        // Below the plane: the normal flips.
        let b = SphereBody {
            pos: [0.002, 0.002, -0.003],
            radius: r,
            ..Default::default()
        };
        let g = resolve_sphere_triangle(&b, &carrier, &t, &domain, 1e-6);
        assert_eq!(g.normal, [0.0, 0.0, 1.0]);
        assert!((g.delta - 0.001).abs() < 1e-7);
    }
}
