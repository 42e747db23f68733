//! Area conservation of a ring: the 2-D counterpart of [`super::volume_conservation`] for the
//! closed polylines of [`crate::rings`]. WGSL twin: `shaders/shell/area_conservation.wgsl`.
//!
//! The enclosed area is the shoelace sum over the ring's segments `(a, b)`,
//! `A = sum (r_a x r_b) . z / 2` with `r` measured from a reference node (positive for an
//! anticlockwise ring, whose interior is on the left walking from node 0 to node 1). The
//! energy is the volume law's quadratic `E = k_a (A - A0)^2 / (2 A0)` in the area, its
//! pressure `p = dE/dA = k_a (A - A0) / A0` (N/m, with `k_a` in N/m), and the force on node a
//! is `F_a = -p dA/dx_a`. A segment `(a, b)` gives its start `dA/dx_a = (r_y, -r_x) / 2` with
//! `r = x_b - x_a`, and its end `dA/dx_b = (-r_y, r_x) / 2` with `r = x_a - x_b`: the two
//! segments at a node sum to half the chord from its predecessor to its successor turned a
//! quarter clockwise, the outward normal of an anticlockwise ring, so a ring above its rest
//! area is pulled in.
//!
//! Scene: `area = { law = "area_conservation", stiffness = k_a, rest_area = A0 }` (N/m; m^2,
//! default the initial area), on a `[[ring]]`.

use glam::Vec3;

/// Scene keyword.
pub const KEYWORD: &str = "area_conservation";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["stiffness", "rest_area"];

/// The signed area (m^2) a segment from `a` to `b` sweeps seen from the reference node
/// (`a`, `b` measured from it; z ignored).
pub fn segment_area(a: Vec3, b: Vec3) -> f32 {
    0.5 * (a.x * b.y - a.y * b.x)
}

/// `dA/dx` (m) of corner `corner` of a segment (0: its start, 1: its end), with `r` the other
/// end measured from this corner's node.
pub fn segment_area_gradient(corner: u32, r: Vec3) -> Vec3 {
    if corner == 0 {
        0.5 * Vec3::new(r.y, -r.x, 0.0)
    } else {
        0.5 * Vec3::new(-r.y, r.x, 0.0)
    }
}
