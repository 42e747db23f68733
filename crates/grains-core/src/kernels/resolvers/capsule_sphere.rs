//! Capsule-sphere resolver. WGSL twin: `shaders/resolvers/capsule_sphere.wgsl`.
//!
//! Body 1 is the capsule (a segment swept by a sphere), body 2 the sphere. The point of the
//! segment nearest the sphere's centre (the clamped projection, Ericson, *Real-Time Collision
//! Detection*, 2005, §5.1.2) carries a sphere of the capsule's radius, and the pair is then
//! resolved as two spheres (`sphere_sphere`): contact point in the middle of the overlap,
//! minimum image on periodic axes, the normal +z for coincident points. Body 1's lever arm is
//! measured from the capsule's centre. A capsule of zero half-length is exactly a sphere.

use crate::kernels::resolvers::{body_contact, capsule_kinematics};
use glam::Vec3;

use crate::kernel_types::SourcePair;
use crate::kernel_types::{CapsuleBody, ContactGeom, DomainParams, SphereBody};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{flip_geom, load_capsule_at, ordered, Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::{v3, v4xyz};
use crate::parity::shape_inputs;
use crate::parity::SplitMix;
use crate::shapes::KIND_CAPSULE;

/// The point of the segment `[-h axis, h axis]` nearest `d` (m), both relative to the
/// segment's centre: `axis` times the projection of `d` on the unit `axis`, clamped to
/// `[-h, h]` (`h` = `half_length`, m). `max` then `min`, as WGSL's `clamp`.
pub fn capsule_nearest(d: Vec3, axis: Vec3, half_length: f32) -> Vec3 {
    let s = d.dot(axis).max(-half_length).min(half_length);
    axis * s
}

/// Overlap (m) of the capsule at `x1` (centre xyz, swept radius w) with unit axis `axis1`
/// (xyz, half-length w) and the sphere at `x2` (centre xyz, radius w), computed exactly as
/// [`resolve_capsule_sphere`] computes `delta` (the contact pass's early out).
pub fn capsule_sphere_overlap(
    x1: [f32; 4],
    axis1: [f32; 4],
    x2: [f32; 4],
    domain: &DomainParams,
) -> f32 {
    let d = v3(min_image((v4xyz(x2) - v4xyz(x1)).to_array(), domain));
    let q = capsule_nearest(d, v4xyz(axis1), axis1[3]);
    let e = d - q;
    let dist = e.length();
    x1[3] + x2[3] - dist
}

/// Resolve the contact between capsule `b1` and sphere `b2`.
///
/// `r_eff = R1 R2 / (R1 + R2)` with `R1` the capsule's swept radius (m), lengths
/// `[R1, R2]`; `arm1` is the contact point minus the capsule's centre.
pub fn resolve_capsule_sphere(
    b1: &CapsuleBody,
    b2: &SphereBody,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let p1 = v3(b1.pos);
    let p2 = v3(b2.pos);
    let d = v3(min_image((p2 - p1).to_array(), domain));
    let q = capsule_nearest(d, v3(b1.axis), b1.half_length);
    let e = d - q;
    let dist = e.length();
    let n = if dist > 0.0 { e / dist } else { Vec3::Z };
    let delta = b1.radius + b2.radius - dist;
    let arm1 = q + n * (b1.radius - 0.5 * delta);
    let arm2 = -n * (b2.radius - 0.5 * delta);
    body_contact(
        &capsule_kinematics(b1),
        arm1,
        b2,
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius * b2.radius / (b1.radius + b2.radius),
        [b1.radius, b2.radius],
        1.0,
        dt,
    )
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct CapsuleSphereResolver;

impl Resolver for CapsuleSphereResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour];
    /// Closest points of segments: a clamped division on top of the sphere's.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = true;
    const ADAPTER: &'static str = r#"fn pair_geom(pr: SourcePair) -> ContactGeom {
    var c = pr.p;
    var s = pr.q;
    let flip = shapes[shape[pr.p]].kind != KIND_CAPSULE;
    if (flip) {
        c = pr.q;
        s = pr.p;
    }
    let g = resolve_capsule_sphere(load_capsule_at(c), load_sphere(pos[s], vel[s], omega[s]), domain, step.dt);
    if (flip) {
        return flip_geom(g);
    }
    return g;
}
fn pair_overlap(pr: SourcePair) -> f32 {
    return pair_geom(pr).delta;
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        // Bounding radii: an upper bound of the capsule's own, as the range needs.
        if ra + rb > 0.0 {
            ra * rb / (ra + rb)
        } else {
            0.0
        }
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        let (c, s, flip) = ordered(pr, KIND_CAPSULE, b);
        let g = resolve_capsule_sphere(
            &load_capsule_at(c, b),
            &load_sphere(s, b.pos, b.vel, b.omega),
            b.domain,
            b.step.dt,
        );
        if flip {
            flip_geom(&g)
        } else {
            g
        }
    }

    type Body1 = CapsuleBody;
    type Body2 = SphereBody;
    const TWIN_ARGS: &'static str = "b1, b2, domain, dt";

    fn twin(
        c: &ResolverCase<CapsuleBody, SphereBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_capsule_sphere(&c.b1, &c.b2, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<CapsuleBody, SphereBody> {
        let s = shape_inputs(rng, i);
        s.case(s.capsules.0, s.spheres.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::resolvers::sphere_sphere::resolve_sphere_sphere;
    use crate::parity::SplitMix;
    use glam::DVec3;

    fn d3(a: [f32; 3]) -> DVec3 {
        DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
    }

    /// A random capsule (radius 1 to 10 mm, half-length 0 to 30 mm, centre within 50 mm of
    /// the origin, any axis, any motion) and a sphere near it: touching, overlapping or a
    /// little apart. Every fifth case is periodic along x and/or y, with the sphere put one
    /// period away so that only the minimum image finds it.
    fn case(rng: &mut SplitMix, i: usize) -> (CapsuleBody, SphereBody, DomainParams) {
        let r1 = rng.log_uniform(1e-3, 1e-2);
        let r2 = rng.log_uniform(1e-3, 1e-2);
        let h = if i.is_multiple_of(7) {
            0.0
        } else {
            rng.range(0.0, 3e-2) as f32
        };
        let axis = v3(rng.unit());
        let pos = v3(rng.vec3(0.05));
        // A point beyond an end a third of the time, else on the segment.
        let s = rng.range(-1.5, 1.5) as f32 * h;
        let dir = v3(rng.unit());
        let gap = (r1 + r2) * rng.range(0.3, 1.2) as f32;
        let mut p2 = pos + axis * s.clamp(-h, h) + dir * gap;
        let mut domain = DomainParams::default();
        if i.is_multiple_of(5) {
            domain.periodic_mask = 0b011;
            domain.length = [0.2, 0.3, 0.0];
            p2.x += 0.2;
            p2.y -= 0.3;
        }
        let b1 = CapsuleBody {
            pos: pos.to_array(),
            radius: r1,
            vel: rng.vec3(1.0),
            inv_mass: if rng.chance(0.2) {
                0.0
            } else {
                rng.log_uniform(1.0, 1e4)
            },
            omega: rng.vec3(100.0),
            half_length: h,
            axis: axis.to_array(),
            _pad: 0.0,
        };
        let b2 = SphereBody {
            pos: p2.to_array(),
            radius: r2,
            vel: rng.vec3(1.0),
            inv_mass: if rng.chance(0.2) {
                0.0
            } else {
                rng.log_uniform(1.0, 1e4)
            },
            omega: rng.vec3(100.0),
            _pad: 0.0,
        };
        (b1, b2, domain)
    }

    /// Against an f64 brute force: the segment sampled at 20,000 points, the minimum distance
    /// to the sphere's (minimum-image) centre. Tolerance: the sampling (a sampled minimum
    /// exceeds the true one by at most half a spacing, the distance being 1-Lipschitz) plus
    /// 8 f32 ulps of the coordinates' scale (the resolver's rounding). Also: `delta` equals
    /// the overlap function's, the contact point is at `R1 - delta/2` from the segment and
    /// `R2 - delta/2` from the sphere's centre, `arm1 = point - pos`, no NaN.
    #[test]
    fn capsule_sphere_against_brute_force() {
        let mut rng = SplitMix(0xC0A5_0001);
        let mut worst = 0.0f64;
        for i in 0..500 {
            let (b1, b2, domain) = case(&mut rng, i);
            let g = resolve_capsule_sphere(&b1, &b2, &domain, 1e-6);
            let x1 = [b1.pos[0], b1.pos[1], b1.pos[2], b1.radius];
            let a1 = [b1.axis[0], b1.axis[1], b1.axis[2], b1.half_length];
            let x2 = [b2.pos[0], b2.pos[1], b2.pos[2], b2.radius];
            assert_eq!(g.delta, capsule_sphere_overlap(x1, a1, x2, &domain));
            let arrays = [g.normal, g.point, g.vrel, g.arm1, g.arm2, g.wrel];
            assert!(
                arrays.iter().flatten().all(|x| x.is_finite()),
                "case {i}: {g:?}"
            );

            let p1 = d3(b1.pos);
            let axis = d3(b1.axis);
            let h = b1.half_length as f64;
            let mut c2 = d3(b2.pos);
            if domain.periodic_mask != 0 {
                c2.x -= 0.2;
                c2.y += 0.3;
            }
            let n_samples = 20_000;
            let mut best = f64::INFINITY;
            for k in 0..n_samples {
                let s = -h + 2.0 * h * k as f64 / (n_samples - 1) as f64;
                best = best.min((c2 - (p1 + axis * s)).length());
            }
            let want = b1.radius as f64 + b2.radius as f64 - best;
            let spacing = 2.0 * h / (n_samples - 1) as f64;
            let scale = p1.abs().max_element() + c2.abs().max_element() + h + 0.02;
            let tol = 0.5 * spacing + 8.0 * f32::EPSILON as f64 * scale;
            let err = (g.delta as f64 - want).abs();
            worst = worst.max(err / tol);
            assert!(
                err <= tol,
                "case {i}: delta {} want {want} tol {tol}",
                g.delta
            );

            let point = d3(g.point);
            let mut seg = f64::INFINITY;
            for k in 0..n_samples {
                let s = -h + 2.0 * h * k as f64 / (n_samples - 1) as f64;
                seg = seg.min((point - (p1 + axis * s)).length());
            }
            let half = 0.5 * g.delta as f64;
            // (When the point is beyond the segment, R1 - delta/2 < 0, the segment's nearest
            // point to it need not be the one it was built from.)
            if b1.radius as f64 - half >= 0.0 {
                assert!((seg - (b1.radius as f64 - half)).abs() <= tol, "case {i}");
            }
            let to2 = (point - c2).length();
            assert!(
                (to2 - (b2.radius as f64 - half).abs()).abs() <= tol,
                "case {i}"
            );
            assert!((d3(g.arm1) - (point - p1)).length() <= tol, "case {i}");
        }
        eprintln!("capsule_sphere: worst |delta error| / tolerance = {worst:.3e}");
    }

    /// Equal in value to two spheres; `to_bits` equal too except that a zero component may
    /// differ in sign (`q + x` with `q` a signed zero turns `-0` into `+0`), which no law can
    /// see.
    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0)
    }

    /// A capsule of zero half-length is a sphere: every field equal to `resolve_sphere_sphere`'s
    /// (bitwise up to the sign of zeros), including coincident centres and axis-aligned pairs.
    #[test]
    fn capsule_of_zero_length_is_a_sphere() {
        let mut rng = SplitMix(0xC0A5_0002);
        for i in 0..500 {
            let (mut b1, mut b2, domain) = case(&mut rng, i);
            b1.half_length = 0.0;
            match i {
                0 => b2.pos = b1.pos,
                1 => b2.pos = [b1.pos[0], b1.pos[1], b1.pos[2] + 0.004],
                2 => b2.pos = [b1.pos[0] - 0.003, b1.pos[1], b1.pos[2]],
                _ => {}
            }
            let s = SphereBody {
                pos: b1.pos,
                radius: b1.radius,
                vel: b1.vel,
                inv_mass: b1.inv_mass,
                omega: b1.omega,
                _pad: 0.0,
            };
            let g = resolve_capsule_sphere(&b1, &b2, &domain, 1e-6);
            let want = resolve_sphere_sphere(&s, &b2, &domain, 1e-6);
            let a: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            let b: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&want));
            assert!(
                a.iter().zip(b).all(|(x, y)| same(*x, *y)),
                "case {i}: {g:?} vs {want:?}"
            );
        }
    }
}
