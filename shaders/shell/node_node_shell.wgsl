// CPU twin: crates/grains-core/src/kernels/shell/node_node_shell.rs
//
// A mesh edge as a spring: distance, direction and relative velocity of its two nodes.
//!include lib/types.wgsl
//!include lib/domain.wgsl

struct EdgeGeom {
    dir: vec3<f32>,
    length: f32,
    vrel: vec3<f32>,
}

fn resolve_node_node_shell(xi: vec4<f32>, xj: vec4<f32>, vi: vec4<f32>, vj: vec4<f32>, domain: DomainParams) -> EdgeGeom {
    let d = min_image(xj.xyz - xi.xyz, domain);
    let length = sqrt(dot(d, d));
    var dir = d;
    if (length > 0.0) {
        dir = d / length;
    }
    return EdgeGeom(dir, length, vi.xyz - vj.xyz);
}
