//! The domain: an axis-aligned box, periodic per axis where asked.

use crate::kernel_types::DomainParams;

/// Axis-aligned domain, optionally periodic per axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    pub min: [f64; 3],
    pub max: [f64; 3],
    pub periodic: [bool; 3],
}

impl Domain {
    /// The first non-periodic axis on which point `x` lies outside the domain, if any: where a
    /// particle is lost.
    pub fn outside_axis(&self, x: &[f32; 4]) -> Option<usize> {
        (0..3).find(|&k| {
            !self.periodic[k] && ((x[k] as f64) < self.min[k] || (x[k] as f64) > self.max[k])
        })
    }

    /// The GPU-shaped form.
    pub fn params(&self) -> DomainParams {
        let mut mask = 0;
        for k in 0..3 {
            if self.periodic[k] {
                mask |= 1 << k;
            }
        }
        DomainParams {
            min: self.min.map(|x| x as f32),
            periodic_mask: mask,
            max: self.max.map(|x| x as f32),
            _pad0: 0,
            length: [0, 1, 2].map(|k| (self.max[k] - self.min[k]) as f32),
            _pad1: 0,
        }
    }
}
