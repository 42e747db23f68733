//! Sphere-sphere resolver. WGSL twin: `shaders/resolvers/sphere_sphere.wgsl`.
//!
//! Contact point in the middle of the overlap, lever arms `R_i - delta/2` along the normal
//! (as LIGGGHTS' granular pair styles use), minimum-image separation on periodic axes.

use crate::kernel_types::SourcePair;
use crate::kernel_types::{ContactGeom, DomainParams, SphereBody};
use crate::kernels::load_sphere;
use crate::kernels::resolvers::body_contact;
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::SourceKind;
use crate::kernels::v3;
use crate::parity::sphere_pair_case;
use crate::parity::SplitMix;
use glam::Vec3A;

/// Minimum-image separation vector `x2 - x1` (m) on the periodic axes of `domain`.
///
/// Uses `floor(d/L + 0.5)` rather than `round` so that WGSL (whose `round` ties to even)
/// computes the very same value.
pub fn min_image(d: [f32; 3], domain: &DomainParams) -> [f32; 3] {
    min_image_a(Vec3A::from_array(d), domain).to_array()
}

/// [`min_image`] on a vector: the common case (every periodic component nearer than half a
/// period, or no periodic axis) is one compare of the three lanes.
#[inline]
pub fn min_image_a(d: Vec3A, domain: &DomainParams) -> Vec3A {
    let l = Vec3A::from_array(domain.length);
    // Nearer than half a period, `floor(d/L + 0.5)` is 0 and the result `d - L * 0`, d itself:
    // the same bits without the divide (most pairs, every step).
    let near = d.abs().cmplt(0.4999 * l).bitmask();
    if domain.periodic_mask & !near & 7 == 0 {
        return d;
    }
    let mut out = d.to_array();
    for (k, o) in out.iter_mut().enumerate() {
        if domain.periodic_mask & (1 << k) != 0 {
            let l = domain.length[k];
            if o.abs() < 0.4999 * l {
                continue;
            }
            *o -= l * (*o / l + 0.5).floor();
        }
    }
    Vec3A::from_array(out)
}

/// Overlap (m) of spheres at `x1`, `x2` (centre xyz, radius w), computed exactly as
/// [`resolve_sphere_sphere`] computes `delta`, so the contact pass can skip a pair that is out
/// of range before gathering anything else, with the very same decision.
pub fn sphere_sphere_overlap(x1: [f32; 4], x2: [f32; 4], domain: &DomainParams) -> f32 {
    let d = min_image([x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]], domain);
    let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    x1[3] + x2[3] - dist
}

/// Where spheres at `x1`, `x2` are clearly farther apart than `range` beyond touching, how
/// far (m) their distance exceeds their reach (`R1 + R2 + range`) by more than the test's
/// margin: the room they have to move before the test could fail; `None` where they are not.
/// The test is on squared distances with a margin of 1e-5 relative, far above f32 rounding, so
/// that [`sphere_sphere_overlap`] would find `delta <= -range` for every pair this says is
/// apart. The CPU backend's cheap test before the exact one, for inactive pairs (no WGSL twin:
/// the GPU runs the exact test).
#[inline]
pub fn sphere_sphere_apart_by(
    x1: [f32; 4],
    x2: [f32; 4],
    domain: &DomainParams,
    range: f32,
) -> Option<f32> {
    let d = min_image([x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]], domain);
    let reach = x1[3] + x2[3] + range;
    let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    (d2 > reach * reach * (1.0 + 1e-5)).then(|| d2.sqrt() - reach * (1.0 + 1e-5))
}

