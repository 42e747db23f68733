// CPU twin: crates/grains-core/src/kernels/passes/shell_volume.rs
//
// One invocation per shell: enclosed volume (triangles summed in order, from the reference
// node by minimum image; a ring's segments (a, b, NO_NODE) as its enclosed area) and the
// volume law's pressure and energy.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shell.wgsl
//!include shell/volume_conservation.wgsl
//!include shell/area_conservation.wgsl

@group(0) @binding(0) var<uniform> domain: DomainParams;
@group(0) @binding(1) var<uniform> shell_counts: ShellCounts;
@group(0) @binding(2) var<storage, read> shells: array<ShellParams>;
@group(0) @binding(3) var<storage, read> shell_tris: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> shell_volumes: array<vec4<f32>>;

@compute @workgroup_size(64)
fn shell_volume(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= shell_counts.n_shells) {
        return;
    }
    let s = shells[gid];
    let x0 = pos[s.ref_node].xyz;
    var v = 0.0;
    for (var t = s.tri_start; t < s.tri_start + s.tri_count; t = t + 1u) {
        let tri = shell_tris[t];
        let a = min_image(pos[tri.x].xyz - x0, domain);
        let b = min_image(pos[tri.y].xyz - x0, domain);
        if (tri.z == NO_NODE) {
            v = v + segment_area(a, b);
        } else {
            let c = min_image(pos[tri.z].xyz - x0, domain);
            v = v + dot(a, cross(b, c)) / 6.0;
        }
    }
    let law = law_volume_conservation(v, s.rest_volume, s.volume_stiffness);
    shell_volumes[gid] = vec4<f32>(v, law.x, law.y, 0.0);
}
