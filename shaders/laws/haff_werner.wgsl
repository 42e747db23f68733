// CPU twin: crates/grains-core/src/kernels/laws/haff_werner.rs
//
// Haff-Werner viscous Coulomb friction: F_t = -min(c_t |v_t|, mu F_n) v_t / |v_t|.
// The kernel is lib/viscous_coulomb.wgsl's.
//!include lib/viscous_coulomb.wgsl

fn law_haff_werner(
    geom: ContactGeom,
    params: ViscousCoulombParams,
    history: ptr<function, ViscousCoulombHistory>,
    force: ptr<function, ContactForce>,
) {
    law_viscous_coulomb(geom, params, history, force);
}
