// CPU twin: crates/grains-core/src/kernels/laws/rolling_constant_torque.rs
//
// Constant-torque rolling resistance (Zhou et al. 1999; Ai et al. 2011, model A):
// `M_r = -mu_r R* F_n w_r / max(|w_r|, w_reg)` against the relative rolling velocity; its work
// over the step is dissipated.
//!include lib/types.wgsl

struct RollingConstantTorqueParams {
    rolling_friction: f32,
    regularization_velocity: f32,
}

struct RollingConstantTorqueHistory {
    m_prev: array<f32, 3>,
}

fn law_rolling_constant_torque(
    geom: ContactGeom,
    params: RollingConstantTorqueParams,
    history: ptr<function, RollingConstantTorqueHistory>,
    force: ptr<function, ContactForce>,
) {
    let w = geom.wrel;
    let mp = vec3<f32>((*history).m_prev[0], (*history).m_prev[1], (*history).m_prev[2]);
    if (geom.delta <= 0.0) {
        (*force).friction_dissipated = (*force).friction_dissipated
            - 0.5 * dot(mp, w) * geom.dt;
        *history = RollingConstantTorqueHistory();
        return;
    }
    let n = geom.normal;
    let wr = w - n * dot(w, n);
    let speed = sqrt(dot(wr, wr));
    let limit = params.rolling_friction * geom.r_eff * (*force).normal_force;
    let m = wr * (-limit / max(speed, params.regularization_velocity));
    (*force).torque1 = (*force).torque1 + m;
    (*force).torque2 = (*force).torque2 - m;
    (*force).friction_dissipated = (*force).friction_dissipated
        - 0.5 * dot(mp + m, w) * geom.dt;
    (*history).m_prev = array<f32, 3>(m.x, m.y, m.z);
}
