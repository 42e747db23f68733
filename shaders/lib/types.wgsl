// WGSL twins of the Pod structs in crates/grains-core/src/kernel_types.rs.
//
// Field names and order match the Rust structs exactly: a `[f32; 3]` followed by a scalar is a
// `vec3<f32>` whose fourth lane the scalar fills, so both sides pack identically in storage
// buffers. Padding arrays are `array<f32, N>`, which has a stride of 4 in storage buffers (none
// of these padded structs is ever read from a uniform buffer). The layout test in
// tests/shaders.rs checks every offset against `std::mem::offset_of!`.

struct SphereBody {
    pos: vec3<f32>,
    radius: f32,
    vel: vec3<f32>,
    inv_mass: f32,
    omega: vec3<f32>,
    _pad: f32,
}

struct CapsuleBody {
    pos: vec3<f32>,
    radius: f32,
    vel: vec3<f32>,
    inv_mass: f32,
    omega: vec3<f32>,
    half_length: f32,
    axis: vec3<f32>,
    _pad: f32,
}

struct ShapeRecord {
    kind: u32,
    data: array<f32, 7>,
}

struct Triangle {
    a: vec3<f32>,
    body: u32,
    b: vec3<f32>,
    _pad_b: f32,
    c: vec3<f32>,
    _pad_c: f32,
}

struct Wall {
    point: vec3<f32>,
    material: u32,
    normal: vec3<f32>,
    radius: f32,
    velocity: vec3<f32>,
    kind: u32,
    omega: vec3<f32>,
    hollow: u32,
    center: vec3<f32>,
    start: f32,
    stop: f32,
    steps: u32,
    moving: u32,
    moved: u32,
    slope: f32,
    table_start: u32,
    table_rows: u32,
    steered: u32,
}

struct DomainParams {
    min: vec3<f32>,
    periodic_mask: u32,
    max: vec3<f32>,
    _pad0: u32,
    length: vec3<f32>,
    _pad1: u32,
}

struct ContactGeom {
    normal: vec3<f32>,
    delta: f32,
    point: vec3<f32>,
    r_eff: f32,
    vrel: vec3<f32>,
    m_eff: f32,
    arm1: vec3<f32>,
    fraction: f32,
    arm2: vec3<f32>,
    dt: f32,
    lengths: vec2<f32>,
    _pad: vec2<f32>,
    wrel: vec3<f32>,
    _pad2: f32,
    alignment: vec3<f32>,
    _pad3: f32,
}

struct ContactForce {
    force: vec3<f32>,
    normal_force: f32,
    torque1: vec3<f32>,
    stiffness: f32,
    torque2: vec3<f32>,
    elastic: f32,
    damping_dissipated: f32,
    friction_dissipated: f32,
    gamma_n: f32,
    gamma_t: f32,
    stiffness_t: f32,
    area: f32,
    _pad: array<f32, 2>,
}

struct PairSlot {
    force: vec3<f32>,
    elastic: f32,
    torque1: vec3<f32>,
    damping_dissipated: f32,
    torque2: vec3<f32>,
    friction_dissipated: f32,
}

// What the neighbour list keeps of a record's slot (28 bytes, CPU twin `FarSlot`): the force on
// body 1, the elastic energy, and the torque the other reader needs (body 2's for a particle
// pair, the particle's for a wall contact). The owner's side went into its sums in the contact
// pass (lib/packed_slots.wgsl). Arrays of three f32, not vec3s, so that the stride is 28, not 48.
struct FarSlot {
    force: array<f32, 3>,
    elastic: f32,
    torque: array<f32, 3>,
}

fn far_slot(force: vec3<f32>, elastic: f32, torque: vec3<f32>) -> FarSlot {
    return FarSlot(
        array<f32, 3>(force.x, force.y, force.z),
        elastic,
        array<f32, 3>(torque.x, torque.y, torque.z),
    );
}

fn far_force(s: FarSlot) -> vec3<f32> {
    return vec3<f32>(s.force[0], s.force[1], s.force[2]);
}

fn far_torque(s: FarSlot) -> vec3<f32> {
    return vec3<f32>(s.torque[0], s.torque[1], s.torque[2]);
}

struct StepParams {
    gravity: vec3<f32>,
    dt: f32,
    n_particles: u32,
    n_walls: u32,
    n_materials: u32,
    skin: f32,
    unit: f32,
    nbr_history_stride: u32,
    n_fixed: u32,
    max_speed: f32,
    own_sums: u32,
    planar: u32,
    kick: f32,
    n_bodies: u32,
    n_triangles: u32,
    division_first: u32,
    division_pairs: u32,
    _pad5: u32,
}

struct SourcePair {
    p: u32,
    q: u32,
    table: u32,
    owns: u32,
}

struct GridParams {
    origin: vec3<f32>,
    cutoff: f32,
    cell_size: vec3<f32>,
    n_cells: u32,
    dims: vec3<u32>,
    periodic_mask: u32,
}

// The implicit solve's constants (kernel_types.rs `SolveParams`).
struct SolveParams {
    coef: vec4<f32>,
    explicit_gamma: f32,
    explicit_stiffness: f32,
    wall_factor: f32,
    mode: u32,
    history_words: u32,
    fixed_stride: u32,
    lambda: f32,
    _pad1: u32,
}

// A pair's blocks as the solve's rows read them (kernel_types.rs `MatBlock`).
struct MatBlock {
    normal: vec3<f32>,
    partner: u32,
    gamma_n: f32,
    gamma_t: f32,
    stiffness_n: f32,
    stiffness_t: f32,
}

// A particle's preconditioner in the solve: the inverse of its diagonal block, symmetric, as
// (xx, yy, zz, xy) and (xz, yz, 0, 0) (kernel_types.rs `SymBlock`).
struct SymBlock {
    p0: vec4<f32>,
    p1: vec4<f32>,
}
