// CPU twin: crates/grains-core/src/kernels/passes/list_owners.rs
//
// Each neighbour-list entry's owner, from the list's starts: particle p writes p over its range
// `nbr_start[p]..nbr_start[p+1]` of `nbr_i`. A replay (after an overflow or a fault) restores
// the list's starts, partners and record starts, and writes the owners with this pass and the
// records with `pair_record`: the saved copy a replay starts from holds neither (8 bytes per
// entry of device memory less). Only replays run it, so one invocation per particle, walking
// its range, is enough.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(2) var<storage, read_write> nbr_i: array<u32>;

@compute @workgroup_size(64)
fn list_owners(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    for (var k = nbr_start[gid]; k < nbr_start[gid + 1u]; k = k + 1u) {
        nbr_i[k] = gid;
    }
}
