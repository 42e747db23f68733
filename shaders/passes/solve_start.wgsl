// CPU twin: crates/grains-core/src/kernels/passes/solve_start.rs
//
// The start of an implicit step's solve (lib/solve.wgsl), after its blocks are assembled: each
// free particle's right-hand side `b` (its gathered force and weight; in the underdamped mode
// less the friction and stiffness at this step's velocities), its unknowns' start `x`, the
// residual `r = b - A x`, its preconditioner `P` (its diagonal block inverted) and the first
// direction `p = P r`; each workgroup's sums of `r.r`, `r.z` and `b.b`. A known particle keeps
// its known value in `x`, and zeros in `r` and `p`.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve_row.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> material: array<u32>;
// Each material's drag: translational (N s/m), rotational (N m s).
@group(0) @binding(4) var<storage, read> material_drag: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> solve_x: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> solve_r: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> solve_p: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> solve_pre: array<SymBlock>;
@group(0) @binding(9) var<storage, read_write> solve_partials: array<vec4<f32>>;

@compute @workgroup_size(64)
fn solve_start(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    var sums = vec4<f32>(0.0);
    if (gid < step.n_particles) {
        let x0 = solve_value(gid, SRC_START);
        solve_x[gid] = vec4<f32>(x0, 0.0);
        var r = vec3<f32>(0.0);
        var pre = SymBlock(vec4<f32>(0.0), vec4<f32>(0.0));
        var z = vec3<f32>(0.0);
        if (solve_free(gid)) {
            var b = force[gid].xyz + step.gravity / vel[gid].w;
            if (step.planar != 0u) {
                b.z = 0.0;
            }
            if (solve_params.mode == MODE_UNDERDAMPED) {
                let ce = vec2<f32>(solve_params.explicit_gamma, solve_params.explicit_stiffness);
                let drag = material_drag[material[gid]].x;
                b = b - solve_row(gid, vel[gid].xyz, drag, ce, SRC_VEL);
            }
            let d = own_diagonal(gid);
            let c = solve_params.coef.xy;
            r = b - solve_row(gid, x0, d, c, SRC_START);
            pre = invert_block(solve_walk(gid, x0, d, c, SRC_START, WALK_BLOCK));
            z = sym_times(pre.p0, pre.p1, r);
            sums = vec4<f32>(dot3(r, r), dot3(r, z), dot3(b, b), 0.0);
        }
        solve_r[gid] = vec4<f32>(r, 0.0);
        solve_p[gid] = vec4<f32>(z, 0.0);
        solve_pre[gid] = pre;
    }
    let total = workgroup_total(lid, sums);
    if (lid == 0u) {
        solve_partials[wid.x + wid.y * nwg.x] = total;
    }
}
