// CPU twin: crates/grains-core/src/kernels/laws/dividing_resistance.rs
//
// The friction block `friction I` of a dividing cell's two halves: it sets the chain's block,
// replacing what earlier laws declared (the last law of the resistance slot).
//!include lib/types.wgsl

struct DividingResistanceParams {
    friction: f32,
}

fn law_dividing_resistance(
    geom: ContactGeom,
    params: DividingResistanceParams,
    force: ptr<function, ContactForce>,
) {
    (*force).gamma_n = params.friction;
    (*force).gamma_t = params.friction;
}
