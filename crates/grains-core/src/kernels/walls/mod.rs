//! Analytic walls. Each kind is one module here implementing [`WallShape`] (its scene keys and
//! reading, its resolver, the broad phase's distance bound and the outline drawn in frames),
//! one WGSL file under `shaders/walls/` (the bound's twin), and one line of the `walls!` table
//! below, from which the registry generates its `WALL_*` id, [`WallKind`] and the dispatch
//! over kinds on both sides ([`wgsl`] writes the WGSL constants and the bound's switch).
//!
//! Adding a kind: its module and WGSL file, its sphere resolver and that resolver's twin
//! (`kernels/resolvers/`, one line of the `resolvers!` table), one line here, its tests
//! and docs. A box is six planes and a mesh wall is triangles: they are read by the scene
//! crate and are not kinds.

use std::fmt::Write as _;

use glam::Vec3;

use crate::kernel_types::{ContactGeom, SphereBody, Wall};
use crate::law::LawKeys;
use crate::parity::SplitMix;
use crate::registry::ResolverKind;

crate::registry::walls! {
    0 Plane WALL_PLANE => plane::Plane,
    1 Cylinder WALL_CYLINDER => cylinder::Cylinder,
    2 Disk WALL_DISK => disk::Disk,
    3 Cone WALL_CONE => cone::Cone,
}

/// Reading a wall's table (`cylinder = { point, axis, radius }`): the law keys' readers and
/// the vectors and flags walls take. The scene crate implements it over the TOML table, so
/// errors name file, line, column and key.
pub trait ShapeKeys: LawKeys {
    /// The required vector at key `k` in `unit`; `what` describes it when it is missing.
    fn vec3(&self, k: &str, what: &str, unit: &str) -> Result<[f64; 3], Self::Error>;
    /// The required non-zero vector at key `k`, normalised; `what` describes it.
    fn unit_vector(&self, k: &str, what: &str) -> Result<[f64; 3], Self::Error>;
    /// A boolean.
    fn boolean(&self, k: &str) -> Result<Option<bool>, Self::Error>;

    /// The required positive number at key `k` in `unit`; `what` describes it when missing.
    fn required_positive(&self, k: &str, what: &str, unit: &str) -> Result<f64, Self::Error> {
        self.positive(k, unit)?.ok_or_else(|| self.missing(k, what))
    }
}

/// A round wall of `kind` (cylinder, disk, cone): centred on `point` with axis or normal
/// `axis` and `radius`, at rest.
pub(crate) fn round_wall(
    kind: u32,
    point: [f64; 3],
    axis: [f64; 3],
    radius: f64,
    material: u32,
) -> Wall {
    let mut w = Wall::plane(point.map(|x| x as f32), axis.map(|x| x as f32), material);
    w.kind = kind;
    w.radius = radius as f32;
    w
}

/// What the frames draw of a wall, clipped to the domain by the writer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outline {
    /// The wall's plane, through its point with its normal.
    Plane,
    /// A surface of revolution about the wall's axis (its `normal`) between two circles, each
    /// `(distance along the axis from the wall's point, radius)` (m).
    Band((f64, f64), (f64, f64)),
    /// A flat disk of the wall's radius about its point, facing along its normal.
    Disk,
    /// Nothing of it lies within the domain.
    Nothing,
}

/// Where a parity case wants its wall: about sphere centre `x` of radius `rad`, at distance
/// about `d` along unit `normal` (the sphere touches at `d < rad`), with unit `across` normal to
/// it; `i` is the case's index.
#[derive(Clone, Copy, Debug)]
pub struct Near {
    pub x: [f32; 3],
    pub rad: f32,
    pub d: f32,
    pub normal: [f32; 3],
    pub across: [f32; 3],
    pub i: usize,
}

