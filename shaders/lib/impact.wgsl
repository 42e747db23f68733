//!include lib/clipped_dashpot.wgsl
// The impact models' shared kernel and records (hunt_crossley, gonthier). CPU twin:
// `law_impact`, `ImpactParams` and `ImpactHistory` in
// crates/grains-core/src/kernels/laws/hunt_crossley.rs.

struct ImpactParams {
    e_eff: f32,
    stiffness: f32,
    exponent: f32,
    chi_factor: f32,
    min_impact_velocity: f32,
    damping: f32,
}

struct ImpactHistory {
    impact_velocity: f32,
    f_damp_prev: f32,
}

// Spring `k delta^n`, dashpot `chi_factor k / v0 delta^n d(delta)/dt + d_c d(delta)/dt`,
// clipped at zero; `v0` is taken at first touch and kept while the contact lasts.
fn law_impact(
    geom: ContactGeom,
    params: ImpactParams,
    history: ptr<function, ImpactHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta <= 0.0) {
        (*history).impact_velocity = 0.0;
        (*history).f_damp_prev = 0.0;
        return;
    }
    let n = geom.normal;
    // Approach rate: positive while the bodies move towards each other.
    let vn = dot(geom.vrel, n);
    if ((*history).impact_velocity == 0.0) {
        let v0 = max(vn, params.min_impact_velocity);
        (*history).impact_velocity = select(-1.0, v0, v0 > 0.0);
    }
    var k = params.stiffness;
    if (k <= 0.0) {
        k = 4.0 / 3.0 * params.e_eff * sqrt(geom.r_eff);
    }
    let dn = pow(geom.delta, params.exponent);
    let f_el = k * dn;
    var chi = 0.0;
    if ((*history).impact_velocity > 0.0) {
        chi = params.chi_factor * k / (*history).impact_velocity;
    }
    let f_damp = (chi * dn + params.damping) * vn;
    (*history).f_damp_prev = clipped_spring_dashpot(
        geom,
        vn,
        f_el,
        f_damp,
        params.exponent * f_el / geom.delta,
        f_el * geom.delta / (params.exponent + 1.0),
        (*history).f_damp_prev,
        force,
    );
}
