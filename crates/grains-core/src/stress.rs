//! Stress from a state's contacts: each particle's virial stress (Mpacts
//! `Assemble_VirialStress` for a sphere; Christoffersen et al. 1981, J. Appl. Mech. 48:339),
//! and the mean stress of a region.
//!
//! A particle's stress is `sigma = (1/V) sum_c sym((x_c - x) (x) F_c)` over its contacts and
//! bonds `c`, with `x_c` the contact point, `F_c` the force on the particle and `V` its sphere's
//! volume `4/3 pi r^3`; compression is negative. The tensor of a particle in equilibrium is
//! symmetric; out of it, the output keeps the symmetric part (six components). Summed as
//! `V sigma` over the particles of a region and divided by the region's volume, it is the
//! region's mean (continuum) stress, which, in a pack loaded by walls, equals the walls'
//! traction.

use crate::kernel_types::DomainParams;
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::ContactRecord;

/// A symmetric tensor as `(xx, yy, zz, xy, xz, yz)`.
pub type Sym6 = [f64; 6];

/// The symmetric part of `a (x) f`, added to `s`.
fn add_outer(s: &mut Sym6, a: [f64; 3], f: [f64; 3]) {
    s[0] += a[0] * f[0];
    s[1] += a[1] * f[1];
    s[2] += a[2] * f[2];
    s[3] += 0.5 * (a[0] * f[1] + a[1] * f[0]);
    s[4] += 0.5 * (a[0] * f[2] + a[2] * f[0]);
    s[5] += 0.5 * (a[1] * f[2] + a[2] * f[1]);
}

/// Each particle's `V sigma` (N m): the sum of its contacts' `sym((x_c - x) (x) F_c)`, the
/// branch vector taken to the nearest image of the contact point in a periodic domain.
pub fn virial_moments(
    records: &[ContactRecord],
    pos: &[[f32; 4]],
    domain: &DomainParams,
) -> Vec<Sym6> {
    let mut m = vec![[0.0; 6]; pos.len()];
    let branch = |i: usize, point: [f32; 3]| -> [f64; 3] {
        let p = pos[i];
        let d = [point[0] - p[0], point[1] - p[1], point[2] - p[2]];
        min_image(d, domain).map(|x| x as f64)
    };
    for r in records {
        let f = r.force().map(|x| x as f64);
        let i = r.i as usize;
        add_outer(&mut m[i], branch(i, r.point), f);
        if r.j >= 0 {
            let j = r.j as usize;
            add_outer(&mut m[j], branch(j, r.point), f.map(|x| -x));
        }
    }
    m
}

/// Each particle's virial stress (Pa): its `V sigma` over its sphere's volume; zero for a
/// particle without one (a removed particle, radius 0).
pub fn virial_stress(
    records: &[ContactRecord],
    pos: &[[f32; 4]],
    domain: &DomainParams,
) -> Vec<Sym6> {
    per_volume(&virial_moments(records, pos, domain), pos)
}

/// Each particle's `V sigma` (`moments`) over its sphere's volume.
pub fn per_volume(moments: &[Sym6], pos: &[[f32; 4]]) -> Vec<Sym6> {
    moments
        .iter()
        .zip(pos)
        .map(|(m, p)| {
            let v = sphere_volume(p[3] as f64);
            if v > 0.0 {
                m.map(|x| x / v)
            } else {
                [0.0; 6]
            }
        })
        .collect()
}

/// `4/3 pi r^3`.
pub fn sphere_volume(r: f64) -> f64 {
    4.0 / 3.0 * std::f64::consts::PI * r * r * r
}

/// The mean stress of the box `[min, max]` (Pa): the `V sigma` of the particles whose centres
/// lie in it, summed, over the box's volume; with the particles counted and their volume.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RegionStress {
    pub particles: u64,
    /// Their spheres' volume (m^3).
    pub solid_volume: f64,
    /// The box's volume (m^3).
    pub volume: f64,
    pub stress: Sym6,
}

/// The mean stress of the box `[min, max]` from each particle's `V sigma` (`moments`).
pub fn region_stress(
    moments: &[Sym6],
    pos: &[[f32; 4]],
    min: [f64; 3],
    max: [f64; 3],
) -> RegionStress {
    let spheres = moments
        .iter()
        .zip(pos)
        .map(|(m, p)| ([p[0], p[1], p[2]].map(f64::from), p[3] as f64, *m));
    region_sum(spheres, min, max)
}

/// The mean stress of the box `[min, max]` from spheres at `centres` with `radii` (m) and
/// stresses `stress` (Pa), as [`region_stress`] forms it from moments: `V sigma` of those in
/// the run (radius > 0) whose centres lie in it, summed, over the box's volume. For stresses
/// read back (`particles.csv`'s columns, the Python package's arrays).
pub fn region_stress_of(
    centres: &[[f64; 3]],
    radii: &[f64],
    stress: &[Sym6],
    min: [f64; 3],
    max: [f64; 3],
) -> RegionStress {
    let spheres = centres.iter().zip(radii).zip(stress).map(|((p, &r), s)| {
        let v = sphere_volume(r);
        (*p, r, s.map(|x| v * x))
    });
    region_sum(spheres, min, max)
}

/// The sum of the moments `V sigma` of the spheres `(centre, radius, moment)` in the run
/// (radius > 0) whose centres lie in the box `[min, max]`, over its volume.
fn region_sum(
    spheres: impl Iterator<Item = ([f64; 3], f64, Sym6)>,
    min: [f64; 3],
    max: [f64; 3],
) -> RegionStress {
    let volume = (0..3).map(|k| (max[k] - min[k]).max(0.0)).product::<f64>();
    let mut out = RegionStress {
        volume,
        ..Default::default()
    };
    let mut sum = [0.0; 6];
    for (p, r, m) in spheres {
        if r <= 0.0 || !(0..3).all(|k| p[k] >= min[k] && p[k] <= max[k]) {
            continue;
        }
        out.particles += 1;
        out.solid_volume += sphere_volume(r);
        for k in 0..6 {
            sum[k] += m[k];
        }
    }
    if volume > 0.0 {
        out.stress = sum.map(|x| x / volume);
    }
    out
}
