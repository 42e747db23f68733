//! Particle generators: a jittered simple cubic lattice and `x y z r [vx vy vz]` pack files.

/// SplitMix64 (Steele, Lea & Flood 2014): one multiply-xorshift finaliser over a Weyl
/// sequence. Stateless here, so any particle's jitter can be computed on its own.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform number in [0, 1) for particle `p`, component `c` (0..8) of a seeded stream.
///
/// The key `seed * 2^32 + 8 p + c` is the one the peer benchmark kit uses
/// (`/work/shared/peers/gen_scene.py`), so a lattice with the same seed, spacing and jitter
/// reproduces its jittered positions (up to the kit's 10-digit printing).
pub fn unit(seed: u64, p: u64, c: u64) -> f64 {
    let key = seed
        .wrapping_mul(1 << 32)
        .wrapping_add(p.wrapping_mul(8))
        .wrapping_add(c);
    (splitmix64(key) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A simple cubic lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    /// Distance between neighbouring sites (m).
    pub spacing: f64,
    /// Sites along x, y, z.
    pub count: [u64; 3],
    /// Centre of site (0, 0, 0) before jitter (m).
    pub origin: [f64; 3],
    /// Largest displacement per coordinate, as a fraction of `spacing`.
    pub jitter: f64,
    /// Seed of the jitter.
    pub seed: u64,
    /// Whether the sites lie in the plane z = 0 of a 2-D scene: one layer, jittered and given
    /// directions in x and y only.
    pub planar: bool,
}

impl Lattice {
    /// Number of sites.
    pub fn len(&self) -> u64 {
        self.count[0]
            .saturating_mul(self.count[1])
            .saturating_mul(self.count[2])
    }

    /// Whether the lattice has no site.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Site indices (i, j, k) of particle `p`; x varies fastest, then y, then z.
    pub fn site(&self, p: u64) -> [u64; 3] {
        let nx = self.count[0].max(1);
        let ny = self.count[1].max(1);
        [p % nx, (p / nx) % ny, p / (nx * ny)]
    }

    /// Velocity of magnitude `speed` (m/s) in a random isotropic direction for particle `p`:
    /// `cos(theta) = 1 - 2 U(p, 3)`, `phi = 2 pi U(p, 4)`, the peer kit's gas recipe.
    /// In a planar lattice, `phi = 2 pi U(p, 4)` in the plane.
    pub fn random_velocity(&self, p: u64, speed: f64) -> [f64; 3] {
        if self.planar {
            let phi = 2.0 * std::f64::consts::PI * unit(self.seed, p, 4);
            return [speed * phi.cos(), speed * phi.sin(), 0.0];
        }
        let cos_t = 1.0 - 2.0 * unit(self.seed, p, 3);
        let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
        let phi = 2.0 * std::f64::consts::PI * unit(self.seed, p, 4);
        [
            speed * sin_t * phi.cos(),
            speed * sin_t * phi.sin(),
            speed * cos_t,
        ]
    }

    /// Centre of particle `p`: `origin + spacing * (i, j, k) + jitter * spacing * (2U - 1)`.
    pub fn position(&self, p: u64) -> [f64; 3] {
        let ijk = self.site(p);
        let amp = self.jitter * self.spacing;
        let mut x = [0.0; 3];
        for c in 0..3 {
            let shake = if amp > 0.0 && !(self.planar && c == 2) {
                amp * (2.0 * unit(self.seed, p, c as u64) - 1.0)
            } else {
                0.0
            };
            x[c] = self.origin[c] + self.spacing * ijk[c] as f64 + shake;
        }
        x
    }
}

/// One particle of a pack file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackParticle {
    /// Centre (m).
    pub pos: [f64; 3],
    /// Radius (m).
    pub radius: f64,
    /// Velocity (m/s), when the line gives one.
    pub vel: Option<[f64; 3]>,
    /// 1-based line in the pack file.
    pub line: usize,
}

