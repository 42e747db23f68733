//! Regularised Coulomb friction. WGSL twin: `shaders/laws/regularized_coulomb.wgsl`.
//!
//! `F_t = -mu F_n v_t / max(|v_t|, v_reg)`: Coulomb sliding friction whose proportional zone
//! below the regularisation velocity `v_reg` avoids chattering at small slip (Exudyn's
//! sphere-sphere contact, `shared/reference/002`, `frictionProportionalZone`). It is the
//! Haff-Werner force with `c_t = mu F_n / v_reg` and shares its kernel and energy booking
//! (`haff_werner.rs`).
//!
//! Scene keys: `friction` (mu, required), `regularization_velocity` (m/s, default 1e-3, as
//! Exudyn).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::haff_werner::{
    law_viscous_coulomb, ViscousCoulomb, ViscousCoulombHistory, ViscousCoulombModel,
    ViscousCoulombParams, ViscousCoulombSpec,
};
use crate::law::LawKeys;

/// Regularised Coulomb friction.
pub fn law_regularized_coulomb(
    geom: &ContactGeom,
    params: &ViscousCoulombParams,
    history: &mut ViscousCoulombHistory,
    force: &mut ContactForce,
) {
    law_viscous_coulomb(geom, params, history, force)
}

/// The regularised dashpot.
pub struct RegularizedCoulombModel;

impl ViscousCoulombModel for RegularizedCoulombModel {
    const KEYWORD: &'static str = "regularized_coulomb";
    const KEYS: &'static [&'static str] = &["friction", "regularization_velocity"];
    const REGULARIZED: bool = true;
    fn parse_dashpot<K: LawKeys>(keys: &K, spec: &mut ViscousCoulombSpec) -> Result<(), K::Error> {
        spec.regularization_velocity = keys
            .positive("regularization_velocity", "m/s")?
            .unwrap_or(1e-3);
        Ok(())
    }
    fn law(
        g: &ContactGeom,
        p: &ViscousCoulombParams,
        h: &mut ViscousCoulombHistory,
        f: &mut ContactForce,
    ) {
        law_regularized_coulomb(g, p, h, f)
    }
}

/// The `regularized_coulomb` law: the viscous Coulomb [`crate::law::Law`], regularised.
pub type RegularizedCoulomb = ViscousCoulomb<RegularizedCoulombModel>;
