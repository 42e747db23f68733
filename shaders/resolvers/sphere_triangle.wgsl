// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_triangle.rs
//
// Sphere-triangle resolver with a contact fraction (Mpacts' NGon_Sphere): body 1 a sphere,
// body 2 the particle carrying the triangle (vertices b2.pos + t.a, ...; minimum image). The
// contact is with the triangle's plane on the side of the sphere's centre (two-sided),
// delta = R - |h|, weighted by the share of the contact circle (radius sqrt(R^2 - h^2) about
// the centre's projection) inside the triangle, computed exactly. A circle that misses the
// triangle is no contact: delta = R - (distance from the centre to the triangle) <= 0.
// Contact point in the middle of the overlap below the centre; r_eff = R; lengths R, R.
//!include lib/types.wgsl
//!include lib/contact.wgsl
//!include lib/domain.wgsl
//!include lib/math.wgsl

// The angle turning 2D vector u to v, in (-pi, pi]. Twin: `disk_angle`.
fn disk_angle(u: vec2<f32>, v: vec2<f32>) -> f32 {
    return atan2(u.x * v.y - u.y * v.x, u.x * v.x + u.y * v.y);
}

// Signed area of the disk of radius a about the origin intersected with the triangle
// (0, p, q): the part of the edge inside the disk gives its triangle with the origin, the
// parts outside the sectors they subtend. Twin: `disk_edge_area`.
fn disk_edge_area(p: vec2<f32>, q: vec2<f32>, a: f32) -> f32 {
    let dv = q - p;
    let aa = dot(dv, dv);
    let a2 = a * a;
    if (aa <= 0.0) {
        return 0.0;
    }
    let b = dot(p, dv);
    let c = dot(p, p) - a2;
    let disc = b * b - aa * c;
    if (disc <= 0.0) {
        // The edge's line misses the disk: a sector only.
        return 0.5 * a2 * disk_angle(p, q);
    }
    let sq = sqrt(disc);
    let s1 = clamp((-b - sq) / aa, 0.0, 1.0);
    let s2 = clamp((-b + sq) / aa, 0.0, 1.0);
    let m1 = p + dv * s1;
    let m2 = p + dv * s2;
    var area = 0.5 * (m1.x * m2.y - m1.y * m2.x);
    if (s1 > 0.0) {
        area = area + 0.5 * a2 * disk_angle(p, m1);
    }
    if (s2 < 1.0) {
        area = area + 0.5 * a2 * disk_angle(m2, q);
    }
    return area;
}

// Area of the disk (centre c, radius a) intersected with the triangle p0 p1 p2 (2D, either
// winding). Twin: `disk_triangle_area`.
fn disk_triangle_area(c: vec2<f32>, a: f32, p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>) -> f32 {
    let q0 = p0 - c;
    let q1 = p1 - c;
    let q2 = p2 - c;
    let area = disk_edge_area(q0, q1, a) + disk_edge_area(q1, q2, a) + disk_edge_area(q2, q0, a);
    return abs(area);
}

// Distance from the origin to the 2D segment p q. Twin: `origin_segment_distance`.
fn origin_segment_distance(p: vec2<f32>, q: vec2<f32>) -> f32 {
    let dv = q - p;
    let aa = dot(dv, dv);
    var s = 0.0;
    if (aa > 0.0) {
        s = clamp(-dot(p, dv) / aa, 0.0, 1.0);
    }
    let x = p + dv * s;
    return sqrt(dot(x, x));
}

// Whether the origin lies in the 2D triangle p0 p1 p2 (either winding, edges included).
// Twin: `origin_in_triangle`.
fn origin_in_triangle(p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>) -> bool {
    let c0 = p0.x * p1.y - p0.y * p1.x;
    let c1 = p1.x * p2.y - p1.y * p2.x;
    let c2 = p2.x * p0.y - p2.y * p0.x;
    return (c0 >= 0.0 && c1 >= 0.0 && c2 >= 0.0) || (c0 <= 0.0 && c1 <= 0.0 && c2 <= 0.0);
}

