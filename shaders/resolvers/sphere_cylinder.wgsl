// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_cylinder.rs
//
// Sphere against an infinite cylinder wall (axis through `point` along `normal`, `radius`):
// outside it, or inside it when `hollow` (a drum). The normal points from the sphere to the
// cylinder's surface along the radial direction.
//!include lib/types.wgsl
//!include lib/wall.wgsl

// The radial unit vector of `x` from the axis, and its distance from the axis. On the axis,
// any direction across it (the one nearest +x or +y).
fn cylinder_radial(x: vec3<f32>, w: Wall) -> vec4<f32> {
    let d = x - w.point;
    let radial = d - dot(d, w.normal) * w.normal;
    let rho = sqrt(dot(radial, radial));
    if (rho > 0.0) {
        return vec4<f32>(radial / rho, rho);
    }
    var across = cross(w.normal, vec3<f32>(0.0, 0.0, 1.0));
    if (dot(across, across) < 0.25) {
        across = cross(w.normal, vec3<f32>(1.0, 0.0, 0.0));
    }
    return vec4<f32>(normalize(across), 0.0);
}

// Twin: `sphere_cylinder_overlap`.
fn sphere_cylinder_overlap(x: vec4<f32>, w: Wall) -> f32 {
    let e = cylinder_radial(x.xyz, w);
    if (w.hollow != 0u) {
        return x.w + e.w - w.radius;
    }
    return x.w + w.radius - e.w;
}

fn resolve_sphere_cylinder(b1: SphereBody, w: Wall, dt: f32) -> ContactGeom {
    let e = cylinder_radial(b1.pos, w);
    if (w.hollow != 0u) {
        return wall_geom(b1, w, e.xyz, b1.radius + e.w - w.radius, dt);
    }
    return wall_geom(b1, w, -e.xyz, b1.radius + w.radius - e.w, dt);
}