/// Resolve the contact between sphere `b1` and sphere `b2`.
///
/// Coincident centres get the normal +z, so the pair is pushed apart along a fixed axis rather
/// than producing NaN.
pub fn resolve_sphere_sphere(
    b1: &SphereBody,
    b2: &SphereBody,
    domain: &DomainParams,
    dt: f32,
) -> ContactGeom {
    let p1 = v3(b1.pos);
    let p2 = v3(b2.pos);
    let d = v3(min_image((p2 - p1).to_array(), domain));
    let dist = d.length();
    let n = if dist > 0.0 { d / dist } else { glam::Vec3::Z };
    let delta = b1.radius + b2.radius - dist;
    let arm1 = n * (b1.radius - 0.5 * delta);
    let arm2 = -n * (b2.radius - 0.5 * delta);
    body_contact(
        b1,
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
pub struct SphereSphereResolver;

impl Resolver for SphereSphereResolver {
    const SOURCES: &'static [SourceKind] = &[SourceKind::Neighbour, SourceKind::Fixed];
    /// F32 with a square root and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    const PARITY_TOLERANCE: f32 = 1e-5;
    const READS_SHAPES: bool = false;
    const ADAPTER: &'static str = r#"fn pair_overlap(pr: SourcePair) -> f32 {
    return sphere_sphere_overlap(pos[pr.p], pos[pr.q], domain);
}
fn pair_geom(pr: SourcePair) -> ContactGeom {
    let b1 = load_sphere(pos[pr.p], vel[pr.p], omega[pr.p]);
    let b2 = load_sphere(pos[pr.q], vel[pr.q], omega[pr.q]);
    return resolve_sphere_sphere(b1, b2, domain, step.dt);
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
        let (p, q) = (pr.p as usize, pr.q as usize);
        resolve_sphere_sphere(
            &load_sphere(p, b.pos, b.vel, b.omega),
            &load_sphere(q, b.pos, b.vel, b.omega),
            b.domain,
            b.step.dt,
        )
    }

    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        sphere_sphere_overlap(b.pos[pr.p as usize], b.pos[pr.q as usize], b.domain)
    }

    type Body1 = SphereBody;
    type Body2 = SphereBody;
    const TWIN_ARGS: &'static str = "b1, b2, domain, dt";

    fn twin(
        c: &ResolverCase<SphereBody, SphereBody>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom {
        resolve_sphere_sphere(&c.b1, &c.b2, domain, dt)
    }

    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, SphereBody> {
        sphere_pair_case(rng, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parity::SplitMix;

    /// The cheap test never calls apart a pair the exact one keeps: 200,000 pairs placed within
    /// a few ulps to a few percent of the reach, in open and periodic boxes.
    #[test]
    fn clearly_apart_never_drops_a_pair_in_reach() {
        let mut rng = SplitMix(3);
        let mut apart = 0;
        for i in 0..200_000 {
            let domain = DomainParams {
                periodic_mask: if i % 2 == 0 { 0 } else { 7 },
                max: [0.1; 3],
                length: [0.1; 3],
                ..Default::default()
            };
            let (r1, r2) = (rng.range(1e-4, 2e-3) as f32, rng.range(1e-4, 2e-3) as f32);
            let range = if i % 3 == 0 {
                0.0
            } else {
                rng.range(0.0, 1e-3) as f32
            };
            let reach = (r1 + r2 + range) as f64;
            let dist = reach * (1.0 + rng.range(-0.03, 0.03) * 10f64.powi(-(i % 6)));
            let dir = rng.vec3(1.0);
            let len = dir
                .iter()
                .map(|c| (*c as f64).powi(2))
                .sum::<f64>()
                .sqrt()
                .max(1e-12);
            let x1 = [0.05, 0.05, 0.05, r1];
            let x2 = [0, 1, 2].map(|c| (0.05 + dir[c] as f64 / len * dist) as f32);
            let x2 = [x2[0], x2[1], x2[2], r2];
            if sphere_sphere_apart_by(x1, x2, &domain, range).is_some() {
                apart += 1;
                assert!(
                    sphere_sphere_overlap(x1, x2, &domain) <= -range,
                    "case {i}: called apart, but the exact test keeps it"
                );
            }
        }
        assert!(
            apart > 50_000,
            "too few pairs called apart to test anything: {apart}"
        );
    }
}
