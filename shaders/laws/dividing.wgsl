// CPU twin: crates/grains-core/src/kernels/laws/dividing.rs
//
// Mpacts N_Dividing: lib/division.wgsl's controller, the target separation ramping from
// `c0 (R1 + R2)` to `c1 (R1 + R2)` over the cytokinesis; it sets the chain's result.
//!include lib/division.wgsl

fn law_dividing(
    geom: ContactGeom,
    params: DivisionParams,
    history: ptr<function, DivisionHistory>,
    force: ptr<function, ContactForce>,
) {
    let sum = geom.lengths.x + geom.lengths.y;
    let s0 = params.start_ratio * sum;
    let s1 = params.end_ratio * sum;
    law_division(geom, params, s0, s1, history, force);
}
