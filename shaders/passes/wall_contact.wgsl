// CPU twin: crates/grains-core/src/kernels/passes/wall_contact.rs
//
// Template of the sphere-plane contact pass; compose_chain fills the `chain` slot with
// CHAIN_ID, INTERACTION_RANGE, resolvers/sphere_plane.wgsl, the laws, the `ChainParams` and
// `ChainHistory` records with their vec4 loads and stores, and `apply_chain`. Every
// (particle, wall) pair has the fixed slot `p * n_walls + w`, checked every step. The twin's
// `domain` parameter is unused, so it is not bound here.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/sphere.wgsl
//!slot chain

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> wall_chain: array<u32>;
@group(0) @binding(2) var<storage, read> pair_params: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> material: array<u32>;
@group(0) @binding(4) var<storage, read> walls: array<PlaneWall>;
@group(0) @binding(5) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> omega: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> history: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> slots: array<PairSlot>;

@compute @workgroup_size(64)
fn wall_contact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    let nw = step.n_walls;
    if (gid >= step.n_particles * nw) {
        return;
    }
    let p = gid / nw;
    let w = walls[gid % nw];
    let table = material[p] * step.n_materials + w.material;
    if (wall_chain[table] != CHAIN_ID) {
        return;
    }
    if (sphere_plane_overlap(pos[p], w) <= -INTERACTION_RANGE) {
        clear_history(gid);
        slots[gid] = PairSlot();
        return;
    }
    let b1 = load_sphere(pos[p], vel[p], omega[p]);
    let geom = resolve_sphere_plane(b1, w, step.dt);
    if (geom.delta > -INTERACTION_RANGE) {
        var h = load_history(gid);
        let f = apply_chain(geom, load_params(table), &h);
        store_history(gid, h);
        slots[gid] = assemble_slot(geom, f);
    } else {
        clear_history(gid);
        slots[gid] = PairSlot();
    }
}
