// CPU twin: crates/grains-core/src/kernels/laws/linear_adhesion.rs
//
// Linear adhesion with a detach length (Mpacts N_LinearAdhesionForce): once the surfaces have
// touched, an attraction `f_d s / d_d` at separation `s`, until `s` reaches `d_d` and the
// contact breaks; stored energy `f_d s^2 / (2 d_d)`, lost at the break.
//!include lib/established.wgsl

struct LinearAdhesionParams {
    detach_force: f32,
    detach_length: f32,
}

fn law_linear_adhesion(
    geom: ContactGeom,
    params: LinearAdhesionParams,
    history: ptr<function, EstablishedHistory>,
    force: ptr<function, ContactForce>,
) {
    if (geom.delta > 0.0) {
        (*history).established = 1u;
    }
    let s = -geom.delta;
    if ((*history).established == 0u || s >= params.detach_length) {
        book_step(geom, history, 0.0, 0.0, force);
        *history = EstablishedHistory();
        return;
    }
    var f = 0.0;
    var e = 0.0;
    if (s > 0.0) {
        f = -params.detach_force * s / params.detach_length;
        e = 0.5 * params.detach_force * s * s / params.detach_length;
    }
    book_step(geom, history, f, e, force);
}