/// A malformed pack-file line: 1-based line number and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct PackLineError {
    /// 1-based line in the pack file.
    pub line: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

/// Parse a pack file: one particle per line, `x y z r` or `x y z r vx vy vz` separated by
/// spaces, tabs or commas; `#` starts a comment (whole line or trailing); blank lines skipped.
pub fn parse_pack(text: &str) -> Result<Vec<PackParticle>, PackLineError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let data = raw.split('#').next().unwrap_or("").trim();
        if data.is_empty() {
            continue;
        }
        let fields: Vec<&str> = data
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|f| !f.is_empty())
            .collect();
        if fields.len() != 4 && fields.len() != 7 {
            return Err(PackLineError {
                line,
                message: format!(
                    "expected 4 numbers (x y z r) or 7 (x y z r vx vy vz), found {} field(s)",
                    fields.len()
                ),
            });
        }
        let mut v = [0.0f64; 7];
        for (k, (f, slot)) in fields.iter().zip(v.iter_mut()).enumerate() {
            match f.parse::<f64>() {
                Ok(x) if x.is_finite() && x.abs() <= f32::MAX as f64 => *slot = x,
                _ => {
                    return Err(PackLineError {
                        line,
                        message: format!(
                            "field {} ({}): expected a finite number, found `{f}`",
                            k + 1,
                            ["x", "y", "z", "r", "vx", "vy", "vz"][k.min(6)]
                        ),
                    })
                }
            }
        }
        if v[3] <= 0.0 {
            return Err(PackLineError {
                line,
                message: format!(
                    "field 4 (r): expected a positive radius (m), found `{}`",
                    fields.get(3).copied().unwrap_or("")
                ),
            });
        }
        out.push(PackParticle {
            pos: [v[0], v[1], v[2]],
            radius: v[3],
            vel: (fields.len() == 7).then_some([v[4], v[5], v[6]]),
            line,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_value() {
        // First output of the reference generator seeded with 0 (Vigna's splitmix64.c).
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn lattice_order_and_origin() {
        let l = Lattice {
            spacing: 2.0,
            count: [3, 2, 2],
            origin: [1.0, 1.0, 1.0],
            jitter: 0.0,
            planar: false,
            seed: 0,
        };
        assert_eq!(l.len(), 12);
        assert_eq!(l.position(0), [1.0, 1.0, 1.0]);
        assert_eq!(l.position(1), [3.0, 1.0, 1.0]);
        assert_eq!(l.position(3), [1.0, 3.0, 1.0]);
        assert_eq!(l.position(6), [1.0, 1.0, 3.0]);
    }

    #[test]
    fn pack_lines() {
        let p = parse_pack("# h\n1 2 3 0.5\n\n4,5,6 0.5 1 0 0 # moving\n").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].vel, Some([1.0, 0.0, 0.0]));
        assert_eq!(p[1].line, 4);
        let e = parse_pack("1 2 3 0.5\n1 2 3\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    /// A planar lattice jitters and launches in x and y only: its sites stay in z = 0.
    #[test]
    fn a_planar_lattice_stays_in_its_plane() {
        let l = Lattice {
            spacing: 0.01,
            count: [5, 4, 1],
            origin: [0.005, 0.005, 0.0],
            jitter: 0.3,
            seed: 3,
            planar: true,
        };
        for p in 0..l.len() {
            let (x, v) = (l.position(p), l.random_velocity(p, 0.2));
            assert_eq!(x[2], 0.0, "site {p}: {x:?}");
            assert_eq!(v[2], 0.0, "site {p}: {v:?}");
            let speed = (v[0] * v[0] + v[1] * v[1]).sqrt();
            assert!((speed - 0.2).abs() < 1e-12, "site {p}: speed {speed}");
            assert!(x[0] != 0.005 + 0.01 * l.site(p)[0] as f64, "jittered in x");
        }
    }
}
