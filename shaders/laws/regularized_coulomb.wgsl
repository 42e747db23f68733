// CPU twin: crates/grains-core/src/kernels/laws/regularized_coulomb.rs
//
// Regularised Coulomb friction: F_t = -mu F_n v_t / max(|v_t|, v_reg).
// The kernel is lib/viscous_coulomb.wgsl's.
//!include lib/viscous_coulomb.wgsl

fn law_regularized_coulomb(
    geom: ContactGeom,
    params: ViscousCoulombParams,
    history: ptr<function, ViscousCoulombHistory>,
    force: ptr<function, ContactForce>,
) {
    law_viscous_coulomb(geom, params, history, force);
}
