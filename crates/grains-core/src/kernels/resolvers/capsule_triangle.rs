//! Capsule-triangle resolver. WGSL twin: `shaders/resolvers/capsule_triangle.wgsl`.
//!
//! Body 1 is a capsule, body 2 the particle carrying triangle `t` (as in `sphere_triangle`).
//! As `capsule_plane` does for a wall, the contact is the end sphere's (at
//! `pos -+ half_length axis`) whose overlap with the triangle's plane, `R - |h|`, is larger
//! (ties: the first end, `pos - half_length axis`), resolved by `sphere_triangle` with that end
//! sphere's contact fraction (Mpacts' `NGon_Sphere`: the share of its contact circle inside the
//! triangle); `arm1` is measured from the capsule's centre, so its spin moves the contact point.

use crate::kernels::resolvers::{body_contact, capsule_kinematics};
use glam::{Vec3, Vec4};

use crate::kernel_types::SourcePair;
use crate::kernel_types::{CapsuleBody, ContactGeom, DomainParams, SphereBody, Triangle};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::resolvers::sphere_triangle::{sphere_triangle_contact, triangle_normal};
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{
    flip_geom, load_capsule_at, ordered, triangle_index, Bodies, Resolver,
};
use crate::kernels::sources::SourceKind;
use crate::kernels::{v3, v4xyz};
use crate::parity::shape_inputs;
use crate::parity::SplitMix;
use crate::shapes::KIND_TRIANGLE;

/// The offset (m) from the capsule's centre of its end (`x1`: centre xyz, swept radius w;
/// `axis1`: unit axis xyz, half-length w) nearer the plane of triangle `t` of the particle at
/// `x2`, i.e. with the larger plane overlap `R - |h|`; ties go to the first end,
/// `-half_length axis`.
pub fn capsule_triangle_end(
    x1: [f32; 4],
    axis1: [f32; 4],
    x2: [f32; 4],
    t: &Triangle,
    domain: &DomainParams,
) -> Vec3 {
    let a = v4xyz(axis1);
    let lever0 = a * -axis1[3];
    let lever1 = a * axis1[3];
    let m = triangle_normal(t);
    let d0 = v3(min_image(
        (v4xyz(x2) - (v4xyz(x1) + lever0)).to_array(),
        domain,
    ));
    let d1 = v3(min_image(
        (v4xyz(x2) - (v4xyz(x1) + lever1)).to_array(),
        domain,
    ));
    let h0 = (d0 + v3(t.a)).dot(m).abs();
    let h1 = (d1 + v3(t.a)).dot(m).abs();
    if h1 < h0 {
        lever1
    } else {
        lever0
    }
}

/// Overlap (m) of the capsule at `x1` (centre xyz, swept radius w) with unit axis `axis1`
/// (xyz, half-length w) and triangle `t` of the particle at `x2` (centre xyz, w unused),
/// computed exactly as [`resolve_capsule_triangle`] computes `delta` (the contact pass's early
/// out).
pub fn capsule_triangle_overlap(
    x1: [f32; 4],
    axis1: [f32; 4],
    x2: [f32; 4],
    t: &Triangle,
    domain: &DomainParams,
) -> f32 {
    let lever = capsule_triangle_end(x1, axis1, x2, t, domain);
    let e = v4xyz(x1) + lever;
    sphere_triangle_contact(e.extend(x1[3]).to_array(), x2, t, domain).y
}

