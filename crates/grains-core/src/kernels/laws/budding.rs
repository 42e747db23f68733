//! The force that drives a bud out of its mother cell. WGSL twin: `shaders/laws/budding.wgsl`
//! (the kernel it shares with `dividing` is `shaders/lib/division.wgsl`).
//!
//! Mpacts N_Budding (`shared/reference/000`): `dividing`'s controller (`dividing.rs`), with the
//! target separation ramping from `|R1 - R2|`, the bud's centre inside its mother, its surface
//! touching hers from within, to `R1 + R2`, the bud just touching her from outside, over the
//! cytokinesis `T`; it overwrites the chain's force while `t < T` as `dividing` does.
//!
//! Scene keys (in the `extra` slot): `repulsive_stiffness` (N/m, required),
//! `attractive_stiffness` (N/m, default `repulsive_stiffness`), `duration` (T, s, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::laws::dividing::{
    law_division, Division, DivisionHistory, DivisionParams, DivisionSpec, DivisionTarget,
};
use crate::law::{LawKeys, PairContext};

/// The budding force: the target from `|R1 - R2|` to `R1 + R2`.
pub fn law_budding(
    geom: &ContactGeom,
    params: &DivisionParams,
    history: &mut DivisionHistory,
    force: &mut ContactForce,
) {
    let s0 = (geom.lengths[0] - geom.lengths[1]).abs();
    let s1 = geom.lengths[0] + geom.lengths[1];
    law_division(geom, params, s0, s1, history, force);
}

/// A bud: the target from `|R1 - R2|` to `R1 + R2`.
pub struct Bud;

impl DivisionTarget for Bud {
    const KEYWORD: &'static str = "budding";
    const KEYS: &'static [&'static str] =
        &["repulsive_stiffness", "attractive_stiffness", "duration"];

    fn parse_own<K: LawKeys>(_: &K, _: &mut DivisionSpec) -> Result<(), K::Error> {
        Ok(())
    }

    /// The target ends at touching.
    fn range(_: &DivisionSpec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn law(g: &ContactGeom, p: &DivisionParams, h: &mut DivisionHistory, f: &mut ContactForce) {
        law_budding(g, p, h, f)
    }
}

/// The `budding` law.
pub type Budding = Division<Bud>;
