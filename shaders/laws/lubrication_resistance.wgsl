// CPU twin: crates/grains-core/src/kernels/laws/lubrication_resistance.rs
//
// Lubrication as a friction block (Mpacts N_LubricationResistance): `gamma_n += 6 pi mu R*^2 / h`
// at gap `h = max(-delta, min_gap)`, below `max_gap`; no force of its own.
//!include lib/types.wgsl

struct LubricationResistanceParams {
    viscosity: f32,
    min_gap: f32,
    max_gap: f32,
}

fn law_lubrication_resistance(
    geom: ContactGeom,
    params: LubricationResistanceParams,
    force: ptr<function, ContactForce>,
) {
    let gap = -geom.delta;
    if (gap < params.max_gap) {
        let h = max(gap, params.min_gap);
        (*force).gamma_n = (*force).gamma_n
            + 6.0 * 3.14159274 * params.viscosity * geom.r_eff * geom.r_eff / h;
    }
}