// Unit normal (b - a) x (c - a) normalised; +z for a degenerate triangle.
// Twin: `triangle_normal`.
fn triangle_normal(t: Triangle) -> vec3<f32> {
    let m = cross(t.b - t.a, t.c - t.a);
    let l = sqrt(dot(m, m));
    if (l > 0.0) {
        return m / l;
    }
    return vec3<f32>(0.0, 0.0, 1.0);
}

// (h, delta, fraction, a): the plane's signed distance from the sphere's centre along
// triangle_normal, the resolver's overlap, the share of the contact circle inside the
// triangle, the circle's radius. x1: the sphere (centre, radius); x2: the carrying particle's
// centre. Twin: `sphere_triangle_contact`.
fn sphere_triangle_contact(x1: vec4<f32>, x2: vec4<f32>, t: Triangle, domain: DomainParams) -> vec4<f32> {
    let d = min_image(x2.xyz - x1.xyz, domain);
    let va = d + t.a;
    let vb = d + t.b;
    let vc = d + t.c;
    let m = triangle_normal(t);
    let ab = t.b - t.a;
    let lab = sqrt(dot(ab, ab));
    var e1 = vec3<f32>(1.0, 0.0, 0.0);
    if (lab > 0.0) {
        e1 = ab / lab;
    }
    let e2 = cross(m, e1);
    let h = dot(va, m);
    let r = x1.w;
    let ah = abs(h);
    let delta0 = r - ah;
    let a = sqrt(max(delta0 * (r + ah), 0.0));
    // In-plane coordinates about the projection of the sphere's centre.
    let p0 = vec2<f32>(dot(va, e1), dot(va, e2));
    let p1 = vec2<f32>(dot(vb, e1), dot(vb, e2));
    let p2 = vec2<f32>(dot(vc, e1), dot(vc, e2));
    // The circle meets the triangle iff the centre's in-plane distance rho to it is below a:
    // decided here rather than from the area, whose sectors cancel only to rounding for a
    // circle that misses the triangle.
    let inside = origin_in_triangle(p0, p1, p2);
    var rho = 0.0;
    if (!inside) {
        rho = min(min(origin_segment_distance(p0, p1), origin_segment_distance(p1, p2)), origin_segment_distance(p2, p0));
    }
    let disk = PI * a * a;
    var fraction = 0.0;
    if (rho < a) {
        fraction = 1.0;
        if (disk > 0.0) {
            fraction = min(disk_triangle_area(vec2<f32>(0.0, 0.0), a, p0, p1, p2) / disk, 1.0);
        }
    } else if (inside) {
        // a = 0 (touching, or clear of the plane) above the triangle.
        fraction = 1.0;
    }
    var delta = delta0;
    if (fraction <= 0.0) {
        // Never positive: rounding must not make a missed triangle touch.
        delta = min(r - sqrt(h * h + rho * rho), 0.0);
    }
    return vec4<f32>(h, delta, fraction, a);
}

// Overlap computed exactly as resolve_sphere_triangle computes `delta` (the contact pass's
// early out). Twin: `sphere_triangle_overlap`.
fn sphere_triangle_overlap(x1: vec4<f32>, x2: vec4<f32>, t: Triangle, domain: DomainParams) -> f32 {
    return sphere_triangle_contact(x1, x2, t, domain).y;
}

fn resolve_sphere_triangle(b1: SphereBody, b2: SphereBody, t: Triangle, domain: DomainParams, dt: f32) -> ContactGeom {
    let x1 = vec4<f32>(b1.pos, b1.radius);
    let x2 = vec4<f32>(b2.pos, b2.radius);
    let k = sphere_triangle_contact(x1, x2, t, domain);
    let m = triangle_normal(t);
    var n = m;
    if (k.x < 0.0) {
        n = -m;
    }
    let delta = k.y;
    let p1 = b1.pos;
    let d = min_image(b2.pos - p1, domain);
    let arm1 = n * (b1.radius - 0.5 * delta);
    let arm2 = arm1 - d;
    return body_contact(
        b1,
        arm1,
        b2,
        arm2,
        p1 + arm1,
        n,
        delta,
        b1.radius,
        vec2<f32>(b1.radius, b1.radius),
        k.z,
        dt,
    );
}
