// CPU twin: crates/grains-core/src/kernels/passes/gather.rs
//
// Per-particle sum of its pair slots (lib/gather_particle.wgsl), where something runs between
// the gather and the second half-step (shells, clumps, moving walls) and for the initial
// forces; otherwise the step gathers with gather_kick.wgsl.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl
//!include lib/gather_particle.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;

@compute @workgroup_size(64)
fn gather(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    gather_particle(gid);
}
