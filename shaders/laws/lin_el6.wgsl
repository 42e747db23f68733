// CPU twin: crates/grains-core/src/kernels/laws/lin_el6.rs
//
// Purely elastic six-spring model: normal, two shear, twist and two bending springs from the
// rest state taken at the first evaluation; rotational stiffnesses `k_s L^2` (twist) and
// `k_n L^2` (bending); no limit, no damping.
//!include lib/types.wgsl

struct LinEl6Params {
    stiffness: f32,
    shear_stiffness: f32,
    length: f32,
}

struct LinEl6History {
    established: u32,
    rest_overlap: f32,
    twist: f32,
    shear: array<f32, 3>,
    bend: array<f32, 3>,
}

// `x` turned into the plane normal to `n`, its length kept.
fn lin_el6_into_plane(x: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let len = sqrt(dot(x, x));
    let y = x - n * dot(x, n);
    let plane = sqrt(dot(y, y));
    if (plane > 0.0) {
        return y * (len / plane);
    }
    return y;
}

fn law_lin_el6(
    geom: ContactGeom,
    params: LinEl6Params,
    history: ptr<function, LinEl6History>,
    force: ptr<function, ContactForce>,
) {
    if ((*history).established == 0u) {
        var fresh = LinEl6History();
        fresh.established = 1u;
        fresh.rest_overlap = geom.delta;
        *history = fresh;
    }
    let n = geom.normal;
    let vrel = geom.vrel;
    let w = geom.wrel;
    let s = (*history).shear;
    let b = (*history).bend;
    let u = lin_el6_into_plane(vec3<f32>(s[0], s[1], s[2]), n)
        + (vrel - n * dot(vrel, n)) * geom.dt;
    let theta = lin_el6_into_plane(vec3<f32>(b[0], b[1], b[2]), n)
        + (w - n * dot(w, n)) * geom.dt;
    let phi = (*history).twist + dot(w, n) * geom.dt;
    let stretch = geom.delta - (*history).rest_overlap;
    let kt = params.shear_stiffness * params.length * params.length;
    let kb = params.stiffness * params.length * params.length;
    let fn_mag = params.stiffness * stretch;
    let f = -n * fn_mag - u * params.shear_stiffness;
    let m = -n * (kt * phi) - theta * kb;
    (*force).force = (*force).force + f;
    (*force).normal_force = (*force).normal_force + max(fn_mag, 0.0);
    (*force).stiffness = (*force).stiffness + params.stiffness;
    (*force).torque1 = (*force).torque1 + m;
    (*force).torque2 = (*force).torque2 - m;
    (*force).elastic = (*force).elastic + 0.5
        * (params.stiffness * stretch * stretch
            + params.shear_stiffness * dot(u, u)
            + kt * phi * phi
            + kb * dot(theta, theta));
    (*history).shear = array<f32, 3>(u.x, u.y, u.z);
    (*history).bend = array<f32, 3>(theta.x, theta.y, theta.z);
    (*history).twist = phi;
}
