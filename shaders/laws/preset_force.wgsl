// CPU twin: crates/grains-core/src/kernels/laws/preset_force.rs
//
// A preset normal force (Mpacts PresetForce) from the first touch until the surfaces are more
// than `release_distance` apart; stored energy `F delta`, lost at release.
//!include lib/established.wgsl

struct PresetForceParams {
    force: f32,
    release_distance: f32,
}

fn law_preset_force(
    geom: ContactGeom,
    params: PresetForceParams,
    history: ptr<function, EstablishedHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta > 0.0) {
        (*history).established = 1u;
    }
    if ((*history).established == 0u || -geom.delta > params.release_distance) {
        book_step(geom, history, 0.0, 0.0, force);
        *history = EstablishedHistory();
        return;
    }
    book_step(geom, history, params.force, params.force * geom.delta, force);
}
