//! Analyses of a run's particles, on arrays: what users compute from every run (coordination
//! number, packing fraction profile, size distribution, angle of repose, discharge rate with a
//! Beverloo fit, radial distribution function, velocity profile). `grains post` applies them to
//! an output folder's tables; tests and scripts call them on arrays. Everything is in f64 and SI.

use std::collections::BTreeMap;
use std::f64::consts::PI;

/// The mean coordination number of `particles` particles with `pairs` contacts between them:
/// each contact counts for both its particles, `Z = 2 pairs / particles`.
pub fn coordination(pairs: usize, particles: usize) -> f64 {
    if particles == 0 {
        return 0.0;
    }
    2.0 * pairs as f64 / particles as f64
}

/// Volume of the sphere of centre `c` (along the axis) and radius `r` between the planes `a`
/// and `b > a` across it: `pi int (r^2 - (z - c)^2) dz` over the part of `[c - r, c + r]` in
/// `[a, b]`.
pub fn sphere_slab_volume(c: f64, r: f64, a: f64, b: f64) -> f64 {
    let (lo, hi) = ((a - c).max(-r), (b - c).min(r));
    if hi <= lo {
        return 0.0;
    }
    let f = |u: f64| r * r * u - u * u * u / 3.0;
    PI * (f(hi) - f(lo))
}

/// The solid fraction of `bins` slabs across `[lo, hi]` along `axis` (0, 1, 2) of cross-section
/// `area` (m^2): each sphere `(centre, radius)` shares its volume exactly among the slabs it
/// crosses. Returns each slab's centre and fraction.
pub fn packing_profile(
    spheres: &[([f64; 3], f64)],
    axis: usize,
    (lo, hi): (f64, f64),
    bins: usize,
    area: f64,
) -> Vec<(f64, f64)> {
    let w = (hi - lo) / bins as f64;
    let mut solid = vec![0.0; bins];
    for (x, r) in spheres {
        let c = x[axis];
        let first = (((c - r - lo) / w).floor().max(0.0)) as usize;
        let last = (((c + r - lo) / w).floor().max(-1.0) as i64).min(bins as i64 - 1);
        for (k, s) in solid
            .iter_mut()
            .enumerate()
            .take((last + 1).max(0) as usize)
            .skip(first)
        {
            let a = lo + k as f64 * w;
            *s += sphere_slab_volume(c, *r, a, a + w);
        }
    }
    solid
        .iter()
        .enumerate()
        .map(|(k, s)| (lo + (k as f64 + 0.5) * w, s / (w * area)))
        .collect()
}

/// A bin of a size distribution: diameters `[lo, hi)` (m), the share of the particles by number
/// and by mass in it, and both cumulative up to its upper edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeBin {
    pub lo: f64,
    pub hi: f64,
    pub number: f64,
    pub mass: f64,
    pub cumulative_number: f64,
    pub cumulative_mass: f64,
}

/// The size distribution of spheres of `radii` (m) in `bins` equal bins of diameter between the
/// smallest and the largest, by number and by mass (of one density: mass as `d^3`).
pub fn size_distribution(radii: &[f64], bins: usize) -> Vec<SizeBin> {
    if radii.is_empty() {
        return Vec::new();
    }
    size_distribution_in(radii, bins, diameter_range(radii))
}

/// The smallest and largest diameter of spheres of `radii` (m), widened around a single size so
/// that it makes one bin.
pub fn diameter_range(radii: &[f64]) -> (f64, f64) {
    let (min, max) = radii
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &r| {
            (a.min(2.0 * r), b.max(2.0 * r))
        });
    if max > min {
        (min, max)
    } else {
        (min * 0.999, min * 1.001)
    }
}

/// [`size_distribution`] in `bins` equal bins of diameter across `(min, max)` (m), the
/// diameters outside it counted in the end bins: two sets of spheres on the same bins (a
/// run's realised sizes against those its `[[insert]]` blocks requested).
pub fn size_distribution_in(radii: &[f64], bins: usize, (min, max): (f64, f64)) -> Vec<SizeBin> {
    let d: Vec<f64> = radii.iter().map(|r| 2.0 * r).collect();
    if d.is_empty() {
        return Vec::new();
    }
    let w = (max - min) / bins as f64;
    let (mut number, mut mass) = (vec![0.0; bins], vec![0.0; bins]);
    for &x in &d {
        let k = (((x - min) / w).max(0.0) as usize).min(bins - 1);
        number[k] += 1.0;
        mass[k] += x * x * x;
    }
    let (n, m): (f64, f64) = (number.iter().sum(), mass.iter().sum());
    let (mut cn, mut cm) = (0.0, 0.0);
    (0..bins)
        .map(|k| {
            cn += number[k] / n;
            cm += mass[k] / m;
            SizeBin {
                lo: min + k as f64 * w,
                hi: min + (k + 1) as f64 * w,
                number: number[k] / n,
                mass: mass[k] / m,
                cumulative_number: cn,
                cumulative_mass: cm,
            }
        })
        .collect()
}

/// The angle of repose (degrees from horizontal) of a bed's free surface: the highest point
/// (`up` axis) in columns of `width` (m) along `along`, between `from` and `to` along it,
/// fitted by least squares; `None` with fewer than two columns.
pub fn angle_of_repose(
    points: &[[f64; 3]],
    (along, up): (usize, usize),
    width: f64,
    (from, to): (f64, f64),
) -> Option<f64> {
    let mut top: BTreeMap<i64, f64> = BTreeMap::new();
    for p in points {
        if p[along] < from || p[along] >= to {
            continue;
        }
        let b = ((p[along] - from) / width).floor() as i64;
        let z = top.entry(b).or_insert(f64::NEG_INFINITY);
        *z = z.max(p[up]);
    }
    let pts: Vec<(f64, f64)> = top
        .into_iter()
        .map(|(b, z)| (from + (b as f64 + 0.5) * width, z))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mz = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - mz)).sum::<f64>()
        / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    Some(slope.atan().to_degrees().abs())
}

