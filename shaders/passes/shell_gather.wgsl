// CPU twin: crates/grains-core/src/kernels/passes/shell_gather.rs
//
// Per particle, after the contact gather: a shell node adds its edge records and its share of
// its shell's pressure (a ring's: its segments' area gradients) to its force, and half of its edges' dissipation to its ledger, in the
// fixed order of its entries. Other particles are left untouched.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/math.wgsl
//!include lib/shell.wgsl
//!include shell/area_conservation.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> shell_start: array<u32>;
@group(0) @binding(3) var<storage, read> shell_entry: array<u32>;
@group(0) @binding(4) var<storage, read> shell_forces: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> shell_tris: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> shell_volumes: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> dissipated: array<vec4<f32>>;

@compute @workgroup_size(64)
fn shell_gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let k0 = shell_start[gid];
    let k1 = shell_start[gid + 1u];
    if (k0 == k1) {
        return;
    }
    var f = vec3<f32>(0.0, 0.0, 0.0);
    var damp = 0.0;
    let xa = pos[gid].xyz;
    for (var k = k0; k < k1; k = k + 1u) {
        let e = shell_entry[k];
        if ((e & TRIANGLE_ENTRY) == 0u) {
            f = f + shell_forces[e].xyz;
            if (e % 4u < 2u) {
                damp = damp + 0.5 * shell_forces[e - e % 4u + 1u].w;
            }
        } else {
            let c = e & ~TRIANGLE_ENTRY;
            let tri = shell_tris[c / 3u];
            let corner = c % 3u;
            let p = shell_volumes[tri.w].y;
            if (tri.z == NO_NODE) {
                var other = tri.x;
                if (corner == 0u) {
                    other = tri.y;
                }
                f = f - p * segment_area_gradient(corner, min_image(pos[other].xyz - xa, domain));
                continue;
            }
            var b = tri.y;
            var cc = tri.z;
            if (corner == 1u) {
                b = tri.z;
                cc = tri.x;
            } else if (corner == 2u) {
                b = tri.x;
                cc = tri.y;
            }
            let rb = min_image(pos[b].xyz - xa, domain);
            let rc = min_image(pos[cc].xyz - xa, domain);
            f = f - p * cross(rb, rc) / 6.0;
        }
    }
    let old = force[gid];
    force[gid] = vec4<f32>(old.xyz + f, old.w);
    let a = dissipated[gid];
    let d = kahan_add(a.x, a.y, damp, step.unit);
    dissipated[gid] = vec4<f32>(d.x, d.y, a.z, a.w);
}
