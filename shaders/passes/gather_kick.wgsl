// CPU twin: crates/grains-core/src/kernels/passes/gather_kick.rs
//
// The gather (lib/gather_particle.wgsl) and the second half-step (lib/kick.wgsl) of a particle
// in one pass: the kick takes the force and torque from registers, not from the arrays the
// gather has just written, and the step has one dispatch fewer. The step uses it unless
// something runs between the two (shells, clumps, moving walls).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl
//!include lib/gather_particle.wgsl
//!include lib/shape.wgsl
//!include lib/kick.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;

@compute @workgroup_size(64)
fn gather_kick(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let g = gather_particle(gid);
    kick(gid, g.f, g.t);
}
