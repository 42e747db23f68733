// Parity harness (no CPU twin): runs resolve_capsule_sphere over arrays of inputs.
// One invocation per element of `geom`; geom[i] = resolve_capsule_sphere(b1[i], b2[i], domain, dt).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include resolvers/capsule_sphere.wgsl

@group(0) @binding(0) var<storage, read> b1: array<CapsuleBody>;
@group(0) @binding(1) var<storage, read> b2: array<SphereBody>;
@group(0) @binding(2) var<uniform> domain: DomainParams;
@group(0) @binding(3) var<uniform> dt: f32;
@group(0) @binding(4) var<storage, read_write> geom: array<ContactGeom>;

@compute @workgroup_size(64)
fn harness_resolve_capsule_sphere(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_index(id, nwg);
    if (i >= arrayLength(&geom)) {
        return;
    }
    geom[i] = resolve_capsule_sphere(b1[i], b2[i], domain, dt);
}
