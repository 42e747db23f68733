// The second half of velocity Verlet for one particle, for the passes that bind `vel`, `omega`,
// `quat`, `shape` and `shapes` (integrate_second_half.wgsl, gather_kick.wgsl). CPU twin:
// `integrate_second_half` in crates/grains-core/src/kernels/passes/integrate_second_half.rs.
//
// Free particles (inverse mass > 0) only; a capsule is kicked in angular momentum at its
// orientation after the drift.
//!include lib/half_kick.wgsl

// The arrays it updates and reads besides the force and torque; the including pass declares
// `step` (binding 0).
@group(0) @binding(14) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(15) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(16) var<storage, read> quat: array<vec4<f32>>;
@group(0) @binding(17) var<storage, read> shape: array<u32>;
@group(0) @binding(18) var<storage, read> shapes: array<ShapeRecord>;

// Kick particle `gid` by force `f` (N) and torque `t` (N m) over half a step.
fn kick(gid: u32, f: vec3<f32>, t: vec3<f32>) {
    let half = 0.5 * step.dt;
    let inv_m = vel[gid].w;
    let inv_i = omega[gid].w;
    let rec = shapes[shape[gid]];
    if (inv_m > 0.0 && rec.kind != KIND_MEMBER) {
        let v = vel[gid].xyz + velocity_kick(f, inv_m);
        var w = omega[gid].xyz + spin_kick(t, inv_i);
        if (turns_rigidly(rec)) {
            let k = vec3<f32>(rec.data[2], rec.data[3], rec.data[4]);
            let l = angular_momentum(omega[gid].xyz, quat[gid], k, inv_m) + t * half;
            w = spin_of(l, quat[gid], k, inv_m);
        }
        vel[gid] = vec4<f32>(v, inv_m);
        omega[gid] = vec4<f32>(w, inv_i);
    }
}
