// CPU twin: crates/grains-core/src/kernels/passes/solve_apply.rs
//
// An iteration's product `q = A p` of the implicit solve (lib/solve.wgsl) over the free
// particles (zero for the known), and each workgroup's sum of `p.q`.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve_row.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> material: array<u32>;
@group(0) @binding(3) var<storage, read> material_drag: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> solve_x: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> solve_p: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> solve_q: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> solve_partials: array<vec4<f32>>;

@compute @workgroup_size(64)
fn solve_apply(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    var sums = vec4<f32>(0.0);
    if (gid < step.n_particles) {
        var q = vec3<f32>(0.0);
        if (solve_free(gid)) {
            let p = solve_p[gid].xyz;
            q = solve_row(gid, p, own_diagonal(gid), solve_params.coef.xy, SRC_P);
            sums = vec4<f32>(dot3(p, q), 0.0, 0.0, 0.0);
        }
        solve_q[gid] = vec4<f32>(q, 0.0);
    }
    let total = workgroup_total(lid, sums);
    if (lid == 0u) {
        solve_partials[wid.x + wid.y * nwg.x] = total;
    }
}
