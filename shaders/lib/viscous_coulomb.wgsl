//!include lib/types.wgsl
// The viscous Coulomb friction kernel and records shared by haff_werner and
// regularized_coulomb. CPU twin: `law_viscous_coulomb`, `ViscousCoulombParams` and
// `ViscousCoulombHistory` in crates/grains-core/src/kernels/laws/haff_werner.rs.

struct ViscousCoulombParams {
    friction: f32,
    damping: f32,
    regularization_velocity: f32,
}

struct ViscousCoulombHistory {
    f_prev: array<f32, 3>,
}

// A tangential dashpot (c_t, or mu F_n / v_reg when c_t is 0) capped at mu F_n; its work is
// the trapezoid of the force over the step, all of it dissipated.
fn law_viscous_coulomb(
    geom: ContactGeom,
    params: ViscousCoulombParams,
    history: ptr<function, ViscousCoulombHistory>,
    force: ptr<function, ContactForce>,
) {
    let vrel = geom.vrel;
    let fp = vec3<f32>((*history).f_prev[0], (*history).f_prev[1], (*history).f_prev[2]);
    if (geom.delta <= 0.0) {
        (*force).friction_dissipated = (*force).friction_dissipated
            - 0.5 * dot(fp, vrel) * geom.dt;
        *history = ViscousCoulombHistory();
        return;
    }
    let n = geom.normal;
    let vt = vrel - n * dot(vrel, n);
    let speed = sqrt(dot(vt, vt));
    let limit = params.friction * (*force).normal_force;
    var c = params.damping;
    if (c <= 0.0) {
        c = limit / params.regularization_velocity;
    }
    let mag = min(c * speed, limit);
    var ft = vec3<f32>(0.0, 0.0, 0.0);
    if (speed > 0.0) {
        ft = vt * (-mag / speed);
    }
    (*force).force = (*force).force + ft;
    (*force).friction_dissipated = (*force).friction_dissipated
        - 0.5 * dot(fp + ft, vrel) * geom.dt;
    (*history).f_prev = array<f32, 3>(ft.x, ft.y, ft.z);
}
