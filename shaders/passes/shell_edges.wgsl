// CPU twin: crates/grains-core/src/kernels/passes/shell_edges.rs
//
// One invocation per shell edge: its spring (with Maxwell relaxation), its dashpot and the
// bending of its hinge (a shell's, levers k and l) or of its end node j (a ring's, towards k,
// with l = NO_NODE); four records per edge, [i, elastic], [j, dissipated], [k, tension],
// [l, 0], each the force on that node.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shell.wgsl
//!include shell/node_node_shell.wgsl
//!include shell/triangle_triangle_common_edge.wgsl
//!include shell/segment_segment_common_node.wgsl
//!include shell/elastic_shell_spring.wgsl
//!include shell/maxwell_shell.wgsl
//!include shell/shell_viscosity.wgsl
//!include shell/linear_bending.wgsl
//!include shell/elastic_bending.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<uniform> shell_counts: ShellCounts;
@group(0) @binding(3) var<storage, read> edge_nodes: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> edge_params: array<ShellEdgeParams>;
@group(0) @binding(5) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> shell_rest: array<f32>;
@group(0) @binding(8) var<storage, read_write> shell_forces: array<vec4<f32>>;

@compute @workgroup_size(64)
fn shell_edges(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= shell_counts.n_edges) {
        return;
    }
    let e = edge_nodes[gid];
    let p = edge_params[gid];
    let g = resolve_node_node_shell(pos[e.x], pos[e.y], vel[e.x], vel[e.y], domain);
    let dir = g.dir;
    var fi = vec3<f32>(0.0, 0.0, 0.0);
    var fj = vec3<f32>(0.0, 0.0, 0.0);
    var fk = vec3<f32>(0.0, 0.0, 0.0);
    var fl = vec3<f32>(0.0, 0.0, 0.0);
    var elastic = 0.0;
    var damp = 0.0;
    var tension = 0.0;
    var rest = shell_rest[gid];
    if (p.stretch > 0.0) {
        if (p.relax_time > 0.0) {
            let m = law_maxwell_shell(g.length, rest, p.stretch, p.relax_time, step.dt);
            rest = m.x;
            damp = damp + m.y;
        }
        let s = law_elastic_shell_spring(g.length, rest, p.stretch);
        tension = s.x;
        elastic = elastic + s.y;
        fi = fi + tension * dir;
        fj = fj - tension * dir;
    }
    if (p.viscosity > 0.0) {
        let v = law_shell_viscosity(g.vrel, p.viscosity, step.dt);
        fi = fi + v.xyz;
        fj = fj - v.xyz;
        damp = damp + v.w;
    }
    if (p.bend_law != 0u) {
        let x1 = pos[e.x].xyz;
        var theta: f32;
        var g1: vec3<f32>;
        var g2: vec3<f32>;
        var g3: vec3<f32>;
        var g4 = vec3<f32>(0.0, 0.0, 0.0);
        if (e.w != NO_NODE) {
            let h = resolve_triangle_triangle_common_edge(
                min_image(pos[e.y].xyz - x1, domain),
                min_image(pos[e.z].xyz - x1, domain),
                min_image(pos[e.w].xyz - x1, domain),
            );
            theta = h.theta;
            g1 = h.g1;
            g2 = h.g2;
            g3 = h.g3;
            g4 = h.g4;
        } else {
            let rj = min_image(pos[e.y].xyz - x1, domain);
            let rk = min_image(pos[e.z].xyz - x1, domain);
            let t = resolve_segment_segment_common_node(rj, rk - rj);
            theta = t.theta;
            g1 = t.g1;
            g2 = t.g2;
            g3 = t.g3;
        }
        var b: vec2<f32>;
        if (p.bend_law == 1u) {
            b = law_linear_bending(theta, p.theta0, p.bend);
        } else {
            b = law_elastic_bending(theta, p.theta0, p.bend);
        }
        fi = fi - b.x * g1;
        fj = fj - b.x * g2;
        fk = fk - b.x * g3;
        fl = fl - b.x * g4;
        elastic = elastic + b.y;
    }
    shell_rest[gid] = rest;
    shell_forces[4u * gid] = vec4<f32>(fi, elastic);
    shell_forces[4u * gid + 1u] = vec4<f32>(fj, damp);
    shell_forces[4u * gid + 2u] = vec4<f32>(fk, tension);
    shell_forces[4u * gid + 3u] = vec4<f32>(fl, 0.0);
}
