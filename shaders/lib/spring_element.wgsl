//!include lib/types.wgsl
// The spring element shared by spring, spring_damper and serial_dashpot. CPU twin:
// `law_spring_element`, `SpringParams` and `SpringHistory` in
// crates/grains-core/src/kernels/laws/spring.rs.

struct SpringParams {
    stretch: f32,
    compression: f32,
    rest_length: f32,
    rupture_length: f32,
    damping: f32,
    relaxation_time: f32,
    slip_threshold: f32,
}

struct SpringHistory {
    rest: f32,
    state: u32,
    age: u32,
    f_prev: f32,
}

const SPRING_NEW: u32 = 0u;
const SPRING_INTACT: u32 = 1u;
const SPRING_BROKEN: u32 = 2u;

// F = k (d0 - d) (k by the sign of the stretch), a parallel dashpot c v_n, a serial dashpot
// relaxing d0 towards d as exp(-dt / tau); a permanent break beyond the rupture length, which
// books what the spring held as dissipated.
fn law_spring_element(
    geom: ContactGeom,
    params: SpringParams,
    history: ptr<function, SpringHistory>,
    force: ptr<function, ContactForce>,
) {
    if ((*history).state == SPRING_BROKEN) {
        return;
    }
    let n = geom.normal;
    let d = geom.lengths[0] + geom.lengths[1] - geom.delta;
    if ((*history).state == SPRING_NEW) {
        (*history).rest = select(d, params.rest_length, params.rest_length >= 0.0);
        (*history).state = SPRING_INTACT;
    }
    let vn = dot(geom.vrel, n);
    if (params.rupture_length > 0.0 && d > params.rupture_length) {
        let s = d - (*history).rest;
        let k = select(params.compression, params.stretch, s > 0.0);
        (*force).damping_dissipated = (*force).damping_dissipated + 0.5 * k * s * s
            + 0.5 * (*history).f_prev * vn * geom.dt;
        (*history).state = SPRING_BROKEN;
        (*history).f_prev = 0.0;
        return;
    }
    let s = d - (*history).rest;
    let k = select(params.compression, params.stretch, s > 0.0);
    let f = -k * s;
    let fd = params.damping * vn;
    (*force).force = (*force).force - n * (f + fd);
    (*force).normal_force = (*force).normal_force + (f + fd);
    (*force).stiffness = (*force).stiffness + k;
    if (d > 0.0) {
        (*force).stiffness_t = (*force).stiffness_t + k * s / d;
    }
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).f_prev + fd) * vn * geom.dt;
    (*history).f_prev = fd;
    var elastic = 0.5 * k * s * s;
    if (params.relaxation_time > 0.0 && d > params.slip_threshold * (*history).rest) {
        let rest = d - s * exp(-geom.dt / params.relaxation_time);
        let s2 = d - rest;
        let k2 = select(params.compression, params.stretch, s2 > 0.0);
        let relaxed = 0.5 * k2 * s2 * s2;
        (*force).damping_dissipated = (*force).damping_dissipated + (elastic - relaxed);
        elastic = relaxed;
        (*history).rest = rest;
    }
    (*force).elastic = (*force).elastic + elastic;
    (*history).age = (*history).age + 1u;
}
