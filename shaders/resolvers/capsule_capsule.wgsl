// CPU twin: crates/grains-core/src/kernels/resolvers/capsule_capsule.rs
//
// Capsule-capsule resolver: the closest points of the two segments (clamped method, Ericson,
// Real-Time Collision Detection, 2005, 5.1.9; for nearly parallel axes the middle of the
// overlap of their projections) carry spheres of the capsules' radii; then sphere-sphere
// geometry (contact point in the middle of the overlap, minimum image, normal +z for
// coincident points). Arms are from each capsule's centre.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/domain.wgsl

// |u x v|^2 below which the axes count as parallel (angle under 1e-3 rad); the twin's
// `PARALLEL` says why.
const CAPSULE_PARALLEL: f32 = 1e-6;

// Parameters (s, t) of the closest points s u and d + t v of the segments [-h1, h1] u and
// d + [-h2, h2] v (relative to the first segment's centre). Twin: `segments_closest`.
fn segments_closest(d: vec3<f32>, u: vec3<f32>, h1: f32, v: vec3<f32>, h2: f32) -> vec2<f32> {
    let b = dot(u, v);
    let cu = dot(u, d);
    let fv = dot(v, d);
    let w = cross(u, v);
    let denom = dot(w, w);
    var s: f32;
    if (denom > CAPSULE_PARALLEL) {
        s = min(max((cu - b * fv) / denom, -h1), h1);
    } else {
        // The second segment projects on the first axis as cu + [-|b| h2, |b| h2].
        let k = abs(b) * h2;
        let lo = max(cu - k, -h1);
        let hi = min(cu + k, h1);
        s = min(max(0.5 * (lo + hi), -h1), h1);
    }
    var t = b * s - fv;
    if (t < -h2) {
        t = -h2;
        s = min(max(t * b + cu, -h1), h1);
    } else if (t > h2) {
        t = h2;
        s = min(max(t * b + cu, -h1), h1);
    }
    return vec2<f32>(s, t);
}

// Overlap computed exactly as resolve_capsule_capsule computes `delta`: x1, x2 the centres and
// swept radii, axis1, axis2 the unit axes and half-lengths. Twin: `capsule_capsule_overlap`.
fn capsule_capsule_overlap(x1: vec4<f32>, axis1: vec4<f32>, x2: vec4<f32>, axis2: vec4<f32>, domain: DomainParams) -> f32 {
    let d = min_image(x2.xyz - x1.xyz, domain);
    let u = axis1.xyz;
    let v = axis2.xyz;
    let st = segments_closest(d, u, axis1.w, v, axis2.w);
    let e = d + v * st.y - u * st.x;
    let dist = sqrt(dot(e, e));
    return x1.w + x2.w - dist;
}

fn resolve_capsule_capsule(b1: CapsuleBody, b2: CapsuleBody, domain: DomainParams, dt: f32) -> ContactGeom {
    let p1 = b1.pos;
    let p2 = b2.pos;
    let d = min_image(p2 - p1, domain);
    let u = b1.axis;
    let v = b2.axis;
    let st = segments_closest(d, u, b1.half_length, v, b2.half_length);
    let pu = u * st.x;
    let qv = v * st.y;
    let e = d + qv - pu;
    let dist = sqrt(dot(e, e));
    var n = vec3<f32>(0.0, 0.0, 1.0);
    if (dist > 0.0) {
        n = e / dist;
    }
    let delta = b1.radius + b2.radius - dist;
    let arm1 = pu + n * (b1.radius - 0.5 * delta);
    let arm2 = qv - n * (b2.radius - 0.5 * delta);
    var g = body_contact(
        capsule_kinematics(b1),
        arm1,
        capsule_kinematics(b2),
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius * b2.radius / (b1.radius + b2.radius),
        vec2<f32>(b1.radius, b2.radius),
        1.0,
        dt,
    );
    // Unit axes: (t1 . t2) (t1 x t2) / (|t1|^2 |t2|^2) is (u . v) (u x v); none where the
    // closest points reach an end of either segment.
    if (abs(st.x) < b1.half_length && abs(st.y) < b2.half_length) {
        g.alignment = dot(u, v) * cross(u, v);
    }
    return g;
}
