// CPU twin: crates/grains-core/src/kernels/laws/maugis_dugdale.rs
//
// Maugis-Dugdale adhesion (Maugis 1992; Johnson & Greenwood 1997): the curve parametrised by
// u = sqrt(m^2 - 1), A from the stable root of the cohesive-zone quadratic; the end of the
// displacement-stable branch by golden section on t = ln u, the overlap by bisection. Forms at
// touch, breaks at the branch end; the work done on the contact is stored, what is left at the
// break is booked as dissipation.
//!include lib/types.wgsl
//!include lib/math.wgsl

struct MaugisDugdaleParams {
    e_eff: f32,
    work: f32,
    lambda: f32,
    cohesive_stress: f32,
}

struct MaugisDugdaleHistory {
    established: f32,
    stored: f32,
    delta_prev: f32,
    f_prev: f32,
}

const MD_T_LO: f32 = -14.0;
const MD_T_HI: f32 = 9.0;
const MD_GOLDEN_STEPS: u32 = 40u;
const MD_BISECTION_STEPS: u32 = 32u;

// Twin: `md_curve`. Returns (A, P, Delta).
fn md_curve(lambda: f32, u: f32) -> vec3<f32> {
    let at = atan(u);
    let u2 = u * u;
    var u_minus_at: f32;
    if (u < 0.25) {
        let u3 = u2 * u;
        u_minus_at = u3 * (1.0 / 3.0
            - u2 * (1.0 / 5.0
                - u2 * (1.0 / 7.0 - u2 * (1.0 / 9.0 - u2 * (1.0 / 11.0 - u2 / 13.0)))));
    } else {
        u_minus_at = u - at;
    }
    let x = u_minus_at + u2 * at;
    let y = u * at - u2 / (sqrt(1.0 + u2) + 1.0);
    let b = 4.0 / 3.0 * lambda * lambda * y;
    let a = 2.0 / (b + sqrt(b * b + 2.0 * lambda * x));
    let p = a * a * a - lambda * a * a * (u + (1.0 + u2) * at);
    let d = a * a - 4.0 / 3.0 * a * lambda * u;
    return vec3<f32>(a, p, d);
}

// Twin: `md_branch_end`.
fn md_branch_end(lambda: f32) -> f32 {
    let g = 0.618034;
    var lo = MD_T_LO;
    var hi = MD_T_HI;
    for (var k = 0u; k < MD_GOLDEN_STEPS; k = k + 1u) {
        let t1 = hi - g * (hi - lo);
        let t2 = lo + g * (hi - lo);
        if (md_curve(lambda, exp(t1)).z < md_curve(lambda, exp(t2)).z) {
            hi = t2;
        } else {
            lo = t1;
        }
    }
    return 0.5 * (lo + hi);
}

// Twin: `md_solve`.
fn md_solve(lambda: f32, d: f32, t_end: f32) -> f32 {
    var lo = MD_T_LO;
    var hi = t_end;
    for (var k = 0u; k < MD_BISECTION_STEPS; k = k + 1u) {
        let mid = 0.5 * (lo + hi);
        if (md_curve(lambda, exp(mid)).z > d) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

fn law_maugis_dugdale(
    geom: ContactGeom,
    params: MaugisDugdaleParams,
    history: ptr<function, MaugisDugdaleHistory>,
    force: ptr<function, ContactForce>,
) {
    if ((*history).established == 0.0 && geom.delta < 0.0) {
        (*history).delta_prev = geom.delta;
        return;
    }
    let k = 4.0 / 3.0 * params.e_eff;
    let a_s = pow(PI * params.work * geom.r_eff * geom.r_eff / k, 1.0 / 3.0);
    let delta_s = a_s * a_s / geom.r_eff;
    var lambda = params.lambda;
    if (!(params.lambda > 0.0)) {
        lambda = 2.0 * params.cohesive_stress
            * pow(geom.r_eff / (PI * params.work * k * k), 1.0 / 3.0);
    }
    let d = geom.delta / delta_s;
    let t_end = md_branch_end(lambda);
    if (d <= md_curve(lambda, exp(t_end)).z) {
        let last = 0.5 * (*history).f_prev * (geom.delta - (*history).delta_prev);
        (*force).damping_dissipated = (*force).damping_dissipated + ((*history).stored + last);
        *history = MaugisDugdaleHistory();
        return;
    }
    let t = md_solve(lambda, d, t_end);
    let c = md_curve(lambda, exp(t));
    let f = c.y * PI * params.work * geom.r_eff;
    let stored = (*history).stored
        + 0.5 * ((*history).f_prev + f) * (geom.delta - (*history).delta_prev);
    let n = geom.normal;
    (*force).force = (*force).force - n * f;
    (*force).normal_force = (*force).normal_force + f + 4.0 * PI * params.work * geom.r_eff;
    (*force).stiffness = (*force).stiffness + 2.0 * params.e_eff * c.x * a_s;
    (*force).elastic = (*force).elastic + stored;
    (*history).established = 1.0;
    (*history).stored = stored;
    (*history).delta_prev = geom.delta;
    (*history).f_prev = f;
}
