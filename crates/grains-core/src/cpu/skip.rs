//! The contact sweep's skipping of sphere pairs it found clearly apart.

use crate::kernel_types::DomainParams;

/// The contact sweep's skipping of sphere pairs it found clearly apart.
///
/// Where the sweep finds an inactive pair's spheres apart by `gap` beyond the largest reach
/// (`sphere_sphere_apart_by`), they cannot come within reach before each has moved `gap / 2`:
/// the distance between two points changes by at most the sum of their displacements. No
/// particle moves farther than `travel` since the last rebuild, so the pair is skipped while
/// twice the travel stays below its mark, `2 travel + gap - margin` at the test, kept rounded
/// down in units of `skin / 96` in one byte per record. A skipped pair is one the exact test
/// would find apart, so the sweep writes the same bits; on a gas or a falling bed, where most
/// records are skin pairs, most are skipped most steps.
///
/// The margin covers what the f32 positions' arithmetic may move a particle beyond its
/// drifts: the Kahan residue of the drift and a periodic wrap, each within an ulp of the
/// largest coordinate (64 ulps are taken).
#[derive(Clone, Copy, Debug)]
pub(super) struct ApartSkip {
    travel2: f32,
    unit: f32,
    margin: f32,
    /// Twice the travel in units, rounded down (255 where it reaches that or no bound is
    /// kept): a mark above it is above twice the travel.
    below: u8,
    /// The largest coordinate of the domain (m).
    far: f32,
    /// The domain's periodic axes (bits).
    periodic_mask: u32,
}

impl ApartSkip {
    pub(super) fn new(travel: f64, skin: f32, domain: &DomainParams) -> ApartSkip {
        let far = (0..3)
            .map(|k| domain.min[k].abs().max(domain.max[k].abs()))
            .fold(0.0f32, f32::max);
        let (travel2, unit) = ((2.0 * travel) as f32, skin / 96.0);
        let t = travel2 / unit;
        ApartSkip {
            travel2,
            unit,
            margin: 64.0 * f32::EPSILON * far,
            far,
            periodic_mask: domain.periodic_mask,
            // NaN (a faulty speed) and infinity alike give 255: nothing is skipped.
            below: if t < 255.0 { t.floor() as u8 } else { 255 },
        }
    }

    /// Whether a record marked `mark` is still clearly apart.
    #[inline]
    pub(super) fn skips(&self, mark: u8) -> bool {
        mark > self.below
    }

    /// Where a sphere of radius `r` is clearly beyond `range` of plane wall `w`, from its
    /// overlap `o` as `sphere_plane_overlap` computes it (which `evaluate` compares with
    /// `-range`), the gap to mark it with. Only the sphere moves, so a gap that twice its
    /// travel cannot close is one its travel cannot. Less a margin for the rounding of the f32
    /// overlap at both tests: 128 ulps of the largest of the coordinates, the wall's point and
    /// the radius, where each test rounds within about 10. None for a wall given a motion, and
    /// for one whose normal has a component along a periodic axis (a wrap moves the sphere a
    /// period across it).
    #[inline]
    pub(super) fn plane_gap(
        &self,
        o: f32,
        range: f32,
        r: f32,
        w: &crate::kernel_types::Wall,
    ) -> Option<f32> {
        let along_period = (0..3).any(|k| self.periodic_mask & (1 << k) != 0 && w.normal[k] != 0.0);
        if w.moves() || along_period {
            return None;
        }
        let point = w.point.iter().fold(0.0f32, |m, c| m.max(c.abs()));
        let margin = 128.0 * f32::EPSILON * (self.far + point + r.abs());
        let gap = -range - o - margin;
        (gap > 0.0).then_some(gap)
    }

    /// The mark of a pair found apart by `gap` (m) now: 0 (test it next step) where the gap
    /// leaves no room or no bound is kept.
    #[inline]
    pub(super) fn mark(&self, gap: f32) -> u8 {
        let m = ((self.travel2 + gap - self.margin) / self.unit).floor();
        if m.is_finite() {
            m.clamp(0.0, 255.0) as u8
        } else {
            0
        }
    }
}
