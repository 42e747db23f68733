// CPU twin: crates/grains-core/src/kernels/passes/solve_update.rs
//
// An iteration's update of the implicit solve (lib/solve.wgsl): `x += alpha p`,
// `r -= alpha q`, and each workgroup's sums of `r.r` and `r.z` for `z = P r`. Known particles
// have zero `p`, `q` and `r`, so they keep theirs.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> solve_x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> solve_r: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> solve_p: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> solve_q: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> solve_pre: array<SymBlock>;
@group(0) @binding(6) var<storage, read_write> solve_partials: array<vec4<f32>>;

@compute @workgroup_size(64)
fn solve_update(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    var sums = vec4<f32>(0.0);
    if (gid < step.n_particles) {
        let alpha = solve[SOLVE_ALPHA];
        let x = solve_x[gid].xyz + alpha * solve_p[gid].xyz;
        let r = solve_r[gid].xyz - alpha * solve_q[gid].xyz;
        let pre = solve_pre[gid];
        let z = sym_times(pre.p0, pre.p1, r);
        solve_x[gid] = vec4<f32>(x, 0.0);
        solve_r[gid] = vec4<f32>(r, 0.0);
        sums = vec4<f32>(dot3(r, r), dot3(r, z), 0.0, 0.0);
    }
    let total = workgroup_total(lid, sums);
    if (lid == 0u) {
        solve_partials[wid.x + wid.y * nwg.x] = total;
    }
}
