// CPU twin: crates/grains-core/src/kernels/passes/solve_assemble.rs
//
// The first pass of an implicit step's solve (lib/solve.wgsl): each record's blocks, from the
// `contact_matrix` record its chain keeps in the pair's history, into `mat_block` with the
// record's owner (which the partner's row reads through `head_pair`); a record out of contact,
// or whose chain keeps no matrix record, gets NO_BLOCK. Invocation `gid` takes particle
// `gid`'s records and fixed pair `gid`.
//!include lib/types.wgsl
//!include lib/dispatch.wgsl
//!include lib/solve.wgsl

@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> pair_start: array<u32>;
@group(0) @binding(2) var<storage, read> pair_j: array<u32>;
@group(0) @binding(3) var<storage, read> nbr_slot: array<u32>;
@group(0) @binding(4) var<storage, read> history: array<f32>;
@group(0) @binding(5) var<storage, read> material: array<u32>;
@group(0) @binding(6) var<storage, read> walls: array<Wall>;
@group(0) @binding(7) var<storage, read> sphere_chain: array<u32>;
@group(0) @binding(8) var<storage, read> wall_chain: array<u32>;
@group(0) @binding(9) var<storage, read> fixed_chain: array<u32>;
@group(0) @binding(10) var<storage, read> fixed_pairs: array<vec2<u32>>;
@group(0) @binding(11) var<storage, read> fixed_history: array<f32>;
// Where each chain keeps its matrix record in a history record (words), NO_BLOCK for none.
@group(0) @binding(12) var<storage, read> matrix_offset: array<u32>;
@group(0) @binding(13) var<storage, read_write> mat_block: array<MatBlock>;
@group(0) @binding(14) var<storage, read_write> mat_fixed: array<MatBlock>;

// The blocks of the record at word `at` of `history`, owned by `owner`.
fn list_block(at: u32, owner: u32) -> MatBlock {
    return MatBlock(
        vec3<f32>(history[at], history[at + 1u], history[at + 2u]),
        owner,
        history[at + 3u],
        history[at + 4u],
        history[at + 5u],
        history[at + 6u],
    );
}

fn fixed_block(at: u32, owner: u32) -> MatBlock {
    return MatBlock(
        vec3<f32>(fixed_history[at], fixed_history[at + 1u], fixed_history[at + 2u]),
        owner,
        fixed_history[at + 3u],
        fixed_history[at + 4u],
        fixed_history[at + 5u],
        fixed_history[at + 6u],
    );
}

fn no_block() -> MatBlock {
    return MatBlock(vec3<f32>(0.0), NO_BLOCK, 0.0, 0.0, 0.0, 0.0);
}

// The chain of particle `p`'s record of partner `q` (a wall past the particles), as the
// list's sources find it (sources/neighbour.wgsl, sources/wall.wgsl).
fn record_chain(p: u32, q: u32) -> u32 {
    let nm = step.n_materials;
    if (q < step.n_particles) {
        return sphere_chain[material[p] * nm + material[q]];
    }
    let w = walls[q - step.n_particles];
    return wall_chain[(w.kind * nm + material[p]) * nm + w.material];
}

@compute @workgroup_size(64)
fn solve_assemble(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let gid = linear_index(id, nwg);
    if (gid < step.n_particles) {
        for (var r = pair_start[gid]; r < pair_start[gid + 1u]; r = r + 1u) {
            let a = nbr_slot[r];
            var blk = no_block();
            if (a != 0u) {
                let off = matrix_offset[record_chain(gid, pair_j[r])];
                if (off != NO_BLOCK) {
                    blk = list_block((a - 1u) * solve_params.history_words + off, gid);
                }
            }
            mat_block[r] = blk;
        }
    }
    if (gid < step.n_fixed) {
        let pq = fixed_pairs[gid];
        let nm = step.n_materials;
        let off = matrix_offset[fixed_chain[material[pq.x] * nm + material[pq.y]]];
        var blk = no_block();
        if (off != NO_BLOCK) {
            blk = fixed_block(gid * solve_params.fixed_stride + off, pq.x);
        }
        mat_fixed[gid] = blk;
    }
}
