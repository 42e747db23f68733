// Helpers of the wall resolvers (no entry points).
//!include lib/types.wgsl
//!include generated/walls.wgsl

// Velocity of the wall's surface at `x`: zero unless the wall moves during this step.
// CPU twin: `Wall::velocity_at` in crates/grains-core/src/kernel_types.rs.
fn wall_velocity_at(w: Wall, x: vec3<f32>) -> vec3<f32> {
    if (w.moving == 0u) {
        return vec3<f32>(0.0, 0.0, 0.0);
    }
    return w.velocity + cross(w.omega, x - w.center);
}

// The wall's angular velocity during this step. CPU twin: `wall_spin` in
// crates/grains-core/src/kernels/resolvers/sphere_plane.rs.
fn wall_spin(w: Wall) -> vec3<f32> {
    if (w.moving == 0u) {
        return vec3<f32>(0.0, 0.0, 0.0);
    }
    return w.omega;
}

// The contact of sphere `b1` with a wall along `n` (from the sphere into the wall) with
// overlap `delta`: contact point in the middle of the overlap, the wall's surface velocity
// there, the sphere's curvature (the wall's is neglected), Woo's lengths `l1 = l2 = R`.
// CPU twin: `wall_geom` in crates/grains-core/src/kernels/resolvers/sphere_plane.rs.
fn wall_geom(b1: SphereBody, w: Wall, n: vec3<f32>, delta: f32, dt: f32) -> ContactGeom {
    let arm1 = n * (b1.radius - 0.5 * delta);
    return wall_geom_arm(b1, arm1, w, n, delta, dt);
}

// wall_geom with the lever arm from the body's centre given (a capsule's end sphere sits off
// its centre). CPU twin: `wall_geom_arm` in sphere_plane.rs.
fn wall_geom_arm(b1: SphereBody, arm1: vec3<f32>, w: Wall, n: vec3<f32>, delta: f32, dt: f32) -> ContactGeom {
    var m_eff = 0.0;
    if (b1.inv_mass > 0.0) {
        m_eff = 1.0 / b1.inv_mass;
    }
    let point = b1.pos + arm1;
    let vc1 = b1.vel + cross(b1.omega, arm1);
    return ContactGeom(
        n,
        delta,
        point,
        b1.radius,
        vc1 - wall_velocity_at(w, point),
        m_eff,
        arm1,
        1.0,
        vec3<f32>(0.0, 0.0, 0.0),
        dt,
        vec2<f32>(b1.radius, b1.radius),
        vec2<f32>(0.0, 0.0),
        b1.omega - wall_spin(w),
        0.0,
        vec3<f32>(0.0, 0.0, 0.0),
        0.0,
    );
}

// A lower bound of the distance from `x` to wall `w`'s surface, signed for a plane, by its
// kind. CPU twin: `wall_distance_bound` in crates/grains-core/src/kernels/walls/mod.rs.
fn wall_distance_bound(w: Wall, x: vec3<f32>) -> f32 {
    let d = x - w.point;
    let a = dot(d, w.normal);
    let rho = length(d - w.normal * a);
    return wall_kind_distance_bound(w, a, rho);
}

// Whether wall `w` is a candidate of the body at `x` (bounding radius `x.w`) until the next
// rebuild; a wall given a motion is one of every body. CPU twin: `wall_candidate` in
// crates/grains-core/src/kernels/sources/wall.rs.
fn wall_candidate(w: Wall, x: vec4<f32>, cutoff: f32) -> bool {
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    if (any(w.velocity != zero) || any(w.omega != zero) || w.table_rows > 0u || w.steered != 0u) {
        return x.w > 0.0;
    }
    return wall_distance_bound(w, x.xyz) < x.w * 1.001 + cutoff;
}
