//!include lib/types.wgsl
// The division laws' shared controller and records (dividing, budding). CPU twin:
// `law_division`, `DivisionParams` and `DivisionHistory` in
// crates/grains-core/src/kernels/laws/dividing.rs.

struct DivisionParams {
    repulsive: f32,
    attractive: f32,
    duration: f32,
    start_ratio: f32,
    end_ratio: f32,
}

struct DivisionHistory {
    evaluations: u32,
}

// While `t < T`, SETS the chain's result to `F = k e` along the line of centres, with
// `e = s0 + (s1 - s0) t / T - s` and `k` the repulsive or attractive stiffness by its sign.
fn law_division(
    geom: ContactGeom,
    params: DivisionParams,
    s0: f32,
    s1: f32,
    history: ptr<function, DivisionHistory>,
    force: ptr<function, ContactForce>,
) {
    let t = f32((*history).evaluations) * geom.dt;
    if (t >= params.duration) {
        return;
    }
    (*history).evaluations = (*history).evaluations + 1u;
    let s = geom.lengths.x + geom.lengths.y - geom.delta;
    let e = s0 + (s1 - s0) * (t / params.duration) - s;
    var k = params.attractive;
    if (e > 0.0) {
        k = params.repulsive;
    }
    let f = k * e;
    var out = ContactForce();
    out.force = geom.normal * -f;
    out.normal_force = max(f, 0.0);
    out.stiffness = k;
    out.elastic = 0.5 * k * e * e;
    out.gamma_n = (*force).gamma_n;
    out.gamma_t = (*force).gamma_t;
    *force = out;
}
