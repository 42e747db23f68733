// Parity harness template (no CPU twin): runs one law over arrays of inputs. grains-shaders'
// compose_harness("harness_law_<stem>") fills the `law` slot with laws/<stem>.wgsl, the aliases
// `HarnessParams` and `HarnessHistory` (the law's records; a one-word placeholder for a law
// without history) and a generated `harness_apply` that calls `law_<stem>`.
// One invocation per element of `force_out`; the initial force lets laws after the normal slot
// be tested with a realistic `normal_force` and `stiffness`.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!slot law

@group(0) @binding(0) var<storage, read> geom: array<ContactGeom>;
@group(0) @binding(1) var<storage, read> params: array<HarnessParams>;
@group(0) @binding(2) var<storage, read> history_in: array<HarnessHistory>;
@group(0) @binding(3) var<storage, read> force_in: array<ContactForce>;
@group(0) @binding(4) var<storage, read_write> history_out: array<HarnessHistory>;
@group(0) @binding(5) var<storage, read_write> force_out: array<ContactForce>;

@compute @workgroup_size(64)
fn harness_law(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_index(id, nwg);
    if (i >= arrayLength(&force_out)) {
        return;
    }
    var h = history_in[i];
    var f = force_in[i];
    harness_apply(geom[i], params[i], &h, &f);
    history_out[i] = h;
    force_out[i] = f;
}
