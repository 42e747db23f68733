// CPU twin: crates/grains-core/src/kernels/laws/rolling_spring.rs
//
// Spring-dashpot-slider rolling resistance (Ai et al. 2011, model C): a rolling spring torque
// incremented by `-k_r w_r dt`, capped at `mu_r R* F_n`, and a dashpot
// `-2 eta_r sqrt(m* R*^2 k_r) w_r`, the two together capped at `mu_r R* F_n`; energy booked as
// cundall_strack books its spring.
//!include lib/types.wgsl

struct RollingSpringParams {
    rolling_friction: f32,
    rolling_stiffness: f32,
    rolling_damping: f32,
}

struct RollingSpringHistory {
    spring: array<f32, 3>,
    stored: f32,
    dashpot: array<f32, 3>,
}

fn law_rolling_spring(
    geom: ContactGeom,
    params: RollingSpringParams,
    history: ptr<function, RollingSpringHistory>,
    force: ptr<function, ContactForce>,
) {
    let w = geom.wrel;
    let md_prev = vec3<f32>((*history).dashpot[0], (*history).dashpot[1], (*history).dashpot[2]);
    if (geom.delta <= 0.0) {
        (*force).friction_dissipated = (*force).friction_dissipated
            + ((*history).stored - 0.5 * dot(md_prev, w) * geom.dt);
        *history = RollingSpringHistory();
        return;
    }
    let n = geom.normal;
    let wr = w - n * dot(w, n);
    let dtheta = wr * geom.dt;
    var m = vec3<f32>((*history).spring[0], (*history).spring[1], (*history).spring[2]);
    let len = sqrt(dot(m, m));
    m = m - n * dot(m, n);
    let plane = sqrt(dot(m, m));
    if (plane > 0.0) {
        m = m * (len / plane);
    }
    let m_prev = m;
    var kr = params.rolling_stiffness;
    if (kr <= 0.0) {
        kr = 2.25 * (*force).stiffness * params.rolling_friction * params.rolling_friction
            * geom.r_eff * geom.r_eff;
    }
    m = m - dtheta * kr;
    let trial = sqrt(dot(m, m));
    let limit = params.rolling_friction * geom.r_eff * (*force).normal_force;
    let worked = (*history).stored - 0.5 * dot(m_prev + m, dtheta);
    if (trial > limit) {
        m = m * (limit / trial);
        var kept = 0.0;
        if (kr > 0.0) {
            kept = 0.5 * limit * limit / kr;
        }
        (*force).friction_dissipated = (*force).friction_dissipated + (worked - kept);
        (*history).stored = kept;
    } else {
        (*history).stored = worked;
    }
    // The dashpot, the slider capping spring and dashpot together (continuous at the switch).
    let ir = geom.m_eff * geom.r_eff * geom.r_eff;
    var md = wr * (-2.0 * params.rolling_damping * sqrt(ir * kr));
    let both = sqrt(dot(m + md, m + md));
    if (both > limit) {
        md = (m + md) * (limit / both) - m;
    }
    (*force).friction_dissipated = (*force).friction_dissipated
        - 0.5 * dot(md_prev + md, w) * geom.dt;
    let total = m + md;
    (*force).torque1 = (*force).torque1 + total;
    (*force).torque2 = (*force).torque2 - total;
    (*history).spring = array<f32, 3>(m.x, m.y, m.z);
    (*history).dashpot = array<f32, 3>(md.x, md.y, md.z);
}
