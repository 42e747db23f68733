//! Capsule-plane resolver. WGSL twin: `shaders/resolvers/capsule_plane.wgsl`.
//!
//! Body 1 is the capsule, body 2 a plane wall (`point`, inward unit `normal`). The contact is
//! that of the end sphere (at `pos -+ half_length axis`) with the larger overlap
//! `R - (x - point).normal` (ties: the first end, `pos - half_length axis`): since the segment
//! is straight, its deepest point is an end, and the force is the gradient of that end sphere's
//! elastic potential, so energy is conserved (the overlap of the whole capsule is the maximum
//! of its two ends'). The geometry is `sphere_plane`'s ([`wall_geom_arm`], the shared wall
//! contact with its lever arm measured from the capsule's centre): the normal from the capsule
//! into the wall, the contact point in the middle of the overlap, Woo's lengths `l1 = l2 = R`.
//! A capsule lying exactly flat is held at its first end only.

use crate::kernels::resolvers::capsule_kinematics;
use glam::Vec4;

use crate::kernel_types::DomainParams;
use crate::kernel_types::SourcePair;
use crate::kernel_types::{CapsuleBody, ContactGeom, Wall};
use crate::kernels::resolvers::sphere_plane::wall_geom_arm;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{load_capsule_at, Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::{v3, v4xyz};
use crate::parity::shape_inputs;
use crate::parity::SplitMix;

/// The end of the capsule at `x` (centre xyz, swept radius w) with unit axis `axis` (xyz,
/// half-length w) that overlaps plane wall `w` more: its offset from the centre (xyz, m) and its
/// overlap `R - (end - point).normal` (w, m). Ties go to the first end, `-half_length axis`.
pub fn capsule_plane_end(x: [f32; 4], axis: [f32; 4], w: &Wall) -> Vec4 {
    let c = v4xyz(x);
    let a = v4xyz(axis);
    let lever0 = a * -axis[3];
    let lever1 = a * axis[3];
    let o0 = x[3] - (c + lever0 - v3(w.point)).dot(v3(w.normal));
    let o1 = x[3] - (c + lever1 - v3(w.point)).dot(v3(w.normal));
    if o1 > o0 {
        lever1.extend(o1)
    } else {
        lever0.extend(o0)
    }
}

/// Overlap (m) of the capsule at `x` (centre xyz, swept radius w) with unit axis `axis` (xyz,
/// half-length w) and plane wall `w`, computed exactly as [`resolve_capsule_plane`] computes
/// `delta` (the wall pass's early out).
pub fn capsule_plane_overlap(x: [f32; 4], axis: [f32; 4], w: &Wall) -> f32 {
    capsule_plane_end(x, axis, w).w
}

/// Resolve the contact between capsule `b1` and plane wall `w`.
pub fn resolve_capsule_plane(b1: &CapsuleBody, w: &Wall, dt: f32) -> ContactGeom {
    let x = [b1.pos[0], b1.pos[1], b1.pos[2], b1.radius];
    let axis = [b1.axis[0], b1.axis[1], b1.axis[2], b1.half_length];
    let end = capsule_plane_end(x, axis, w);
    // The end sphere's wall contact, its lever arm from the capsule's centre.
    let n = -v3(w.normal);
    let arm1 = end.truncate() + n * (b1.radius - 0.5 * end.w);
    wall_geom_arm(&capsule_kinematics(b1), arm1, w, n, end.w, dt)
}

/// The registry's entry (`kernels/resolvers/mod.rs`).
pub struct CapsulePlaneResolver;

impl Resolver for CapsulePlaneResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Wall];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = true;
    const ADAPTER: &'static str = r#"fn pair_geom(pr: SourcePair) -> ContactGeom {
    return resolve_capsule_plane(load_capsule_at(pr.p), walls[pr.q], step.dt);
}
fn pair_overlap(pr: SourcePair) -> f32 {
    return pair_geom(pr).delta;
}
"#;

    fn r_eff_max(ra: f64, rb: f64) -> f64 {
        let _ = rb;
        ra
    }

    #[inline]
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
        resolve_capsule_plane(
            &load_capsule_at(pr.p as usize, b),
            &b.walls[pr.q as usize],
            b.step.dt,
        )
    }

    type Body1 = CapsuleBody;
    type Body2 = Wall;
    const TWIN_ARGS: &'static str = "b1, b2, dt";

    fn twin(c: &ResolverCase<CapsuleBody, Wall>, _: &DomainParams, dt: f32) -> ContactGeom {
        resolve_capsule_plane(&c.b1, &c.b2, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<CapsuleBody, Wall> {
        let s = shape_inputs(rng, i);
        s.case(s.capsules.0, s.plane)
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

    /// 500 random capsules (radius 1 to 10 mm, half-length 0 to 30 mm, any axis) near random
    /// planes, a third of the walls moving and turning. Against f64: `delta = R - min over the
    /// two ends of (end - point).normal`, within 8 f32 ulps of the coordinates' scale (the
    /// resolver's rounding); the contact point is `R - delta/2` below the deeper end along the
    /// normal; `arm1 = point - pos`; `vrel = vel + omega x arm1 - wall velocity at the point`
    /// (to 1e-5 of the speeds' scale); `delta` equals the overlap function's.
    #[test]
    fn capsule_plane_against_f64() {
        let mut rng = SplitMix(0xC0A5_0005);
        let mut worst = 0.0f64;
        for i in 0..500usize {
            let r = rng.log_uniform(1e-3, 1e-2);
            let h = if i.is_multiple_of(9) {
                0.0
            } else {
                rng.range(0.0, 3e-2) as f32
            };
            let normal = rng.unit();
            let point = rng.vec3(0.05);
            let mut w = Wall::plane(point, normal, 0);
            if i.is_multiple_of(3) {
                w.moving = 1;
                w.velocity = rng.vec3(1.0);
                w.omega = rng.vec3(10.0);
                w.center = rng.vec3(0.05);
            }
            let b = CapsuleBody {
                pos: (v3(point) + v3(rng.vec3(0.04))).to_array(),
                radius: r,
                vel: rng.vec3(1.0),
                inv_mass: if rng.chance(0.2) {
                    0.0
                } else {
                    rng.log_uniform(1.0, 1e4)
                },
                omega: rng.vec3(100.0),
                half_length: h,
                axis: rng.unit(),
                _pad: 0.0,
            };
            let g = resolve_capsule_plane(&b, &w, 1e-6);
            let x = [b.pos[0], b.pos[1], b.pos[2], b.radius];
            let a = [b.axis[0], b.axis[1], b.axis[2], b.half_length];
            assert_eq!(g.delta, capsule_plane_overlap(x, a, &w));
            let fields: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&g));
            assert!(fields.iter().all(|x| x.is_finite()), "case {i}: {g:?}");

            let (c, ax, hh) = (d3(b.pos), d3(b.axis), h as f64);
            let (p, nn) = (d3(w.point), d3(w.normal));
            let ends = [c - ax * hh, c + ax * hh];
            let dist = ends.map(|e| (e - p).dot(nn));
            let k = if dist[1] < dist[0] { 1 } else { 0 };
            let want = r as f64 - dist[k];
            let scale = c.abs().max_element() + p.abs().max_element() + hh + 0.01;
            let tol = 8.0 * f32::EPSILON as f64 * scale;
            let err = (g.delta as f64 - want).abs();
            worst = worst.max(err / tol);
            assert!(
                err <= tol,
                "case {i}: delta {} want {want} tol {tol}",
                g.delta
            );
            assert_eq!(g.normal, (-v3(w.normal)).to_array());
            // Which end: the deeper one, unless the two are within rounding of each other.
            if (dist[0] - dist[1]).abs() > 2.0 * tol {
                let want_point = ends[k] - nn * (r as f64 - 0.5 * g.delta as f64);
                assert!((d3(g.point) - want_point).length() <= tol, "case {i}");
            }
            assert!((d3(g.arm1) - (d3(g.point) - c)).length() <= tol, "case {i}");
            let point = d3(g.point);
            let vw = if w.moving == 1 {
                d3(w.velocity) + d3(w.omega).cross(point - d3(w.center))
            } else {
                DVec3::ZERO
            };
            let want_v = d3(b.vel) + d3(b.omega).cross(point - c) - vw;
            assert!((d3(g.vrel) - want_v).length() <= 1e-5 * (1.0 + want_v.length()));
            assert_eq!(g.arm2, [0.0; 3]);
            assert_eq!(g.lengths, [r, r]);
        }
        eprintln!("capsule_plane: worst |delta error| / tolerance = {worst:.3e}");
    }

    /// A capsule lying exactly flat on the floor is held at its first end (`pos - h axis`); a
    /// tilted one at its lower end.
    #[test]
    fn capsule_plane_ends() {
        let w = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
        let mut b = CapsuleBody {
            pos: [0.1, 0.2, 0.004],
            radius: 0.005,
            half_length: 0.01,
            axis: [1.0, 0.0, 0.0],
            inv_mass: 1.0,
            ..Default::default()
        };
        let g = resolve_capsule_plane(&b, &w, 1e-6);
        assert_eq!(g.delta, 0.005f32 - 0.004f32);
        assert_eq!(g.arm1[0], -0.01);
        b.axis = [0.6, 0.0, 0.8];
        let g = resolve_capsule_plane(&b, &w, 1e-6);
        assert!((g.delta - 0.009).abs() < 1e-7, "{}", g.delta);
        assert!((g.arm1[0] + 0.006).abs() < 1e-7, "{:?}", g.arm1);
        b.axis = [-0.6, 0.0, -0.8];
        let g = resolve_capsule_plane(&b, &w, 1e-6);
        assert!((g.arm1[0] + 0.006).abs() < 1e-7, "{:?}", g.arm1);
    }
}
