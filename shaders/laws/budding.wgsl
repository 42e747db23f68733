// CPU twin: crates/grains-core/src/kernels/laws/budding.rs
//
// Mpacts N_Budding: lib/division.wgsl's controller, the target separation ramping from
// `|R1 - R2|` to `R1 + R2` over the cytokinesis; it sets the chain's result.
//!include lib/division.wgsl

fn law_budding(
    geom: ContactGeom,
    params: DivisionParams,
    history: ptr<function, DivisionHistory>,
    force: ptr<function, ContactForce>,
) {
    let s0 = abs(geom.lengths.x - geom.lengths.y);
    let s1 = geom.lengths.x + geom.lengths.y;
    law_division(geom, params, s0, s1, history, force);
}
