// CPU twin: crates/grains-core/src/kernels/laws/gonthier.rs
//
// Gonthier / Carvalho-Martins restitution model: the Hunt-Crossley force of lib/impact.wgsl
// with the mixed restitution factor (Carvalho & Martins 2019 above e = 1/3, Gonthier et al.
// 2004 below), computed on the host.
//!include lib/impact.wgsl

fn law_gonthier(
    geom: ContactGeom,
    params: ImpactParams,
    history: ptr<function, ImpactHistory>,
    force: ptr<function, ContactForce>,
) {
    law_impact(geom, params, history, force);
}
