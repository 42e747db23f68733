// CPU twin: crates/grains-core/src/kernels/resolvers/capsule_triangle.rs
//
// Capsule-triangle resolver: the end sphere with the larger overlap with the triangle's plane
// (ties: the first end, pos - half_length axis), resolved as sphere_triangle with that end
// sphere's contact fraction (Mpacts' NGon_Sphere); arm1 from the capsule's centre.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/domain.wgsl
//!include resolvers/sphere_triangle.wgsl

// The offset from the capsule's centre (x1: centre, swept radius; axis1: unit axis,
// half-length) of its end nearer the triangle's plane. Twin: `capsule_triangle_end`.
fn capsule_triangle_end(x1: vec4<f32>, axis1: vec4<f32>, x2: vec4<f32>, t: Triangle, domain: DomainParams) -> vec3<f32> {
    let a = axis1.xyz;
    let lever0 = a * -axis1.w;
    let lever1 = a * axis1.w;
    let m = triangle_normal(t);
    let d0 = min_image(x2.xyz - (x1.xyz + lever0), domain);
    let d1 = min_image(x2.xyz - (x1.xyz + lever1), domain);
    let h0 = abs(dot(d0 + t.a, m));
    let h1 = abs(dot(d1 + t.a, m));
    if (h1 < h0) {
        return lever1;
    }
    return lever0;
}

// Overlap computed exactly as resolve_capsule_triangle computes `delta` (the contact pass's
// early out). Twin: `capsule_triangle_overlap`.
fn capsule_triangle_overlap(x1: vec4<f32>, axis1: vec4<f32>, x2: vec4<f32>, t: Triangle, domain: DomainParams) -> f32 {
    let lever = capsule_triangle_end(x1, axis1, x2, t, domain);
    let e = x1.xyz + lever;
    return sphere_triangle_contact(vec4<f32>(e, x1.w), x2, t, domain).y;
}

fn resolve_capsule_triangle(b1: CapsuleBody, b2: SphereBody, t: Triangle, domain: DomainParams, dt: f32) -> ContactGeom {
    let x1 = vec4<f32>(b1.pos, b1.radius);
    let axis1 = vec4<f32>(b1.axis, b1.half_length);
    let x2 = vec4<f32>(b2.pos, b2.radius);
    let lever = capsule_triangle_end(x1, axis1, x2, t, domain);
    let e = b1.pos + lever;
    let k = sphere_triangle_contact(vec4<f32>(e, b1.radius), x2, t, domain);
    let m = triangle_normal(t);
    var n = m;
    if (k.x < 0.0) {
        n = -m;
    }
    let delta = k.y;
    let d = min_image(b2.pos - e, domain);
    let arm_end = n * (b1.radius - 0.5 * delta);
    let arm1 = lever + arm_end;
    let arm2 = arm_end - d;
    return body_contact(
        capsule_kinematics(b1),
        arm1,
        b2,
        arm2,
        e + arm_end,
        n,
        delta,
        b1.radius,
        vec2<f32>(b1.radius, b1.radius),
        k.z,
        dt,
    );
}
