// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_disk.rs
//
// Sphere against a flat disk wall (centre `point`, unit `normal`, `radius`), from either side:
// the nearest point of the disk is on its face or, beyond the radius, on its rim.
//!include lib/types.wgsl
//!include lib/wall.wgsl

// The vector from `x` to the disk's nearest point.
fn disk_nearest(x: vec3<f32>, w: Wall) -> vec3<f32> {
    let d = x - w.point;
    let inplane = d - dot(d, w.normal) * w.normal;
    let q = sqrt(dot(inplane, inplane));
    var onto = inplane;
    if (q > w.radius) {
        onto = inplane * (w.radius / q);
    }
    return w.point + onto - x;
}

// Twin: `sphere_disk_overlap`.
fn sphere_disk_overlap(x: vec4<f32>, w: Wall) -> f32 {
    let v = disk_nearest(x.xyz, w);
    return x.w - sqrt(dot(v, v));
}

fn resolve_sphere_disk(b1: SphereBody, w: Wall, dt: f32) -> ContactGeom {
    let v = disk_nearest(b1.pos, w);
    let dist = sqrt(dot(v, v));
    var n = -w.normal;
    if (dist > 0.0) {
        n = v / dist;
    }
    return wall_geom(b1, w, n, b1.radius - dist, dt);
}
