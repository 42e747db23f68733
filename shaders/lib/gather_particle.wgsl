// The gather of one particle, for the passes that bind the gather's arrays (gather.wgsl,
// gather_kick.wgsl). CPU twin: `gather` in crates/grains-core/src/kernels/passes/gather.rs.
//
// Per-particle sum of its pair slots: first its own records (particles above it, then the
// walls near it as n_particles + w), which the list's contact passes summed into `force` and
// `torque` (force and torque on it, damping and friction dissipation in `w`) where the world
// has list chains (`step.own_sums`); then the head of its range (the pairs of partners below
// it, through `head_pair`), of whose slots it reads the force and its own torque; then its
// fixed pairs: no float atomics, so totals are bitwise reproducible. A record's slot is packed
// slot `nbr_slot[r] - 1`; a pair out of contact (`nbr_slot` 0) has none. A
// neighbour-list pair's dissipation is its owner's (the CPU backend sums each owner's side in
// its contact sweep, in the same order); a fixed pair's is booked half to each side.
// `dissipated` accumulates over the run as [damping, its Kahan compensation, friction, its
// compensation].

// The gather's arrays; the including pass declares `step` (binding 0).
@group(0) @binding(1) var<storage, read> nbr_start: array<u32>;
// Each head entry's record (see pair_record.wgsl).
@group(0) @binding(3) var<storage, read> head_pair: array<u32>;
@group(0) @binding(4) var<storage, read> slots: array<FarSlot>;
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> torque: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> dissipated: array<vec4<f32>>;
// Particle p's fixed slots are fixed_entry[fixed_start[p]..fixed_start[p + 1]], each
// 2 * pair + side (0: the pair's first body, 1: its second).
@group(0) @binding(9) var<storage, read> fixed_start: array<u32>;
// With no fixed pairs, bind any buffer of at least one word / PairSlot; it is not read.
@group(0) @binding(10) var<storage, read> fixed_entry: array<u32>;
@group(0) @binding(11) var<storage, read> fixed_slots: array<PairSlot>;
@group(0) @binding(12) var<storage, read> nbr_slot: array<u32>;

// A particle's gathered force (N) and torque (N m), as written to `force` and `torque`.
struct Gathered {
    f: vec3<f32>,
    t: vec3<f32>,
}

// Sum particle `gid`'s slots into `force[gid]`, `torque[gid]` and its dissipation, and return
// the force and torque.
fn gather_particle(gid: u32) -> Gathered {
    // A select, not a branch on the uniform: with the branch, lavapipe ran the step a fifth
    // slower (it specialises kernels on the uniforms their branches read: passes/pair_fill.wgsl).
    let sums = step.own_sums != 0u;
    let zero = vec4<f32>(0.0, 0.0, 0.0, 0.0);
    let own_f = select(zero, force[gid], sums);
    let own_t = select(zero, torque[gid], sums);
    var f = own_f.xyz;
    var t = own_t.xyz;
    var damp = own_f.w;
    var fric = own_t.w;
    // The head of the range (partners below gid) reaches the partners' records through
    // head_pair, from nbr_start[gid] - pair_start[gid] (its own records are the rest of its
    // range): most candidates cost 4 bytes.
    let start = nbr_start[gid];
    let end = nbr_start[gid + 1u];
    let r0 = pair_start[gid];
    let own = min(pair_start[gid + 1u] - r0, end - start);
    let h0 = start - r0;
    for (var k = h0; k < h0 + (end - start - own); k = k + 1u) {
        let r = head_pair[k];
        if (r == 0xffffffffu) {
            continue;
        }
        let a = nbr_slot[r];
        if (a == 0u) {
            continue;
        }
        let s = slots[a - 1u];
        f = f - far_force(s);
        t = t + far_torque(s);
    }
    for (var k = fixed_start[gid]; k < fixed_start[gid + 1u]; k = k + 1u) {
        let e = fixed_entry[k];
        let s = fixed_slots[e / 2u];
        if (e % 2u == 0u) {
            f = f + s.force;
            t = t + s.torque1;
        } else {
            f = f - s.force;
            t = t + s.torque2;
        }
        damp = damp + 0.5 * s.damping_dissipated;
        fric = fric + 0.5 * s.friction_dissipated;
    }
    force[gid] = vec4<f32>(f, 0.0);
    torque[gid] = vec4<f32>(t, 0.0);
    let a = dissipated[gid];
    let d = kahan_add(a[0], a[1], damp, step.unit);
    let r = kahan_add(a[2], a[3], fric, step.unit);
    dissipated[gid] = vec4<f32>(d, r);
    return Gathered(f, t);
}
