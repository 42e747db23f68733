// CPU twin: crates/grains-core/src/kernels/resolvers/capsule_sphere.rs
//
// Capsule-sphere resolver: the point of the capsule's segment nearest the sphere's centre
// (clamped projection, Ericson, Real-Time Collision Detection, 2005, 5.1.2) carries a sphere
// of the capsule's radius; then sphere-sphere geometry (contact point in the middle of the
// overlap, minimum image, normal +z for coincident points). arm1 is from the capsule's centre.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/domain.wgsl

// The point of the segment [-h axis, h axis] nearest `d`, both relative to the segment's
// centre. Twin: `capsule_nearest`; max then min, as the twin writes clamp.
fn capsule_nearest(d: vec3<f32>, axis: vec3<f32>, half_length: f32) -> vec3<f32> {
    let s = min(max(dot(d, axis), -half_length), half_length);
    return axis * s;
}

// Overlap computed exactly as resolve_capsule_sphere computes `delta`: x1 the capsule's
// centre and swept radius, axis1 its unit axis and half-length, x2 the sphere.
// Twin: `capsule_sphere_overlap`.
fn capsule_sphere_overlap(x1: vec4<f32>, axis1: vec4<f32>, x2: vec4<f32>, domain: DomainParams) -> f32 {
    let d = min_image(x2.xyz - x1.xyz, domain);
    let q = capsule_nearest(d, axis1.xyz, axis1.w);
    let e = d - q;
    let dist = sqrt(dot(e, e));
    return x1.w + x2.w - dist;
}

fn resolve_capsule_sphere(b1: CapsuleBody, b2: SphereBody, domain: DomainParams, dt: f32) -> ContactGeom {
    let p1 = b1.pos;
    let p2 = b2.pos;
    let d = min_image(p2 - p1, domain);
    let q = capsule_nearest(d, b1.axis, b1.half_length);
    let e = d - q;
    let dist = sqrt(dot(e, e));
    var n = vec3<f32>(0.0, 0.0, 1.0);
    if (dist > 0.0) {
        n = e / dist;
    }
    let delta = b1.radius + b2.radius - dist;
    let arm1 = q + n * (b1.radius - 0.5 * delta);
    let arm2 = -n * (b2.radius - 0.5 * delta);
    return body_contact(
        capsule_kinematics(b1),
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
