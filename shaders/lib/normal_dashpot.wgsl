//!include lib/types.wgsl
// The linear normal dashpot shared by linear_damper and linear_damper_overlap. CPU twin:
// `law_normal_dashpot`, `NormalDashpotParams` and `NormalDashpotHistory` in
// crates/grains-core/src/kernels/laws/linear_damper.rs.

struct NormalDashpotParams {
    damping: f32,
    overlap_only: u32,
}

struct NormalDashpotHistory {
    f_prev: f32,
}

// F = -c v_n n, always or (overlap_only) while the surfaces overlap, weighted by the contact
// fraction; dissipation is the trapezoid of the force over the step.
fn law_normal_dashpot(
    geom: ContactGeom,
    params: NormalDashpotParams,
    history: ptr<function, NormalDashpotHistory>,
    force: ptr<function, ContactForce>,
) {
    let n = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, n);
    let f = params.damping * vn;
    if (params.overlap_only != 0u && geom.delta <= 0.0) {
        (*force).damping_dissipated = (*force).damping_dissipated
            + 0.5 * (*history).f_prev * vn * geom.dt;
        (*history).f_prev = 0.0;
        return;
    }
    (*force).force = (*force).force - n * f;
    (*force).damping_dissipated = (*force).damping_dissipated
        + 0.5 * ((*history).f_prev + f) * vn * geom.dt;
    (*history).f_prev = f;
}
