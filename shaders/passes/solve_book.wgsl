// CPU twin: crates/grains-core/src/kernels/passes/solve_book.rs
//
// After an implicit step's solve (lib/solve.wgsl), before its velocities are taken: the energy
// the step's friction takes from each free particle, booked into its damping dissipation
// (`dissipated`, Kahan-compensated): `dt v^T Gamma v` with its drag (its share of each pair's:
// half of a particle pair's, a wall pair's whole) at the velocities the step ends with, and in
// the overdamped mode the spin's `dt |T|^2 / gamma_r` and the scheme's own
// `(lambda - 1/2) dt^2 v^T K v` (what backward Euler takes out of a spring and Crank-Nicolson
// does not). The static mode books nothing (its step has no time) and runs no such pass.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl
//!include lib/solve_row.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> torque: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> material: array<u32>;
@group(0) @binding(4) var<storage, read> material_drag: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> solve_x: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> solve_p: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> dissipated: array<vec4<f32>>;

@compute @workgroup_size(64)
fn solve_book(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles || !solve_free(gid)) {
        return;
    }
    let dt = step.dt;
    let drag = material_drag[material[gid]];
    let v = solve_value(gid, SRC_END);
    var e = dt * solve_walk(gid, v, drag.x, vec2<f32>(1.0, 0.0), SRC_END, WALK_FORM)[0].x;
    if (solve_params.mode == MODE_OVERDAMPED) {
        let k = solve_walk(gid, v, 0.0, vec2<f32>(0.0, 1.0), SRC_END, WALK_FORM)[0].x;
        e = e + (solve_params.lambda - 0.5) * dt * dt * k;
        if (drag.y > 0.0) {
            let t = torque[gid].xyz;
            e = e + dt * dot3(t, t) / drag.y;
        }
    }
    if (e != 0.0) {
        let d = dissipated[gid];
        dissipated[gid] = vec4<f32>(kahan_add(d.x, d.y, e, step.unit), d.z, d.w);
    }
}
