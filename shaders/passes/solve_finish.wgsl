// CPU twin: crates/grains-core/src/kernels/passes/solve_finish.rs
//
// The end of an implicit step (lib/solve.wgsl): each free particle's velocity and spin from
// the solution `x` of its mode: the velocity and `T / gamma_r` (overdamped), the velocity and
// spin kicked by the acceleration and `T / I` (underdamped), the displacement over the step
// and no spin (static). In a planar world the velocity keeps no z and the spin no x or y.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> torque: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> material: array<u32>;
@group(0) @binding(6) var<storage, read> material_drag: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> solve_x: array<vec4<f32>>;

@compute @workgroup_size(64)
fn solve_finish(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let v = vel[gid];
    let o = omega[gid];
    if (!(v.w > 0.0 && pos[gid].w > 0.0)) {
        return;
    }
    let x = solve_x[gid].xyz;
    let t = torque[gid].xyz;
    let dt = step.dt;
    var nv = x / dt;
    var no = vec3<f32>(0.0);
    if (solve_params.mode == 1u) {
        let gr = material_drag[material[gid]].y;
        nv = x;
        no = select(vec3<f32>(0.0), t / gr, gr > 0.0);
    } else if (solve_params.mode == 2u) {
        nv = v.xyz + x * dt;
        no = o.xyz + t * o.w * dt;
    }
    if (step.planar != 0u) {
        nv.z = 0.0;
        no = vec3<f32>(0.0, 0.0, no.z);
    }
    vel[gid] = vec4<f32>(nv, v.w);
    omega[gid] = vec4<f32>(no, o.w);
}
