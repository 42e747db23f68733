// CPU twin: crates/grains-core/src/kernels/resolvers/sphere_point.rs
//
// A sphere (body 1) against a node of a triangulated shell (body 2): the overlap of two
// spheres, the curvature of the sphere alone (r_eff = R1) and no lever on the node.
//!include lib/types.wgsl
//!include resolvers/sphere_sphere.wgsl

fn sphere_point_overlap(x1: vec4<f32>, x2: vec4<f32>, domain: DomainParams) -> f32 {
    return sphere_sphere_overlap(x1, x2, domain);
}

fn resolve_sphere_point(b1: SphereBody, b2: SphereBody, domain: DomainParams, dt: f32) -> ContactGeom {
    var g = resolve_sphere_sphere(b1, b2, domain, dt);
    g.r_eff = b1.radius;
    g.arm2 = vec3<f32>(0.0, 0.0, 0.0);
    return g;
}
