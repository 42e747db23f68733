// CPU twin: crates/grains-core/src/kernels/passes/solve_direction.rs
//
// An iteration's new search direction in the implicit solve (lib/solve.wgsl):
// `p = P r + beta p`.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> solve_r: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> solve_p: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> solve_pre: array<SymBlock>;

@compute @workgroup_size(64)
fn solve_direction(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let pre = solve_pre[gid];
    let z = sym_times(pre.p0, pre.p1, solve_r[gid].xyz);
    solve_p[gid] = vec4<f32>(z + solve[SOLVE_BETA] * solve_p[gid].xyz, 0.0);
}
