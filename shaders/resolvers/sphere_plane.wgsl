// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_plane.rs
//
// Sphere-plane resolver: body 1 is the sphere, body 2 the (immobile) wall; the normal points
// from the sphere into the wall. Contact lengths `l1 = l2 = R` (Woo, zero-thickness facet).
//!include lib/types.wgsl

// Overlap computed exactly as resolve_sphere_plane computes `delta` (the wall pass's early
// out). Twin: `sphere_plane_overlap`.
fn sphere_plane_overlap(x: vec4<f32>, w: PlaneWall) -> f32 {
    let s = dot(x.xyz - w.point, w.normal);
    return x.w - s;
}

fn resolve_sphere_plane(b1: SphereBody, w: PlaneWall, dt: f32) -> ContactGeom {
    let p1 = b1.pos;
    let wn = w.normal;
    let s = dot(p1 - w.point, wn);
    let n = -wn;
    let delta = b1.radius - s;
    let arm1 = n * (b1.radius - 0.5 * delta);
    var m_eff = 0.0;
    if (b1.inv_mass > 0.0) {
        m_eff = 1.0 / b1.inv_mass;
    }
    let vc1 = b1.vel + cross(b1.omega, arm1);
    return ContactGeom(
        n,
        delta,
        p1 + arm1,
        b1.radius,
        vc1,
        m_eff,
        arm1,
        1.0,
        vec3<f32>(0.0, 0.0, 0.0),
        dt,
        vec2<f32>(b1.radius, b1.radius),
        vec2<f32>(0.0, 0.0),
        b1.omega,
        0.0,
    );
}
