// CPU twin: crates/grains-core/src/kernels/resolvers/capsule_plane.rs
//
// Capsule-plane resolver: the contact of the capsule's end sphere with the larger overlap
// (ties: the first end, pos - half_length axis), whose force is the gradient of that end
// sphere's elastic potential; sphere_plane's geometry with the lever arm measured from the
// capsule's centre. The normal points from the capsule into the wall.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/wall.wgsl

// The end of the capsule (x: centre and swept radius; axis: unit axis and half-length) that
// overlaps the plane more: its offset from the centre (xyz) and its overlap (w).
// Twin: `capsule_plane_end`.
fn capsule_plane_end(x: vec4<f32>, axis: vec4<f32>, w: Wall) -> vec4<f32> {
    let c = x.xyz;
    let a = axis.xyz;
    let lever0 = a * -axis.w;
    let lever1 = a * axis.w;
    let o0 = x.w - dot(c + lever0 - w.point, w.normal);
    let o1 = x.w - dot(c + lever1 - w.point, w.normal);
    if (o1 > o0) {
        return vec4<f32>(lever1, o1);
    }
    return vec4<f32>(lever0, o0);
}

// Overlap computed exactly as resolve_capsule_plane computes `delta` (the wall pass's early
// out). Twin: `capsule_plane_overlap`.
fn capsule_plane_overlap(x: vec4<f32>, axis: vec4<f32>, w: Wall) -> f32 {
    return capsule_plane_end(x, axis, w).w;
}

fn resolve_capsule_plane(b1: CapsuleBody, w: Wall, dt: f32) -> ContactGeom {
    let x = vec4<f32>(b1.pos, b1.radius);
    let axis = vec4<f32>(b1.axis, b1.half_length);
    let end = capsule_plane_end(x, axis, w);
    // The end sphere's wall contact, its lever arm from the capsule's centre.
    let n = -w.normal;
    let arm1 = end.xyz + n * (b1.radius - 0.5 * end.w);
    return wall_geom_arm(capsule_kinematics(b1), arm1, w, n, end.w, dt);
}

