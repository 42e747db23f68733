// CPU twin: crates/grains-core/src/kernels/passes/integrate_first_half.rs
//
// First half of velocity Verlet, the position drift, the quaternion update and the largest
// squared displacement since the last rebuild (folded with atomicMax on the f32 bits, which
// order like the values for non-negative floats). The drift is Kahan-compensated through
// `pos_comp`, so slow particles keep moving in f32 (see the twin). It is also the run's guard:
// the lowest index of a free particle gone non-finite, too fast or out of the domain is folded
// into `fault` with atomicMin (u32 max when none), read by the host with the overflow check.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl
//!include lib/shape.wgsl
//!include lib/half_kick.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> pos_comp: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> quat: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> torque: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read> ref_pos: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> max_disp2: atomic<u32>;
@group(0) @binding(11) var<storage, read_write> fault: atomic<u32>;
@group(0) @binding(12) var<storage, read> shape: array<u32>;
@group(0) @binding(13) var<storage, read> shapes: array<ShapeRecord>;

fn finite3(a: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(a) & vec3<u32>(0x7f800000u);
    return all(e != vec3<u32>(0x7f800000u));
}

// CPU twin: `particle_fault` in the same Rust file.
fn particle_fault(x: vec3<f32>, v: vec3<f32>, inv_m: f32) -> bool {
    if (inv_m <= 0.0) {
        return false;
    }
    if (!(finite3(x) && finite3(v))) {
        return true;
    }
    if (dot(v, v) > step.max_speed * step.max_speed) {
        return true;
    }
    for (var k = 0u; k < 3u; k = k + 1u) {
        if ((domain.periodic_mask & (1u << k)) == 0u
            && (x[k] < domain.min[k] || x[k] > domain.min[k] + domain.length[k])) {
            return true;
        }
    }
    return false;
}

@compute @workgroup_size(64)
fn integrate_first_half(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_particles) {
        return;
    }
    let half = 0.5 * step.dt;
    let inv_m = vel[gid].w;
    let inv_i = omega[gid].w;
    var v = vel[gid].xyz;
    var w = omega[gid].xyz;
    let rec = shapes[shape[gid]];
    if (rec.kind == KIND_MEMBER) {
        // Placed by clump_place; its last placement counts towards the rebuild.
        let dm = min_image(pos[gid].xyz - ref_pos[gid].xyz, domain);
        atomicMax(&max_disp2, bitcast<u32>(dm[0] * dm[0] + dm[1] * dm[1] + dm[2] * dm[2]));
        return;
    }
    let k = vec3<f32>(rec.data[2], rec.data[3], rec.data[4]);
    let rigid = inv_m > 0.0 && turns_rigidly(rec);
    var l = vec3<f32>(0.0);
    if (inv_m > 0.0) {
        v = v + velocity_kick(force[gid].xyz, inv_m);
        if (rigid) {
            l = angular_momentum(w, quat[gid], k, inv_m) + torque[gid].xyz * half;
            w = spin_of(l, quat[gid], k, inv_m);
        } else {
            w = w + spin_kick(torque[gid].xyz, inv_i);
        }
    }
    let x0 = pos[gid].xyz;
    let y = v * step.dt - pos_comp[gid].xyz;
    let t = x0 + y;
    let c = (t - x0 * step.unit) - y;
    pos_comp[gid] = vec4<f32>(c, 0.0);
    let x = wrap_position(t, domain);
    if (rigid) {
        let q = quat[gid];
        let mid = quat_turn(q, w, half);
        let turned = quat_turn(q, spin_of(l, mid, k, inv_m), step.dt);
        quat[gid] = turned;
        w = spin_of(l, turned, k, inv_m);
    } else if (turns(rec) && any(w != vec3<f32>(0.0))) {
        // Without spin, or as an untracked sphere, the orientation stays as it is (and is not
        // read), as in the twin.
        // dq = (omega, 0) * q, written out component by component as the twin does.
        let q = quat[gid];
        let dq = vec4<f32>(
            w.x * q[3] + w.y * q[2] - w.z * q[1],
            w.y * q[3] + w.z * q[0] - w.x * q[2],
            w.z * q[3] + w.x * q[1] - w.y * q[0],
            -(w.x * q[0] + w.y * q[1] + w.z * q[2]),
        );
        let qn = vec4<f32>(
            q[0] + half * dq[0],
            q[1] + half * dq[1],
            q[2] + half * dq[2],
            q[3] + half * dq[3],
        );
        let qlen = sqrt(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]);
        quat[gid] = vec4<f32>(qn[0] / qlen, qn[1] / qlen, qn[2] / qlen, qn[3] / qlen);
    }
    pos[gid] = vec4<f32>(x, pos[gid].w);
    vel[gid] = vec4<f32>(v, inv_m);
    omega[gid] = vec4<f32>(w, inv_i);
    let d = min_image(x - ref_pos[gid].xyz, domain);
    let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    atomicMax(&max_disp2, bitcast<u32>(d2));
    if (particle_fault(x, v, inv_m)) {
        atomicMin(&fault, gid);
    }
}
