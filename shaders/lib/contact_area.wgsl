// The contact area the area-weighted resistances scale by. CPU twin: `contact_area` in
// crates/grains-core/src/kernels/laws/area_weighted_resistance.rs.
//
// The normal law's declared area where it declared one; else `pi a^2` of the circle where the
// two spheres' surfaces cross, `a^2 = delta (2 R1 - delta) (2 R2 - delta) (2 R1 + 2 R2 - delta)
// / (4 d^2)` (`R1^2 - x1^2` without its cancellation), or `delta (2 R1 - delta)` against a flat
// body (`r_eff = R1`).
//!include lib/types.wgsl
//!include lib/math.wgsl

fn contact_area(geom: ContactGeom, force: ContactForce) -> f32 {
    if (force.area > 0.0) {
        return force.area;
    }
    let delta = geom.delta;
    if (delta <= 0.0) {
        return 0.0;
    }
    let r1 = geom.lengths.x;
    let r2 = geom.lengths.y;
    var a2 = 0.0;
    if (geom.r_eff >= r1) {
        a2 = delta * (2.0 * r1 - delta);
    } else {
        let d = r1 + r2 - delta;
        let num = delta * (2.0 * r1 - delta) * (2.0 * r2 - delta) * (2.0 * (r1 + r2) - delta);
        if (num > 0.0 && d > 0.0) {
            a2 = num / (4.0 * d * d);
        }
    }
    return PI * max(a2, 0.0);
}