/// One kind of analytic wall.
pub trait WallShape {
    /// The key of a `[[wall]]` block that gives this kind.
    const KEYWORD: &'static str;
    /// The keys of its table, in the order messages list them.
    const KEYS: &'static [&'static str];
    /// The resolver of a sphere against it.
    const RESOLVER: ResolverKind;
    /// A valid table of it (its keys and values, without braces) in a domain from 0 to 0.1 m:
    /// the scene reference's test reads it.
    const EXAMPLE: &'static str;

    /// The wall of `material` its table describes.
    fn read<K: ShapeKeys>(keys: &K, material: u32) -> Result<Wall, K::Error>;

    /// A lower bound of the distance (m) from a point to the surface, signed for a plane
    /// (negative behind it), from the point's height `a` along the wall's `normal` above its
    /// `point` and its distance `rho` from that axis. WGSL twin: `<stem>_distance_bound` in
    /// `shaders/walls/<stem>.wgsl`.
    fn distance_bound(w: &Wall, a: f32, rho: f32) -> f32;

    /// The contact of sphere `b` with it at rest (its resolver with `dt = 0`).
    fn contact(b: &SphereBody, w: &Wall) -> ContactGeom;

    /// What frames draw of it, given the domain's extent `along` its axis from its point.
    fn outline(w: &Wall, along: (f64, f64)) -> Outline;

    /// Shape `w` (a plane through `near.x - d normal` with that normal) into one of this kind
    /// near the sphere, for its resolver's parity cases: touching in about half the cases.
    fn place_near(w: &mut Wall, near: &Near, rng: &mut SplitMix);
}

/// A lower bound of the distance (m) from `x` to wall `w`'s surface, signed for a plane
/// (negative behind it), by its kind ([`WallShape::distance_bound`]); a kind this build does
/// not know is taken as a plane. WGSL twin: `wall_kind_distance_bound` of [`wgsl`].
pub fn wall_distance_bound(w: &Wall, x: [f32; 3]) -> f32 {
    let d = Vec3::from(x) - Vec3::from(w.point);
    let n = Vec3::from(w.normal);
    let a = d.dot(n);
    let rho = (d - n * a).length();
    WallKind::of(w.kind)
        .unwrap_or(WallKind::Plane)
        .distance_bound(w, a, rho)
}

/// The unit normal from a sphere at `x` (centre xyz, radius w) into wall `w`, and their
/// overlap (m), as the wall's resolver computes them: for contact records and the initial
/// overlap check.
pub fn wall_contact(x: [f32; 4], w: &Wall) -> ([f32; 3], f32) {
    let b = SphereBody {
        pos: [x[0], x[1], x[2]],
        radius: x[3],
        ..Default::default()
    };
    let g = WallKind::of(w.kind)
        .unwrap_or(WallKind::Plane)
        .contact(&b, w);
    (g.normal, g.delta)
}

/// The WGSL of the kinds (`//!include generated/walls.wgsl`): each kind's constant, its file,
/// and `wall_kind_distance_bound`, the switch over them.
pub fn wgsl() -> String {
    let mut s = String::from(
        "// Generated from the walls! table in crates/grains-core/src/kernels/walls/mod.rs.\n",
    );
    for k in WallKind::ALL {
        let _ = writeln!(s, "const {}: u32 = {}u;", k.constant(), k.id());
    }
    for k in WallKind::ALL {
        let _ = writeln!(s, "//!include walls/{}.wgsl", k.stem());
    }
    s.push_str("fn wall_kind_distance_bound(w: Wall, a: f32, rho: f32) -> f32 {\n");
    for k in &WallKind::ALL[1..] {
        let _ = writeln!(
            s,
            "    if (w.kind == {}) {{\n        return {}_distance_bound(w, a, rho);\n    }}",
            k.constant(),
            k.stem()
        );
    }
    let _ = writeln!(
        s,
        "    return {}_distance_bound(w, a, rho);\n}}",
        WallKind::ALL[0].stem()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair table sizes its wall blocks by `WALL_KINDS` and indexes them by id.
    #[test]
    fn ids_are_dense_and_in_order() {
        for (i, k) in WallKind::ALL.iter().enumerate() {
            assert_eq!(k.id() as usize, i, "{k:?}");
            assert_eq!(WallKind::of(i as u32), Some(*k));
        }
        assert_eq!(WallKind::ALL.len(), WALL_KINDS);
        assert_eq!(WallKind::of(WALL_KINDS as u32), None);
    }

    /// The unknown-kind fallback of the dispatchers and the WGSL switch is the plane.
    #[test]
    fn the_first_kind_is_the_plane() {
        assert_eq!(WallKind::ALL[0], WallKind::Plane);
        assert!(wgsl().contains("return plane_distance_bound(w, a, rho);\n}"));
    }
}
