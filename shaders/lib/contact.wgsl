// CPU twins: `body_contact` and `capsule_kinematics` in
// crates/grains-core/src/kernels/resolvers/mod.rs
//
// The end of every resolver of two particles: given where they touch, the effective mass and
// the relative velocity and spin at the contact point.
//!include lib/types.wgsl

// Body 1 touching body 2 at `point`, `arm1` and `arm2` from their centres, along `n` (unit,
// from 1 to 2) with overlap `delta`.
fn body_contact(
    b1: SphereBody,
    arm1: vec3<f32>,
    b2: SphereBody,
    arm2: vec3<f32>,
    point: vec3<f32>,
    n: vec3<f32>,
    delta: f32,
    r_eff: f32,
    lengths: vec2<f32>,
    fraction: f32,
    dt: f32,
) -> ContactGeom {
    let inv_m = b1.inv_mass + b2.inv_mass;
    var m_eff = 0.0;
    if (inv_m > 0.0) {
        m_eff = 1.0 / inv_m;
    }
    let vc1 = b1.vel + cross(b1.omega, arm1);
    let vc2 = b2.vel + cross(b2.omega, arm2);
    return ContactGeom(
        n,
        delta,
        point,
        r_eff,
        vc1 - vc2,
        m_eff,
        arm1,
        fraction,
        arm2,
        dt,
        lengths,
        vec2<f32>(0.0, 0.0),
        b1.omega - b2.omega,
        0.0,
        vec3<f32>(0.0, 0.0, 0.0),
        0.0,
    );
}

// A capsule's centre, swept radius and motion, as `body_contact` reads a body.
fn capsule_kinematics(b: CapsuleBody) -> SphereBody {
    return SphereBody(b.pos, b.radius, b.vel, b.inv_mass, b.omega, 0.0);
}
