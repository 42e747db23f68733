// CPU twin: crates/grains-core/src/kernels/laws/dmt_capsule.rs
//
// The aligning moment of adhesive capsules (Mpacts DMT_Capsule):
// M = -2 f (2 pi R* W) (2/3 sqrt(R* delta)) alignment on body 1, the opposite on body 2; its
// work over the step is booked with the damping column.
//!include lib/types.wgsl
//!include lib/math.wgsl

struct DmtCapsuleParams {
    work: f32,
    torque_factor: f32,
}

struct DmtCapsuleHistory {
    m_prev: array<f32, 3>,
}

fn law_dmt_capsule(
    geom: ContactGeom,
    params: DmtCapsuleParams,
    history: ptr<function, DmtCapsuleHistory>,
    force: ptr<function, ContactForce>,
) {
    let w = geom.wrel;
    let mp = vec3<f32>((*history).m_prev[0], (*history).m_prev[1], (*history).m_prev[2]);
    var m = vec3<f32>(0.0, 0.0, 0.0);
    if (geom.delta > 0.0) {
        let f = 2.0 * PI * geom.r_eff * params.work;
        let lever = 2.0 / 3.0 * sqrt(geom.r_eff * geom.delta);
        m = geom.alignment * (-2.0 * params.torque_factor * f * lever);
    }
    (*force).torque1 = (*force).torque1 + m;
    (*force).torque2 = (*force).torque2 - m;
    (*force).damping_dissipated = (*force).damping_dissipated
        - 0.5 * dot(mp + m, w) * geom.dt;
    (*history).m_prev = array<f32, 3>(m.x, m.y, m.z);
}
