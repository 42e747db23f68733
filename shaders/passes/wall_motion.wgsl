// CPU twin: crates/grains-core/src/kernels/passes/wall_motion.rs
//
// One invocation per wall: a wall whose schedule covers its clock's time translates by
// velocity dt and turns by omega dt about its centre (Rodrigues), and is marked active for the
// forces of the new step.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read_write> walls: array<Wall>;

// Rotate `x` by the rotation vector `angle`. Twin: `rotate`.
fn rotate(x: vec3<f32>, angle: vec3<f32>) -> vec3<f32> {
    let th = sqrt(dot(angle, angle));
    if (th == 0.0) {
        return x;
    }
    let k = angle / th;
    let s = sin(th);
    let c = cos(th);
    return x * c + cross(k, x) * s + k * (dot(k, x) * (1.0 - c));
}

@compute @workgroup_size(64)
fn wall_motion(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_walls) {
        return;
    }
    var w = walls[gid];
    let t = f32(w.steps) * step.dt;
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    let moves = any(w.velocity != zero) || any(w.omega != zero);
    w.moving = select(0u, 1u, moves && w.start <= t && t < w.stop);
    if (w.moving != 0u) {
        let shift = w.velocity * step.dt;
        let center = w.center + shift;
        let turn = w.omega * step.dt;
        w.center = center;
        w.point = center + rotate(w.point + shift - center, turn);
        w.normal = normalize(rotate(w.normal, turn));
    }
    w.steps = w.steps + 1u;
    walls[gid] = w;
}
