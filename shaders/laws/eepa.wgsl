// CPU twin: crates/grains-core/src/kernels/laws/eepa.rs
//
// Edinburgh elasto-plastic adhesive model (Thakur et al. 2014; Exudyn's sphere-sphere contact,
// impact model 0): loading `-f0 + k1 delta^n`, unloading/reloading
// `-f0 + k2 (delta^n - delta_p^n)` with `k2 = k1 / (1 - lambda_P)`, adhesive
// `-f0 - k_adh delta^chi`; the plastic overlap is kept in the history and reset on separation.
// Stored energy is the unloading branch's spring energy plus `-f0 delta`; the rest of the
// contact's work is dissipation.
//!include lib/types.wgsl

struct EepaParams {
    e_eff: f32,
    stiffness: f32,
    exponent: f32,
    plasticity_ratio: f32,
    adhesion_stiffness: f32,
    adhesion_exponent: f32,
    pull_off_force: f32,
}

struct EepaHistory {
    plastic_overlap: f32,
    f_prev: f32,
    e_prev: f32,
}

// `x^y` for x >= 0, 0 at x = 0 (pow is undefined there).
fn eepa_pow(x: f32, y: f32) -> f32 {
    if (x > 0.0) {
        return pow(x, y);
    }
    return 0.0;
}

// `1 - r^n`, by the binomial series `n u (1 - (n-1)/2 u (1 - (n-2)/3 u))`, u = 1 - r, near
// r = 1, where pow's absolute error would dominate the difference.
fn eepa_one_minus_pow(r: f32, n: f32) -> f32 {
    let u = 1.0 - r;
    if (abs(u) < 1e-3) {
        return n * u * (1.0 - (n - 1.0) * 0.5 * u * (1.0 - (n - 2.0) / 3.0 * u));
    }
    return 1.0 - eepa_pow(r, n);
}

fn law_eepa(
    geom: ContactGeom,
    params: EepaParams,
    history: ptr<function, EepaHistory>,
    force: ptr<function, ContactForce>,
) {
    let nrm = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, nrm);
    if (geom.delta <= 0.0) {
        (*force).damping_dissipated = (*force).damping_dissipated
            + (0.5 * (*history).f_prev * vn * geom.dt + (*history).e_prev);
        *history = EepaHistory();
        return;
    }
    let n = params.exponent;
    var k1 = params.stiffness;
    if (k1 <= 0.0) {
        k1 = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    }
    let k2 = k1 / (1.0 - params.plasticity_ratio);
    let d = geom.delta;
    let dn = eepa_pow(d, n);
    var dp = (*history).plastic_overlap;
    // `delta^n - delta_p^n` as `delta^n (1 - (delta_p / delta)^n)`, accurate where the two
    // powers are close (eepa_one_minus_pow).
    let one_minus_rn = eepa_one_minus_pow(dp / d, n);
    var dpn = dn * (1.0 - one_minus_rn);
    let f0 = params.pull_off_force;
    var f: f32;
    var kt: f32;
    if (k2 * dn * one_minus_rn >= k1 * dn) {
        dp = d * eepa_pow(params.plasticity_ratio, 1.0 / n);
        dpn = params.plasticity_ratio * dn;
        f = -f0 + k1 * dn;
        kt = n * k1 * dn / d;
    } else {
        let fu = k2 * dn * one_minus_rn;
        let da = eepa_pow(d, params.adhesion_exponent);
        let fa = -params.adhesion_stiffness * da;
        if (fu > fa) {
            f = -f0 + fu;
            kt = n * k2 * dn / d;
        } else {
            f = -f0 + fa;
            kt = params.adhesion_exponent * params.adhesion_stiffness * da / d;
        }
    }
    var stored = 0.0;
    if (d > dp) {
        stored = k2 * ((dn * d - dpn * dp) / (n + 1.0) - dpn * (d - dp));
    }
    let e_now = stored - f0 * d;
    (*force).force = (*force).force - nrm * f;
    (*force).normal_force = (*force).normal_force + max(f + f0, 0.0);
    (*force).stiffness = (*force).stiffness + kt;
    (*force).elastic = (*force).elastic + e_now;
    (*force).damping_dissipated = (*force).damping_dissipated
        + (0.5 * ((*history).f_prev + f) * vn * geom.dt - (e_now - (*history).e_prev));
    (*history).plastic_overlap = dp;
    (*history).f_prev = f;
    (*history).e_prev = e_now;
}
