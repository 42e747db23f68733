// CPU twin: crates/grains-core/src/kernels/passes/wall_motion.rs
//
// One invocation per wall: a wall whose schedule covers its clock's time is marked moving for
// the forces of the new step and counts one more step of motion; its pose is its initial pose
// (wall_origin) carried by that much motion: translated, and turned about its centre
// (Rodrigues).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> wall_origin: array<Wall>;
@group(0) @binding(2) var<storage, read_write> walls: array<Wall>;

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
    let o = wall_origin[gid];
    var w = walls[gid];
    let t = f32(w.steps) * step.dt;
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    let moves = any(w.velocity != zero) || any(w.omega != zero);
    w.moving = select(0u, 1u, moves && w.start <= t && t < w.stop);
    if (w.moving != 0u) {
        w.moved = w.moved + 1u;
        let time = f32(w.moved) * step.dt;
        let center = o.center + w.velocity * time;
        let turn = w.omega * time;
        w.center = center;
        w.point = center + rotate(o.point - o.center, turn);
        w.normal = normalize(rotate(o.normal, turn));
    }
    w.steps = w.steps + 1u;
    walls[gid] = w;
}
