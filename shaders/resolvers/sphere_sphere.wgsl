// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_sphere.rs
//
// Sphere-sphere resolver: contact point in the middle of the overlap, lever arms
// `R_i - delta/2` along the normal, minimum image on periodic axes. Coincident centres get the
// normal +z rather than NaN.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/domain.wgsl

// Overlap computed exactly as resolve_sphere_sphere computes `delta`: the contact pass skips
// out-of-range pairs with it before loading velocities. Twin: `sphere_sphere_overlap`.
fn sphere_sphere_overlap(x1: vec4<f32>, x2: vec4<f32>, domain: DomainParams) -> f32 {
    let d = min_image(x2.xyz - x1.xyz, domain);
    let dist = sqrt(dot(d, d));
    return x1.w + x2.w - dist;
}

fn resolve_sphere_sphere(b1: SphereBody, b2: SphereBody, domain: DomainParams, dt: f32) -> ContactGeom {
    let p1 = b1.pos;
    let p2 = b2.pos;
    let d = min_image(p2 - p1, domain);
    // sqrt(dot) rather than length(): the twin's glam `length` is exactly this.
    let dist = sqrt(dot(d, d));
    var n = vec3<f32>(0.0, 0.0, 1.0);
    if (dist > 0.0) {
        n = d / dist;
    }
    let delta = b1.radius + b2.radius - dist;
    let arm1 = n * (b1.radius - 0.5 * delta);
    let arm2 = -n * (b2.radius - 0.5 * delta);
    return body_contact(
        b1,
        arm1,
        b2,
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius * b2.radius / (b1.radius + b2.radius),
        vec2<f32>(b1.radius, b2.radius),
        1.0,
        dt,
    );
}
