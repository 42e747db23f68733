// CPU twin: crates/grains-core/src/kernels/passes/wall_power.rs
//
// One invocation per particle, after the gather: the power its moving walls deliver,
// F . (v + omega x (x - c)) + omega . T over its wall slots, weighted by the mean of the wall's
// motion in the step taken and the next (a trapezoid), times dt, added to wall_work. Its walls
// are its records of partner n_particles + w (the tail of its records), their slots
// `nbr_slot[r] - 1` (0: out of contact, no slot).
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/math.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> walls: array<Wall>;
@group(0) @binding(2) var<storage, read> slots: array<FarSlot>;
@group(0) @binding(3) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> wall_work: array<vec2<f32>>;
// Each particle's records, each record's partner, and each record's slot plus one.
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read> pair_j: array<u32>;
@group(0) @binding(8) var<storage, read> nbr_slot: array<u32>;

@compute @workgroup_size(64)
fn wall_power(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let n = step.n_particles;
    let x = pos[gid].xyz;
    var p = 0.0;
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    for (var k = pair_start[gid]; k < pair_start[gid + 1u]; k = k + 1u) {
        if (pair_j[k] < n) {
            continue;
        }
        let wall = walls[pair_j[k] - n];
        let t = f32(wall.steps) * step.dt;
        let moves = any(wall.velocity != zero) || any(wall.omega != zero)
            || wall.table_rows > 0u || wall.steered != 0u;
        let next = moves && wall.start <= t && t < wall.stop;
        let share = 0.5 * (f32(wall.moving != 0u) + f32(next));
        if (share == 0.0) {
            continue;
        }
        let a = nbr_slot[k];
        if (a == 0u) {
            continue;
        }
        let s = slots[a - 1u];
        let v = wall.velocity + cross(wall.omega, x - wall.center);
        p = p + share * (dot(far_force(s), v) + dot(wall.omega, far_torque(s)));
    }
    let a = wall_work[gid];
    wall_work[gid] = kahan_add(a.x, a.y, p * step.dt, step.unit);
}
