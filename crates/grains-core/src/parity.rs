//! Random inputs for CPU/GPU parity tests: a deterministic generator and the common parts of a
//! law's random case (a contact geometry and the force earlier laws accumulated). Each law adds
//! its own parameters and history in its `parity_case`.

use crate::gpu_types::{ContactForce, ContactGeom};

/// splitmix64: the deterministic random source of parity inputs and tests.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [a, b).
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.uniform()
    }

    /// Log-uniform in [a, b) (a, b > 0), as f32.
    pub fn log_uniform(&mut self, a: f64, b: f64) -> f32 {
        (a.ln() + (b.ln() - a.ln()) * self.uniform()).exp() as f32
    }

    /// A random unit vector.
    pub fn unit(&mut self) -> [f32; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.1 && l <= 1.0 {
                return v.map(|x| (x / l) as f32);
            }
        }
    }

    /// A vector with components uniform in [-s, s).
    pub fn vec3(&mut self, s: f64) -> [f32; 3] {
        std::array::from_fn(|_| self.range(-s, s) as f32)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

/// A random contact geometry: radii 0.1 to 10 mm, overlaps mostly positive (a tenth slightly
/// apart, case 0 exactly touching), any normal, speeds up to 1 m/s.
pub fn random_geom(rng: &mut SplitMix, i: usize) -> ContactGeom {
    let r1 = rng.log_uniform(1e-4, 1e-2);
    let r2 = rng.log_uniform(1e-4, 1e-2);
    let r_eff = r1 * r2 / (r1 + r2);
    let delta = match i {
        0 => 0.0,
        _ if rng.chance(0.1) => -(r_eff * rng.range(0.0, 0.01) as f32),
        _ => r_eff * rng.log_uniform(1e-6, 1e-1),
    };
    let normal = rng.unit();
    ContactGeom {
        normal,
        delta,
        point: rng.vec3(0.05),
        r_eff,
        vrel: rng.vec3(1.0),
        m_eff: rng.log_uniform(1e-7, 1e-1),
        arm1: normal.map(|x| x * r1),
        fraction: 1.0,
        arm2: normal.map(|x| -x * r2),
        dt: rng.log_uniform(1e-7, 1e-5),
        lengths: [r1, r2],
        _pad: [0.0; 2],
        wrel: rng.vec3(1e3),
        _pad2: 0.0,
    }
}

/// A realistic force from an earlier normal law, for laws later in the chain.
pub fn random_prior_force(rng: &mut SplitMix, geom: &ContactGeom) -> ContactForce {
    let fn_mag = rng.log_uniform(1e-6, 1e1);
    ContactForce {
        force: geom.normal.map(|x| -x * fn_mag),
        normal_force: fn_mag,
        stiffness: rng.log_uniform(1e1, 1e7),
        ..Default::default()
    }
}
