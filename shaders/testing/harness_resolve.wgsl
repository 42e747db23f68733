// Parity harness template (no CPU twin): runs one resolver over arrays of inputs.
// grains-shaders' compose_harness("harness_resolve_<stem>") fills the `resolver` slot with
// resolvers/<stem>.wgsl, the aliases `HarnessBody1` and `HarnessBody2` (the records its twin
// reads: a sphere or a capsule, then a particle or a wall) and a generated `harness_apply` that
// calls `resolve_<stem>` with the arguments it takes.
// One invocation per element of `geom`. Every input is read whatever the resolver takes, so every
// resolver's harness binds the same table; the triangle is read by the triangle resolvers alone,
// the domain by the resolvers of two particles alone.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!slot resolver

@group(0) @binding(0) var<storage, read> b1: array<HarnessBody1>;
@group(0) @binding(1) var<storage, read> b2: array<HarnessBody2>;
@group(0) @binding(2) var<storage, read> t: array<Triangle>;
@group(0) @binding(3) var<uniform> domain: DomainParams;
@group(0) @binding(4) var<uniform> dt: f32;
@group(0) @binding(5) var<storage, read_write> geom: array<ContactGeom>;

@compute @workgroup_size(64)
fn harness_resolve(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_index(id, nwg);
    if (i >= arrayLength(&geom)) {
        return;
    }
    geom[i] = harness_apply(b1[i], b2[i], t[i], domain, dt);
}
