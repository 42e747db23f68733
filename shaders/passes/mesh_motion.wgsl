// CPU twin: crates/grains-core/src/kernels/passes/mesh_motion.rs
//
// One invocation per triangle of the mesh walls, after the walls' motion pass moved their
// bodies: the triangle's particle is put where its body's pose carries its home, its vertices
// turned with the body, its velocity the body's at its centre plus the conveyor's surface
// velocity, and its displacement since the last rebuild folded into max_disp2.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/domain.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> walls: array<Wall>;
@group(0) @binding(3) var<storage, read> triangle_home: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> mesh_conveyor: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> triangle_origin: array<Triangle>;
@group(0) @binding(6) var<storage, read> ref_pos: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> pos_comp: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> omega: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> triangles: array<Triangle>;
@group(0) @binding(12) var<storage, read_write> max_disp2: atomic<u32>;

// A body's frame: `point - center` (x) and `normal` (z), orthogonalised, and y completing
// them. Twin: `body_frame`.
fn body_frame(body: Wall) -> mat3x3<f32> {
    let z = normalize(body.normal);
    let ex = body.point - body.center;
    let x = normalize(ex - z * dot(z, ex));
    return mat3x3<f32>(x, cross(z, x), z);
}

// `v` turned by the body frame `f`. Twin: `frame_turn`.
fn frame_turn(f: mat3x3<f32>, v: vec3<f32>) -> vec3<f32> {
    return f[0] * v.x + f[1] * v.y + f[2] * v.z;
}

@compute @workgroup_size(64)
fn mesh_motion(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= step.n_triangles) {
        return;
    }
    let t0 = triangle_origin[gid];
    let body = walls[step.n_walls + t0.body];
    let center = body.center;
    let f = body_frame(body);
    let home = triangle_home[gid];
    let c = center + frame_turn(f, home.xyz);
    let a = frame_turn(f, t0.a);
    let b = frame_turn(f, t0.b);
    let cc = frame_turn(f, t0.c);
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    let moving = body.moving != 0u;
    let spin = select(zero, body.omega, moving);
    var v = select(zero, body.velocity + cross(spin, c - center), moving);
    let u = frame_turn(f, mesh_conveyor[t0.body].xyz);
    let n = cross(b - a, cc - a);
    let l2 = dot(n, n);
    if (l2 > 0.0) {
        v = v + (u - n * (dot(n, u) / l2));
    }
    let p = step.n_particles - step.n_triangles + gid;
    pos[p] = vec4<f32>(c, home.w);
    pos_comp[p] = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    vel[p] = vec4<f32>(v, vel[p].w);
    omega[p] = vec4<f32>(spin, omega[p].w);
    var t = t0;
    t.a = a;
    t.b = b;
    t.c = cc;
    triangles[gid] = t;
    let d = min_image(c - ref_pos[p].xyz, domain);
    atomicMax(&max_disp2, bitcast<u32>(dot(d, d)));
}
