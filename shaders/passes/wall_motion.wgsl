// CPU twin: crates/grains-core/src/kernels/passes/wall_motion.rs
//
// One invocation per wall and mesh wall body: a wall whose schedule covers its clock's time is
// marked moving for the forces of the new step and counts one more step of motion; its pose is
// its initial pose (wall_origin) carried by that much motion: translated, and turned about its
// centre (Rodrigues). A wall driven by a table of poses takes the table's pose at the step's
// end and its segment's velocity and spin.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> wall_origin: array<Wall>;
@group(0) @binding(2) var<storage, read_write> walls: array<Wall>;
@group(0) @binding(3) var<storage, read> motion_table: array<MotionRow>;

// A row of a table of poses (Rust: `[f32; 8]`): time, displacement, rotation vector.
struct MotionRow {
    t: f32,
    dx: f32,
    dy: f32,
    dz: f32,
    rx: f32,
    ry: f32,
    rz: f32,
    _pad: f32,
}

fn row_shift(a: MotionRow) -> vec3<f32> {
    return vec3<f32>(a.dx, a.dy, a.dz);
}

fn row_turn(a: MotionRow) -> vec3<f32> {
    return vec3<f32>(a.rx, a.ry, a.rz);
}

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

// The segment of the table of `rows` rows from `start` holding time `t`. Twin: `table_segment`.
fn table_segment(start: u32, rows: u32, t: f32) -> u32 {
    var lo = 0u;
    var hi = rows - 1u;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (motion_table[start + mid].t <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return start + lo;
}

// Displacement (xyz) and rotation vector of the table at time `t`. Twin: `table_pose`.
fn table_pose(start: u32, rows: u32, t: f32) -> array<vec3<f32>, 2> {
    let k = table_segment(start, rows, t);
    let a = motion_table[k];
    let b = motion_table[k + 1u];
    let s = clamp((t - a.t) / (b.t - a.t), 0.0, 1.0);
    let d = row_shift(a) + (row_shift(b) - row_shift(a)) * s;
    return array<vec3<f32>, 2>(d, row_turn(a) + (row_turn(b) - row_turn(a)) * s);
}

@compute @workgroup_size(64)
fn wall_motion(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_walls + step.n_bodies) {
        return;
    }
    let o = wall_origin[gid];
    var w = walls[gid];
    let t = f32(w.steps) * step.dt;
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    var shift = zero;
    var turn = zero;
    if (w.table_rows > 0u) {
        let first = motion_table[w.table_start];
        let last = motion_table[w.table_start + w.table_rows - 1u];
        w.moving = select(0u, 1u, first.t <= t && t < last.t);
        let k = table_segment(w.table_start, w.table_rows, t);
        let a = motion_table[k];
        let b = motion_table[k + 1u];
        let span = b.t - a.t;
        w.velocity = (row_shift(b) - row_shift(a)) / span;
        w.omega = (row_turn(b) - row_turn(a)) / span;
        let pose = table_pose(w.table_start, w.table_rows, f32(w.steps + 1u) * step.dt);
        shift = pose[0];
        turn = pose[1];
    } else {
        let moves = any(w.velocity != zero) || any(w.omega != zero) || w.steered != 0u;
        w.moving = select(0u, 1u, moves && w.start <= t && t < w.stop);
        let time = f32(w.moved + 1u) * step.dt;
        shift = w.velocity * time;
        turn = w.omega * time;
    }
    if (w.moving != 0u) {
        w.moved = w.moved + 1u;
        let center = o.center + shift;
        w.center = center;
        w.point = center + rotate(o.point - o.center, turn);
        w.normal = normalize(rotate(o.normal, turn));
    }
    w.steps = w.steps + 1u;
    walls[gid] = w;
}
