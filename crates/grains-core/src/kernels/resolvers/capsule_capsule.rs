//! Capsule-capsule resolver. WGSL twin: `shaders/resolvers/capsule_capsule.wgsl`.
//!
//! The closest points of the two segments (the clamped method of Ericson, *Real-Time
//! Collision Detection*, 2005, §5.1.9) carry spheres of the two capsules' radii, and the pair
//! is then resolved as two spheres (`sphere_sphere`): contact point in the middle of the
//! overlap, minimum image on periodic axes, the normal +z for coincident points. Lever arms are
//! measured from each capsule's centre.
//!
//! Nearly parallel segments ([`PARALLEL`]) have no well-defined pair of closest points; there
//! the point is the middle of the interval where their projections on the first axis overlap,
//! so that it stays put instead of jumping from one end to the other as the axes turn.

use crate::kernels::resolvers::{body_contact, capsule_kinematics};
use glam::{Vec2, Vec3};

use crate::kernel_types::SourcePair;
use crate::kernel_types::{CapsuleBody, ContactGeom, DomainParams};
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{load_capsule_at, Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::{v3, v4xyz};
use crate::parity::shape_inputs;
use crate::parity::SplitMix;

/// Below this `|u x v|^2 = sin^2 theta` (angle between the axes under 1e-3 rad) the segments
/// count as parallel.
///
/// Why this value: along the overlap of two nearly parallel axes a distance `g` apart the
/// distance grows as `sqrt(g^2 + sin^2 theta s^2) ~ g + sin^2 theta s^2 / (2 g)`, so taking the
/// middle of the overlap instead of the true closest points overstates the gap by at most
/// `1e-6 L^2 / (2 g)` for segments of length `L`: under a millionth of the radius for capsules
/// up to a few diameters long, below the f32 rounding of positions away from the origin. Just
/// above it, the solve `s = (u.d - b v.d) / sin^2 theta` divides a numerator rounded to about
/// `1e-7 |d|` by at least `1e-6`; the error it makes in `s` moves the distance only to second
/// order (`sin^2 theta ds^2 / (2 g)`, a few `1e-9 |d|^2 / g`), and clamping bounds it. The
/// squared sine comes from the cross product rather than `1 - (u.v)^2`, which cancels to
/// nothing at small angles.
pub const PARALLEL: f32 = 1e-6;

/// Parameters `(s, t)` (m, along the unit axes) of the closest points `s u` and `d + t v` of
/// the segments `[-h1, h1] u` and `d + [-h2, h2] v` (positions relative to the first
/// segment's centre): Ericson's clamped method (§5.1.9) with unit axes, or for nearly parallel
/// axes the middle of the overlap of the second segment's projection with the first.
pub fn segments_closest(d: Vec3, u: Vec3, h1: f32, v: Vec3, h2: f32) -> Vec2 {
    let b = u.dot(v);
    let cu = u.dot(d);
    let fv = v.dot(d);
    let w = u.cross(v);
    let denom = w.dot(w);
    let mut s;
    if denom > PARALLEL {
        s = ((cu - b * fv) / denom).max(-h1).min(h1);
    } else {
        // The second segment projects on the first axis as `cu + [-|b| h2, |b| h2]`.
        let k = b.abs() * h2;
        let lo = (cu - k).max(-h1);
        let hi = (cu + k).min(h1);
        s = (0.5 * (lo + hi)).max(-h1).min(h1);
    }
    let mut t = b * s - fv;
    if t < -h2 {
        t = -h2;
        s = (t * b + cu).max(-h1).min(h1);
    } else if t > h2 {
        t = h2;
        s = (t * b + cu).max(-h1).min(h1);
    }
    Vec2::new(s, t)
}

/// Overlap (m) of the capsules at `x1`, `x2` (centre xyz, swept radius w) with unit axes
/// `axis1`, `axis2` (xyz, half-length w), computed exactly as [`resolve_capsule_capsule`]
/// computes `delta` (the contact pass's early out).
pub fn capsule_capsule_overlap(
    x1: [f32; 4],
    axis1: [f32; 4],
    x2: [f32; 4],
    axis2: [f32; 4],
    domain: &DomainParams,
) -> f32 {
    let d = v3(min_image((v4xyz(x2) - v4xyz(x1)).to_array(), domain));
    let u = v4xyz(axis1);
    let v = v4xyz(axis2);
    let st = segments_closest(d, u, axis1[3], v, axis2[3]);
    let e = d + v * st.y - u * st.x;
    let dist = e.length();
    x1[3] + x2[3] - dist
}

/// Resolve the contact between capsules `b1` and `b2`.
///
/// `r_eff = R1 R2 / (R1 + R2)` of the swept radii (m), lengths `[R1, R2]`; each arm is the
/// contact point minus that capsule's centre. Where the closest points lie inside both
/// segments, `alignment` is `(u . v) (u x v)` of the unit axes, for `dmt_capsule`.
pub fn resolve_capsule_capsule(
    b1: &CapsuleBody,
    b2: &CapsuleBody,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let p1 = v3(b1.pos);
    let p2 = v3(b2.pos);
    let d = v3(min_image((p2 - p1).to_array(), domain));
    let u = v3(b1.axis);
    let v = v3(b2.axis);
    let st = segments_closest(d, u, b1.half_length, v, b2.half_length);
    let pu = u * st.x;
    let qv = v * st.y;
    let e = d + qv - pu;
    let dist = e.length();
    let n = if dist > 0.0 { e / dist } else { Vec3::Z };
    let delta = b1.radius + b2.radius - dist;
    let arm1 = pu + n * (b1.radius - 0.5 * delta);
    let arm2 = qv - n * (b2.radius - 0.5 * delta);
    let mut g = body_contact(
        &capsule_kinematics(b1),
        arm1,
        &capsule_kinematics(b2),
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius * b2.radius / (b1.radius + b2.radius),
        [b1.radius, b2.radius],
        1.0,
        dt,
    );
    // Unit axes: (t1 . t2) (t1 x t2) / (|t1|^2 |t2|^2) is (u . v) (u x v); none where the
    // closest points reach an end of either segment.
    if st.x.abs() < b1.half_length && st.y.abs() < b2.half_length {
        g.alignment = (u.dot(v) * u.cross(v)).to_array();
    }
    g
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct CapsuleCapsuleResolver;

impl Resolver for CapsuleCapsuleResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour];
    /// Closest points of segments: a clamped division on top of the sphere's.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = true;
    const ADAPTER: &'static str = r#"fn pair_geom(pr: SourcePair) -> ContactGeom {
    return resolve_capsule_capsule(load_capsule_at(pr.p), load_capsule_at(pr.q), domain, step.dt);
}
fn pair_overlap(pr: SourcePair) -> f32 {
    return pair_geom(pr).delta;
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        if ra + rb > 0.0 {
            ra * rb / (ra + rb)
        } else {
            0.0
        }
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_capsule_capsule(
            &load_capsule_at(pr.p as usize, b),
            &load_capsule_at(pr.q as usize, b),
            b.domain,
            b.step.dt,
        )
    }

    type Body1 = CapsuleBody;
    type Body2 = CapsuleBody;
    const TWIN_ARGS: &'static str = "b1, b2, domain, dt";

    fn twin(
        c: &ResolverCase<CapsuleBody, CapsuleBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_capsule_capsule(&c.b1, &c.b2, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<CapsuleBody, CapsuleBody> {
        let s = shape_inputs(rng, i);
        s.case(s.capsules.0, s.capsules.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parity::SplitMix;
    use glam::DVec3;

    fn d3(a: [f32; 3]) -> DVec3 {
        DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
    }

    /// Distance (f64) from `x` to the segment `c + [-h, h] a`.
    fn point_segment(x: DVec3, c: DVec3, a: DVec3, h: f64) -> f64 {
        let s = ((x - c).dot(a) / a.dot(a)).clamp(-h, h);
        (x - (c + a * s)).length()
    }

    /// Exact f64 distance of the segments `c1 + [-h1, h1] u` and `c2 + [-h2, h2] v`: the
    /// smaller of the four end-to-segment distances and, when it falls inside both segments,
    /// the stationary point of the two infinite lines (a different method from the resolver's).
    fn segment_segment(c1: DVec3, u: DVec3, h1: f64, c2: DVec3, v: DVec3, h2: f64) -> f64 {
        let mut best = point_segment(c1 - u * h1, c2, v, h2)
            .min(point_segment(c1 + u * h1, c2, v, h2))
            .min(point_segment(c2 - v * h2, c1, u, h1))
            .min(point_segment(c2 + v * h2, c1, u, h1));
        let d = c2 - c1;
        let (a, b, e) = (u.dot(u), u.dot(v), v.dot(v));
        let (cu, fv) = (u.dot(d), v.dot(d));
        let den = a * e - b * b;
        if den > 1e-12 {
            let s = (cu * e - b * fv) / den;
            let t = (b * cu - a * fv) / den;
            if s.abs() <= h1 && t.abs() <= h2 {
                best = best.min((d + v * t - u * s).length());
            }
        }
        best
    }

    /// `u` turned by `angle` (rad) towards a random perpendicular direction, in f64, then
    /// rounded to f32.
    fn turned(rng: &mut SplitMix, u: [f32; 3], angle: f64) -> [f32; 3] {
        let u = d3(u).normalize();
        let w = u.cross(d3(rng.unit())).normalize();
        let v = u * angle.cos() + w * angle.sin();
        [v.x as f32, v.y as f32, v.z as f32]
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Kind {
        General,
        Parallel,
        NearlyParallel,
        Crossing,
        Collinear,
    }

    /// A random pair: radii 1 to 10 mm, half-lengths 0 to 30 mm (some 0), centres within
    /// 50 mm of the origin, points of the two axes (on or somewhat beyond the segments) a
    /// random gap apart. Kinds: general axes, exactly parallel (`v = +-u`), nearly parallel
    /// (1e-7 rad), crossing (the gap across both axes), collinear (the same line, end to end
    /// or overlapping). Every sixth case is periodic on x and y, the second capsule one period
    /// away.
    fn case(rng: &mut SplitMix, i: usize) -> (CapsuleBody, CapsuleBody, DomainParams, Kind) {
        let kind = [
            Kind::General,
            Kind::Parallel,
            Kind::NearlyParallel,
            Kind::Crossing,
            Kind::Collinear,
        ][i % 5];
        let r1 = rng.log_uniform(1e-3, 1e-2);
        let r2 = rng.log_uniform(1e-3, 1e-2);
        let h1 = if i.is_multiple_of(11) {
            0.0
        } else {
            rng.range(0.0, 3e-2) as f32
        };
        let h2 = if i.is_multiple_of(13) {
            0.0
        } else {
            rng.range(0.0, 3e-2) as f32
        };
        let u = rng.unit();
        let sign = if rng.chance(0.5) { 1.0 } else { -1.0 };
        let v = match kind {
            Kind::General | Kind::Crossing => rng.unit(),
            Kind::Parallel | Kind::Collinear => u.map(|x| x * sign),
            Kind::NearlyParallel => turned(rng, u, 1e-7).map(|x| x * sign),
        };
        let (uu, vv) = (v3(u), v3(v));
        let p1 = v3(rng.vec3(0.05));
        let s1 = rng.range(-1.3, 1.3) as f32 * h1;
        let s2 = rng.range(-1.3, 1.3) as f32 * h2;
        let gap = (r1 + r2) * rng.range(0.3, 1.2) as f32;
        let dir = match kind {
            Kind::Crossing => uu.cross(vv).normalize(),
            Kind::Collinear => Vec3::ZERO,
            _ => v3(rng.unit()),
        };
        let along = if kind == Kind::Collinear {
            uu * (rng.range(0.0, 1.2) as f32 * (h1 + h2 + r1 + r2))
        } else {
            uu * s1 - vv * s2
        };
        let mut p2 = p1 + along + dir * gap;
        let mut domain = DomainParams::default();
        if i.is_multiple_of(6) {
            domain.periodic_mask = 0b011;
            domain.length = [0.2, 0.3, 0.0];
            p2.x += 0.2;
            p2.y -= 0.3;
        }
        let body = |rng: &mut SplitMix, pos: Vec3, radius, half_length, axis| CapsuleBody {
            pos: pos.to_array(),
            radius,
            vel: rng.vec3(1.0),
            inv_mass: if rng.chance(0.2) {
                0.0
            } else {
                rng.log_uniform(1.0, 1e4)
            },
            omega: rng.vec3(100.0),
            half_length,
            axis,
            _pad: 0.0,
        };
        let b1 = body(rng, p1, r1, h1, u);
        let b2 = body(rng, p2, r2, h2, v);
        (b1, b2, domain, kind)
    }

    /// Against the exact f64 distance of the segments, for 500 pairs of every kind.
    ///
    /// Tolerance on `delta`: 16 f32 ulps of the coordinates' scale (the resolver rounds
    /// positions of that size) plus, for the parallel kinds, the bound on the middle-of-overlap
    /// choice, `sin^2 theta (2 L)^2 / (2 g)` (nothing for exactly parallel axes, ~1e-14 L^2/g
    /// at 1e-7 rad). The contact point must lie at `R1 - delta/2` from the first segment and
    /// `R2 - delta/2` from the second (the midline between the surfaces), within the same
    /// tolerance; `delta` equals the overlap function's; nothing is NaN.
    #[test]
    fn capsule_capsule_against_exact_f64() {
        let mut rng = SplitMix(0xC0A5_0003);
        let mut worst = 0.0f64;
        for i in 0..500 {
            let (b1, b2, domain, kind) = case(&mut rng, i);
            let g = resolve_capsule_capsule(&b1, &b2, &domain, 1e-6);
            let x1 = [b1.pos[0], b1.pos[1], b1.pos[2], b1.radius];
            let a1 = [b1.axis[0], b1.axis[1], b1.axis[2], b1.half_length];
            let x2 = [b2.pos[0], b2.pos[1], b2.pos[2], b2.radius];
            let a2 = [b2.axis[0], b2.axis[1], b2.axis[2], b2.half_length];
            assert_eq!(g.delta, capsule_capsule_overlap(x1, a1, x2, a2, &domain));
            let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            assert!(fields.iter().all(|x| x.is_finite()), "case {i}: {g:?}");
            let n = d3(g.normal);
            assert!((n.length() - 1.0).abs() < 1e-6, "case {i}");

            let (c1, u, h1) = (d3(b1.pos), d3(b1.axis), b1.half_length as f64);
            let (mut c2, v, h2) = (d3(b2.pos), d3(b2.axis), b2.half_length as f64);
            if domain.periodic_mask != 0 {
                c2.x -= 0.2;
                c2.y += 0.3;
            }
            let dist = segment_segment(c1, u, h1, c2, v, h2);
            let want = b1.radius as f64 + b2.radius as f64 - dist;
            let scale = c1.abs().max_element() + c2.abs().max_element() + h1 + h2 + 0.02;
            let sin2 = u.cross(v).length_squared();
            let slack = if sin2 < PARALLEL as f64 {
                sin2 * (2.0 * (h1 + h2)).powi(2) / (2.0 * dist.max(1e-4))
            } else {
                0.0
            };
            let tol = 16.0 * f32::EPSILON as f64 * scale + slack;
            let err = (g.delta as f64 - want).abs();
            worst = worst.max(err / tol);
            assert!(
                err <= tol,
                "case {i} ({kind:?}): delta {} want {want} tol {tol}",
                g.delta
            );

            let point = d3(g.point);
            let half = 0.5 * g.delta as f64;
            let (l1, l2) = (b1.radius as f64 - half, b2.radius as f64 - half);
            if l1 >= 0.0 && l2 >= 0.0 {
                let e1 = (point_segment(point, c1, u, h1) - l1).abs();
                let e2 = (point_segment(point, c2, v, h2) - l2).abs();
                assert!(
                    e1 <= tol && e2 <= tol,
                    "case {i} ({kind:?}): {e1} {e2} {tol}"
                );
            }
            assert!((d3(g.arm1) - (point - c1)).length() <= tol, "case {i}");
            assert!((d3(g.arm2) - (point - c2)).length() <= tol, "case {i}");

            // Exactly parallel, overlapping projections: the point is in the middle of the
            // overlap (along the first axis).
            if kind == Kind::Parallel && h1 > 0.0 {
                let m = u.dot(c2 - c1);
                let k = h2 * u.dot(v).abs();
                let (lo, hi) = ((m - k).max(-h1), (m + k).min(h1));
                if lo < hi {
                    let s = u.dot(point - c1);
                    assert!(
                        (s - 0.5 * (lo + hi)).abs() <= tol,
                        "case {i}: {s} {lo} {hi}"
                    );
                }
            }
        }
        eprintln!("capsule_capsule: worst |delta error| / tolerance = {worst:.3e}");
    }

    /// Turning one axis by 1e-7 rad from parallel moves neither the contact point nor `delta`
    /// by more than rounding (the middle-of-overlap choice does not jump between ends).
    #[test]
    fn nearly_parallel_does_not_jump() {
        let mut rng = SplitMix(0xC0A5_0004);
        let mut worst = 0.0f32;
        for i in 0..500 {
            let (b1, mut b2, domain, _) = case(&mut rng, 5 * i + 1);
            let g0 = resolve_capsule_capsule(&b1, &b2, &domain, 1e-6);
            b2.axis = turned(&mut rng, b2.axis, 1e-7);
            let g1 = resolve_capsule_capsule(&b1, &b2, &domain, 1e-6);
            let moved = (v3(g1.point) - v3(g0.point)).length();
            worst = worst.max(moved);
            // 1e-7 rad over arms of at most 60 mm moves the point ~6e-9 m; f32 rounding of
            // coordinates near 0.3 m is ~3e-8 m.
            assert!(moved < 1e-6, "case {i}: moved {moved}");
            assert!((g1.delta - g0.delta).abs() < 1e-7, "case {i}");
        }
        eprintln!("capsule_capsule: nearly parallel moves the point at most {worst:.3e} m");
    }
}
