// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_plane.rs
//
// Sphere-plane resolver: body 1 is the sphere, body 2 the wall; the normal points from the
// sphere into the wall. A moving wall's surface velocity at the contact point enters the
// relative velocity. Contact lengths `l1 = l2 = R` (Woo, zero-thickness facet).
//!include lib/types.wgsl
//!include lib/wall.wgsl

// Overlap computed exactly as resolve_sphere_plane computes `delta` (the wall pass's early
// out). Twin: `sphere_plane_overlap`.
fn sphere_plane_overlap(x: vec4<f32>, w: Wall) -> f32 {
    let s = dot(x.xyz - w.point, w.normal);
    return x.w - s;
}

fn resolve_sphere_plane(b1: SphereBody, w: Wall, dt: f32) -> ContactGeom {
    let s = dot(b1.pos - w.point, w.normal);
    return wall_geom(b1, w, -w.normal, b1.radius - s, dt);
}
