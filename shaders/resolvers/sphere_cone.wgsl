// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_cone.rs
//
// Sphere inside a hopper cone (orifice of `radius` at `point`, axis `normal` up, radius growing
// by `slope` per metre), open below: in the meridional plane the wall is the half-line from
// the rim `(radius, 0)` along `(sin a, cos a)`; the nearest point is on it, or the rim itself
// for a sphere below the line's start (at the orifice).
//!include lib/types.wgsl
//!include lib/wall.wgsl
//!include resolvers/sphere_cylinder.wgsl

// The vector from `x` to the cone's nearest point.
fn cone_nearest(x: vec3<f32>, w: Wall) -> vec3<f32> {
    let e = cylinder_radial(x, w);
    let h = dot(x - w.point, w.normal);
    let c = 1.0 / sqrt(1.0 + w.slope * w.slope);
    let s = w.slope * c;
    // Along the wall's line from the rim: (rho - r0) sin a + h cos a, at least 0.
    let along = max((e.w - w.radius) * s + h * c, 0.0);
    let rho = w.radius + along * s;
    let up = along * c;
    return w.point + e.xyz * rho + w.normal * up - x;
}

// Twin: `sphere_cone_overlap`.
fn sphere_cone_overlap(x: vec4<f32>, w: Wall) -> f32 {
    let v = cone_nearest(x.xyz, w);
    return x.w - sqrt(dot(v, v));
}

fn resolve_sphere_cone(b1: SphereBody, w: Wall, dt: f32) -> ContactGeom {
    let v = cone_nearest(b1.pos, w);
    let dist = sqrt(dot(v, v));
    var n = -w.normal;
    if (dist > 0.0) {
        n = v / dist;
    }
    return wall_geom(b1, w, n, b1.radius - dist, dt);
}