/// Resolve the contact between capsule `b1` and triangle `t` carried by particle `b2`.
///
/// As `resolve_sphere_triangle` for the chosen end sphere (normal, `delta`, fraction, contact
/// point, `r_eff = R`, lengths `[R, R]`), with `arm1 = point - b1.pos` and
/// `vrel = b1.vel + b1.omega x arm1 - (b2.vel + b2.omega x arm2)`.
pub fn resolve_capsule_triangle(
    b1: &CapsuleBody,
    b2: &SphereBody,
    t: &Triangle,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let x1 = [b1.pos[0], b1.pos[1], b1.pos[2], b1.radius];
    let axis1 = [b1.axis[0], b1.axis[1], b1.axis[2], b1.half_length];
    let x2 = [b2.pos[0], b2.pos[1], b2.pos[2], b2.radius];
    let lever = capsule_triangle_end(x1, axis1, x2, t, domain);
    let e = v3(b1.pos) + lever;
    let k: Vec4 = sphere_triangle_contact(e.extend(b1.radius).to_array(), x2, t, domain);
    let m = triangle_normal(t);
    let n = if k.x < 0.0 { -m } else { m };
    let delta = k.y;
    let d = v3(min_image((v3(b2.pos) - e).to_array(), domain));
    let arm_end = n * (b1.radius - 0.5 * delta);
    let arm1 = lever + arm_end;
    let arm2 = arm_end - d;
    body_contact(
        &capsule_kinematics(b1),
        arm1,
        b2,
        arm2,
        e + arm_end,
        n,
        delta,
        b1.radius,
        [b1.radius, b1.radius],
        k.z,
        dt,
    )
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct CapsuleTriangleResolver;

impl Resolver for CapsuleTriangleResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour];
    /// The fraction sums arc areas (asin, sqrt): a few more ulps.
    const PARITY_TOLERANCE: f32 = 1e-4;
    const READS_SHAPES: bool = true;
    const ADAPTER: &'static str = r#"fn pair_geom(pr: SourcePair) -> ContactGeom {
    var t = pr.q;
    var c = pr.p;
    let tri_is_p = shapes[shape[pr.p]].kind == KIND_TRIANGLE;
    if (tri_is_p) {
        t = pr.p;
        c = pr.q;
    }
    let g = resolve_capsule_triangle(load_capsule_at(c), load_sphere(pos[t], vel[t], omega[t]), triangle_of(t), domain, step.dt);
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
        ra.max(rb)
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        let (t, c, tri_is_q) = ordered(pr, KIND_TRIANGLE, b);
        let g = resolve_capsule_triangle(
            &load_capsule_at(c, b),
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

    type Body1 = CapsuleBody;
    type Body2 = SphereBody;
    const TWIN_ARGS: &'static str = "b1, b2, t, domain, dt";

    fn twin(
        c: &ResolverCase<CapsuleBody, SphereBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_capsule_triangle(&c.b1, &c.b2, &c.triangle, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<CapsuleBody, SphereBody> {
        let s = shape_inputs(rng, i);
        s.case(s.capsules.0, s.spheres.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::resolvers::sphere_triangle::resolve_sphere_triangle;
    use crate::parity::SplitMix;
    use glam::DVec3;

    fn d3(a: [f32; 3]) -> DVec3 {
        DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
    }

    /// 500 random capsules (radius 1 to 10 mm, half-length 0 to 20 mm, any axis) near random
    /// triangles (vertices within 20 mm of a moving carrier; every fourth case periodic):
    /// normal, `delta`, fraction, contact point and `arm2` are exactly those of
    /// `resolve_sphere_triangle` for the chosen end sphere; that end is the one nearer the
    /// plane (f64, within 8 ulps of the coordinates); `arm1 = point - pos` and
    /// `vrel = vel + omega x arm1 - (v2 + w2 x arm2)` (f64, to 1e-5 of the speeds); `delta`
    /// equals the overlap function's; nothing is NaN.
    #[test]
    fn capsule_triangle_is_its_end_sphere() {
        let mut rng = SplitMix(0xC0A5_0009);
        let mut hits = 0;
        for i in 0..500usize {
            let carrier = SphereBody {
                pos: rng.vec3(0.05),
                radius: 0.01,
                vel: rng.vec3(0.1),
                omega: rng.vec3(1.0),
                ..Default::default()
            };
            let t = Triangle {
                a: rng.vec3(0.02),
                b: rng.vec3(0.02),
                c: rng.vec3(0.02),
                ..Default::default()
            };
            let r = rng.log_uniform(1e-3, 1e-2);
            let h = if i.is_multiple_of(7) {
                0.0
            } else {
                rng.range(0.0, 2e-2) as f32
            };
            let u = rng.range(-0.2, 1.0) as f32;
            let v = rng.range(-0.2, 1.2 - u as f64) as f32;
            let foot = v3(t.a) + (v3(t.b) - v3(t.a)) * u + (v3(t.c) - v3(t.a)) * v;
            let offset = v3(rng.unit()) * ((r + h) * rng.range(0.0, 1.2) as f32);
            let mut pos = v3(carrier.pos) + foot + offset;
            let mut domain = DomainParams::default();
            if i.is_multiple_of(4) {
                domain.periodic_mask = 0b110;
                domain.length = [0.0, 0.2, 0.3];
                pos.y += 0.2;
                pos.z -= 0.3;
            }
            let b = CapsuleBody {
                pos: pos.to_array(),
                radius: r,
                vel: rng.vec3(1.0),
                inv_mass: 2.0,
                omega: rng.vec3(10.0),
                half_length: h,
                axis: rng.unit(),
                _pad: 0.0,
            };
            let g = resolve_capsule_triangle(&b, &carrier, &t, &domain, 1e-6);
            let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            assert!(fields.iter().all(|x| x.is_finite()), "case {i}: {g:?}");
            let x1 = [b.pos[0], b.pos[1], b.pos[2], r];
            let a1 = [b.axis[0], b.axis[1], b.axis[2], h];
            let x2 = [carrier.pos[0], carrier.pos[1], carrier.pos[2], 0.01];
            assert_eq!(g.delta, capsule_triangle_overlap(x1, a1, x2, &t, &domain));
            if g.delta > 0.0 && g.fraction > 0.0 {
                hits += 1;
            }

            let lever = capsule_triangle_end(x1, a1, x2, &t, &domain);
            let end = SphereBody {
                pos: (v3(b.pos) + lever).to_array(),
                radius: r,
                vel: b.vel,
                inv_mass: b.inv_mass,
                omega: b.omega,
                _pad: 0.0,
            };
            let s = resolve_sphere_triangle(&end, &carrier, &t, &domain, 1e-6);
            assert_eq!(
                (g.normal, g.delta, g.fraction, g.point, g.arm2),
                (s.normal, s.delta, s.fraction, s.point, s.arm2),
                "case {i}"
            );
            assert_eq!((g.r_eff, g.lengths, g.m_eff), (r, [r, r], 0.5));

            // The chosen end is the one nearer the plane.
            let c = d3(b.pos);
            let (ax, hh) = (d3(b.axis), h as f64);
            let mut cc = d3(carrier.pos);
            if domain.periodic_mask != 0 {
                cc.y += 0.2;
                cc.z -= 0.3;
            }
            let verts = [t.a, t.b, t.c].map(|x| cc + d3(x));
            let m = (verts[1] - verts[0]).cross(verts[2] - verts[0]).normalize();
            let tol = 8.0 * f32::EPSILON as f64 * (c.abs().max_element() + 0.1);
            let dist = |e: DVec3| (verts[0] - e).dot(m).abs();
            let chosen = dist(c + d3(lever.to_array()));
            let best = dist(c - ax * hh).min(dist(c + ax * hh));
            assert!(chosen <= best + tol, "case {i}: {chosen} {best}");

            let point = d3(g.point);
            assert!((d3(g.arm1) - (point - c)).length() <= tol, "case {i}");
            let want_v = d3(b.vel) + d3(b.omega).cross(point - c)
                - (d3(carrier.vel) + d3(carrier.omega).cross(point - cc));
            assert!((d3(g.vrel) - want_v).length() <= 1e-5 * (1.0 + want_v.length()));
        }
        assert!(hits > 100, "{hits} contacts");
        eprintln!("capsule_triangle: {hits} contacts of 500");
    }
}
