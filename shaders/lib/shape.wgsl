// CPU twins: crates/grains-core/src/shapes.rs
//
// Shapes beyond the sphere: quaternion rotation (x, y, z, w), the capsule as its resolvers
// read it, and the rotation of a body with principal moments of inertia through its angular
// momentum.
//!include lib/types.wgsl

const KIND_SPHERE: u32 = 0u;
const KIND_CAPSULE: u32 = 1u;
const KIND_TRIANGLE: u32 = 2u;
const KIND_CLUMP: u32 = 3u;
const KIND_MEMBER: u32 = 4u;

// The clump body of particle `i` of record `rec`, or 0xffffffff if it is no member. Twin:
// `body_of` in pair_count.rs.
fn body_of(i: u32, rec: ShapeRecord) -> u32 {
    if (rec.kind == KIND_MEMBER) {
        return i - bitcast<u32>(rec.data[3]);
    }
    return 0xffffffffu;
}

// Whether the particle keeps an orientation that turns with its spin: a capsule, a clump and
// its members, a tracked sphere (data[0] != 0); not an untracked sphere nor a mesh triangle.
// Twin: `ShapeRecord::turns`.
fn turns(rec: ShapeRecord) -> bool {
    if (rec.kind == KIND_SPHERE) {
        return rec.data[0] != 0.0;
    }
    return rec.kind == KIND_CAPSULE || rec.kind == KIND_CLUMP || rec.kind == KIND_MEMBER;
}

// Whether a record is of a body that turns through its angular momentum (a capsule of non-zero
// length or a clump). Twin: `ShapeRecord::turns_rigidly`.
fn turns_rigidly(rec: ShapeRecord) -> bool {
    return (rec.kind == KIND_CAPSULE && rec.data[0] > 0.0) || rec.kind == KIND_CLUMP;
}

// v + 2 w (u x v) + 2 u x (u x v), as quat_rotate does.
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let u = q.xyz;
    let t = 2.0 * cross(u, v);
    return v + q.w * t + cross(u, t);
}

fn quat_rotate_inv(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return quat_rotate(vec4<f32>(-q.xyz, q.w), v);
}

fn load_capsule(
    pos: vec4<f32>,
    vel: vec4<f32>,
    omega: vec4<f32>,
    quat: vec4<f32>,
    rec: ShapeRecord,
) -> CapsuleBody {
    let axis = quat_rotate(quat, vec3<f32>(0.0, 0.0, 1.0));
    return CapsuleBody(pos.xyz, rec.data[1], vel.xyz, vel.w, omega.xyz, rec.data[0], axis, 0.0);
}

// R I R^T w: the angular momentum of a body spinning at `omega` (world frame).
fn angular_momentum(omega: vec3<f32>, quat: vec4<f32>, k: vec3<f32>, inv_m: f32) -> vec3<f32> {
    let wb = quat_rotate_inv(quat, omega);
    return quat_rotate(quat, k * wb / inv_m);
}

// R I^-1 R^T L: the spin of a body of angular momentum `l` (world frame).
fn spin_of(l: vec3<f32>, quat: vec4<f32>, k: vec3<f32>, inv_m: f32) -> vec3<f32> {
    let lb = quat_rotate_inv(quat, l);
    return quat_rotate(quat, lb * inv_m / k);
}

// Hamilton product a b (x, y, z, w): the rotation b then a.
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    );
}

// `quat` turned exactly by the rotation vector `omega dt`, normalised.
fn quat_turn(quat: vec4<f32>, omega: vec3<f32>, dt: f32) -> vec4<f32> {
    let angle = length(omega) * dt;
    var axis = vec3<f32>(0.0);
    if (angle > 0.0) {
        axis = omega / length(omega);
    }
    let s = sin(0.5 * angle);
    let c = cos(0.5 * angle);
    let o = quat_mul(vec4<f32>(axis.x * s, axis.y * s, axis.z * s, c), quat);
    let len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
    return vec4<f32>(o[0] / len, o[1] / len, o[2] / len, o[3] / len);
}

// The same contact seen from the other body (CPU twin: `flip_geom` in
// crates/grains-core/src/kernels/resolvers/mod.rs).
fn flip_geom(g: ContactGeom) -> ContactGeom {
    var f = g;
    f.normal = -g.normal;
    f.arm1 = g.arm2;
    f.arm2 = g.arm1;
    f.vrel = -g.vrel;
    f.wrel = -g.wrel;
    f.lengths = g.lengths.yx;
    return f;
}
