// CPU twin: crates/grains-core/src/kernels/passes/contact.rs
//
// Template of the contact pass over sphere pairs; grains-shaders' compose_chain fills the
// `chain` slot with CHAIN_ID, INTERACTION_RANGE, resolvers/sphere_sphere.wgsl, the chain's
// laws, the generated `ChainParams` and `ChainHistory` records with their vec4 loads and
// stores (`load_params`, `load_history`, `store_history`, `clear_history`) and `apply_chain`.
// One invocation per neighbour-list entry; only the owning entry (p < q) of a pair whose
// material pair runs this chain evaluates it.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/sphere.wgsl
//!slot chain

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<uniform> domain: DomainParams;
@group(0) @binding(2) var<storage, read> pair_chain: array<u32>;
@group(0) @binding(3) var<storage, read> pair_params: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> material: array<u32>;
@group(0) @binding(5) var<storage, read> pos: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> vel: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> omega: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> nbr_i: array<u32>;
@group(0) @binding(9) var<storage, read> nbr_j: array<u32>;
@group(0) @binding(10) var<storage, read_write> history: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> slots: array<PairSlot>;
// The entry count, `nbr_start[step.n_particles]` (indirect dispatch).
@group(0) @binding(12) var<storage, read> nbr_start: array<u32>;

@compute @workgroup_size(64)
fn contact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid >= nbr_start[step.n_particles]) {
        return;
    }
    let p = nbr_i[gid];
    let q = nbr_j[gid];
    if (p >= q) {
        return;
    }
    let table = material[p] * step.n_materials + material[q];
    if (pair_chain[table] != CHAIN_ID) {
        return;
    }
    // Most candidates do not touch: decide that from the positions alone.
    if (sphere_sphere_overlap(pos[p], pos[q], domain) <= -INTERACTION_RANGE) {
        clear_history(gid);
        slots[gid] = PairSlot();
        return;
    }
    let b1 = load_sphere(pos[p], vel[p], omega[p]);
    let b2 = load_sphere(pos[q], vel[q], omega[q]);
    let geom = resolve_sphere_sphere(b1, b2, domain, step.dt);
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
