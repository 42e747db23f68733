//! How values read in messages: points and vectors at four significant digits, and which of
//! two keys a "not both" error points at.

use std::ops::Range;

use grains_core::units::sig4;

pub(crate) trait MaxByStart {
    fn max_by_start(self, other: Range<usize>) -> Range<usize>;
}

impl MaxByStart for Range<usize> {
    /// The later of two spans: "not both" errors point at the second key written.
    fn max_by_start(self, other: Range<usize>) -> Range<usize> {
        if other.start > self.start {
            other
        } else {
            self
        }
    }
}

/// A point for messages: `(x, y, z) m`, four significant digits each.
pub(crate) fn point3<T: Copy + Into<f64>>(x: &[T]) -> String {
    format!("{} m", vec3(x))
}

/// [`sig4`] of a value that may be an f32 widened to f64: read at the f32's shortest form
/// when it is one exactly, so `0.01f32` prints `0.01000`.
fn shortest(v: f64) -> String {
    let f = v as f32;
    if f as f64 == v {
        grains_core::units::sig4_f32(f)
    } else {
        sig4(v)
    }
}

/// A vector for messages: `(x, y, z)`, four significant digits each.
pub(crate) fn vec3<T: Copy + Into<f64>>(x: &[T]) -> String {
    let c: Vec<String> = x.iter().take(3).map(|&v| shortest(v.into())).collect();
    format!("({})", c.join(", "))
}
