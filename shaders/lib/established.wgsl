//!include lib/types.wgsl
// The history of laws that act once a contact is established (linear_adhesion, preset_force,
// constant_force) and their energy booking. CPU twin: crates/grains-core/src/kernels/established.rs.

struct EstablishedHistory {
    established: u32,
    f_prev: f32,
    e_prev: f32,
}

// A step of force `f` (positive repulsive) with stored energy `e`: the trapezoid of the force
// over the step's approach, less the change of the stored energy, is dissipated.
fn book_step(
    geom: ContactGeom,
    h: ptr<function, EstablishedHistory>,
    f: f32,
    e: f32,
    out: ptr<function, ContactForce>,
) {
    let n = geom.normal;
    let vn = dot(geom.vrel, n);
    (*out).force = (*out).force - n * f;
    (*out).elastic = (*out).elastic + e;
    (*out).damping_dissipated = (*out).damping_dissipated
        + (0.5 * ((*h).f_prev + f) * vn * geom.dt - (e - (*h).e_prev));
    (*h).f_prev = f;
    (*h).e_prev = e;
}
