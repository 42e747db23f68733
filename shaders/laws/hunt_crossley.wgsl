// CPU twin: crates/grains-core/src/kernels/laws/hunt_crossley.rs
//
// Hunt-Crossley restitution model (Hunt & Crossley 1975; Exudyn's sphere-sphere contact,
// impact model 1): `F_n = k delta^n (1 + chi_factor / v0 d(delta)/dt) + d_c d(delta)/dt` with
// `chi_factor = 3/2 (1 - e)`, computed on the host. The kernel is lib/impact.wgsl's.
//!include lib/impact.wgsl

fn law_hunt_crossley(
    geom: ContactGeom,
    params: ImpactParams,
    history: ptr<function, ImpactHistory>,
    force: ptr<function, ContactForce>,
) {
    law_impact(geom, params, history, force);
}
