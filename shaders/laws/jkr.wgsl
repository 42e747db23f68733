// CPU twin: crates/grains-core/src/kernels/laws/jkr.rs
//
// JKR adhesive contact (Johnson, Kendall & Roberts 1971) in dimensionless form: `a = a0 s^2`,
// `delta / delta0 = s^4 - s`, `F = pi W R* (8/3 s^6 - 4 s^3)`, `s` by 24 Newton steps from the
// right. Forms at touch, breaks at `delta_f` (`s^3 = 1/4`), flag in the history. Stores the
// JKR total energy; snap-in and snap-off jumps are booked as dissipation.
//!include lib/types.wgsl
//!include lib/math.wgsl

struct JkrParams {
    e_eff: f32,
    work: f32,
}

struct JkrHistory {
    established: f32,
    u_prev: f32,
    delta_prev: f32,
    f_prev: f32,
}

const JKR_ITERATIONS: u32 = 24u;

// Twin: `jkr_scales`. Returns (delta0, a0).
fn jkr_scales(e_eff: f32, work: f32, r_eff: f32) -> vec2<f32> {
    let a0 = pow(2.0 * PI * work * r_eff * r_eff / e_eff, 1.0 / 3.0);
    return vec2<f32>(a0 * a0 / r_eff, a0);
}

// Twin: `jkr_root`.
fn jkr_root(d: f32) -> f32 {
    var s = sqrt(sqrt(max(d, 0.0))) + 1.0;
    for (var k = 0u; k < JKR_ITERATIONS; k = k + 1u) {
        let s3 = s * s * s;
        let g = s3 * s - s - d;
        let dg = 4.0 * s3 - 1.0;
        if (dg > 0.0) {
            s = s - g / dg;
        }
    }
    return s;
}

fn law_jkr(
    geom: ContactGeom,
    params: JkrParams,
    history: ptr<function, JkrHistory>,
    force: ptr<function, ContactForce>,
) {
    let sc = jkr_scales(params.e_eff, params.work, geom.r_eff);
    let delta0 = sc.x;
    let a0 = sc.y;
    let d = geom.delta / delta0;
    let d_break = -0.4724703;
    if ((*history).established == 0.0 && geom.delta < 0.0) {
        (*history).delta_prev = geom.delta;
        return;
    }
    if (d <= d_break) {
        let last = 0.5 * (*history).f_prev * (geom.delta - (*history).delta_prev);
        (*force).damping_dissipated = (*force).damping_dissipated + ((*history).u_prev + last);
        *history = JkrHistory(0.0, 0.0, geom.delta, 0.0);
        return;
    }
    let s = jkr_root(d);
    let s3 = s * s * s;
    let pw = PI * params.work;
    let fc = 1.5 * pw * geom.r_eff;
    let f = pw * geom.r_eff * (8.0 / 3.0 * s3 * s3 - 4.0 * s3);
    let s4 = s3 * s;
    let u = pw * a0 * a0 * s4 * (16.0 / 15.0 * s3 * s3 - 8.0 / 3.0 * s3 + 1.0);
    if ((*history).established == 0.0) {
        (*force).damping_dissipated = (*force).damping_dissipated
            + (0.5 * f * (geom.delta - (*history).delta_prev) - u);
    }
    let n = geom.normal;
    (*force).force = (*force).force - n * f;
    (*force).normal_force = (*force).normal_force + f + 2.0 * fc;
    (*force).stiffness = (*force).stiffness + 2.0 * params.e_eff * a0 * s * s;
    (*force).elastic = (*force).elastic + u;
    (*history).established = 1.0;
    (*history).u_prev = u;
    (*history).delta_prev = geom.delta;
    (*history).f_prev = f;
}