/// A discharge's rate (particles/s) from its count over time `(time, discharged)` of `total`
/// particles: between 20% and 80% discharged, and in its two halves (20-50%, 50-80%); `None`
/// before 80% is reached.
pub fn discharge_rate(counts: &[(f64, u64)], total: u64) -> Option<(f64, f64, f64)> {
    let at = |f: f64| {
        counts
            .iter()
            .find(|p| p.1 as f64 >= f * total as f64)
            .copied()
    };
    let (a, m, b) = (at(0.2)?, at(0.5)?, at(0.8)?);
    let rate = |p: (f64, u64), q: (f64, u64)| (q.1 - p.1) as f64 / (q.0 - p.0);
    Some((rate(a, b), rate(a, m), rate(m, b)))
}

/// Beverloo's coefficient `C` of a mass rate `w` (kg/s): `W = C rho_b sqrt(g) (D - k d)^(5/2)`
/// (Beverloo, Leniger and van de Velde 1961), with the bulk density `rho_b` (kg/m^3), gravity
/// `g` (m/s^2), the orifice's diameter `d_o` and the particles' `d` (m).
pub fn beverloo_coefficient(w: f64, rho_b: f64, g: f64, d_o: f64, d: f64, k: f64) -> f64 {
    w / (rho_b * g.sqrt() * (d_o - k * d).max(0.0).powf(2.5))
}

/// The radial distribution function of `points` (particle centres) in a region of `volume`
/// (m^3): `bins` shells out to `rmax`, each its count of pairs over that of an ideal gas of the
/// same density, `g(r) = 2 N_pairs(r) / (N rho 4 pi r^2 dr)` (shells' exact volumes). Returns
/// each shell's middle and `g`. Pairs are counted by cells of `rmax`, so the cost is linear in
/// the particles; no correction is made for the region's edges.
pub fn radial_distribution(
    points: &[[f64; 3]],
    rmax: f64,
    bins: usize,
    volume: f64,
) -> Vec<(f64, f64)> {
    let n = points.len();
    let mut counts = vec![0u64; bins];
    let cell = |p: &[f64; 3]| p.map(|x| (x / rmax).floor() as i64);
    let mut grid: BTreeMap<[i64; 3], Vec<usize>> = BTreeMap::new();
    for (i, p) in points.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    let dr = rmax / bins as f64;
    for (i, p) in points.iter().enumerate() {
        let c = cell(p);
        for d in 0..27 {
            let key = [c[0] + d % 3 - 1, c[1] + (d / 3) % 3 - 1, c[2] + d / 9 - 1];
            for &j in grid.get(&key).map(Vec::as_slice).unwrap_or(&[]) {
                if j <= i {
                    continue;
                }
                let q = &points[j];
                let r =
                    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
                if r < rmax {
                    counts[((r / dr) as usize).min(bins - 1)] += 1;
                }
            }
        }
    }
    let rho = n as f64 / volume;
    (0..bins)
        .map(|k| {
            let (a, b) = (k as f64 * dr, (k + 1) as f64 * dr);
            let shell = 4.0 / 3.0 * PI * (b.powi(3) - a.powi(3));
            let ideal = 0.5 * n as f64 * rho * shell;
            (
                a + 0.5 * dr,
                if ideal > 0.0 {
                    counts[k] as f64 / ideal
                } else {
                    0.0
                },
            )
        })
        .collect()
}

/// The mean velocity of the particles at `points` moving at `velocities` in `bins` slabs across
/// `[lo, hi]` along `axis`: each slab's middle, its particle count and mean velocity (m/s).
pub fn velocity_profile(
    points: &[[f64; 3]],
    velocities: &[[f64; 3]],
    axis: usize,
    (lo, hi): (f64, f64),
    bins: usize,
) -> Vec<(f64, usize, [f64; 3])> {
    let w = (hi - lo) / bins as f64;
    let mut sum = vec![(0usize, [0.0; 3]); bins];
    for (p, v) in points.iter().zip(velocities) {
        let x = p[axis];
        if x < lo || x >= hi {
            continue;
        }
        let k = (((x - lo) / w) as usize).min(bins - 1);
        sum[k].0 += 1;
        for (s, x) in sum[k].1.iter_mut().zip(v) {
            *s += x;
        }
    }
    sum.iter()
        .enumerate()
        .map(|(k, (count, s))| {
            let mean = if *count > 0 {
                s.map(|x| x / *count as f64)
            } else {
                [0.0; 3]
            };
            (lo + (k as f64 + 0.5) * w, *count, mean)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slab_through_the_middle_holds_half_a_sphere() {
        let r = 0.3;
        let whole = 4.0 / 3.0 * PI * r * r * r;
        assert!((sphere_slab_volume(1.0, r, 0.0, 2.0) - whole).abs() < 1e-15);
        assert!((sphere_slab_volume(1.0, r, 0.0, 1.0) - 0.5 * whole).abs() < 1e-15);
        assert_eq!(sphere_slab_volume(1.0, r, 2.0, 3.0), 0.0);
    }
}
