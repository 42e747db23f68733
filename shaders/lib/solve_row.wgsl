// A row of the implicit solve's operator, for the passes that multiply by it
// (solve_start.wgsl, solve_apply.wgsl, solve_book.wgsl). CPU twin: `solve_row` and
// `solve_value` in crates/grains-core/src/kernels/solve.rs.
//
// A particle's pairs, in the order the row sums them: its own records (particles above it,
// then its walls), the head of its range (the pairs of partners below it, through
// `head_pair`), then its fixed pairs: the same walk as the gather (lib/gather_particle.wgsl);
// then, for a shell node, its viscous edges, each the block `Gamma I` towards the edge's other
// common node.
// The including pass declares `step`, `vel`, `material`, `material_drag`, `solve_p` and
// `solve_x`.
//!include lib/solve.wgsl

@group(0) @binding(42) var<storage, read> pair_start: array<u32>;
@group(0) @binding(43) var<storage, read> pair_j: array<u32>;
@group(0) @binding(44) var<storage, read> nbr_start: array<u32>;
@group(0) @binding(45) var<storage, read> head_pair: array<u32>;
// Each record's blocks and owner (passes/solve_assemble.wgsl).
@group(0) @binding(46) var<storage, read> mat_block: array<MatBlock>;
@group(0) @binding(47) var<storage, read> fixed_start: array<u32>;
@group(0) @binding(48) var<storage, read> fixed_entry: array<u32>;
@group(0) @binding(49) var<storage, read> fixed_pairs: array<vec2<u32>>;
@group(0) @binding(50) var<storage, read> mat_fixed: array<MatBlock>;
@group(0) @binding(51) var<storage, read> walls: array<Wall>;
@group(0) @binding(52) var<storage, read> pos: array<vec4<f32>>;
// The shells' node index (entries `4 * edge + role`, then triangle corners), edges and each
// edge's viscosity as a matrix element (`World::shell_viscosity_to_matrix`; one zero where the
// world has no shells).
@group(0) @binding(53) var<storage, read> shell_start: array<u32>;
@group(0) @binding(54) var<storage, read> shell_entry: array<u32>;
@group(0) @binding(55) var<storage, read> edge_nodes: array<vec4<u32>>;
@group(0) @binding(56) var<storage, read> shell_viscosity: array<f32>;

// What a row multiplies: the unknowns' start (known values where known), this step's
// velocities, the search direction, or the velocities at the step's end.
const SRC_START: u32 = 0u;
const SRC_VEL: u32 = 1u;
const SRC_P: u32 = 2u;
const SRC_END: u32 = 3u;
const MODE_OVERDAMPED: u32 = 1u;
const MODE_UNDERDAMPED: u32 = 2u;

// Whether particle `j` is an unknown: free (an inverse mass) and present (a radius).
fn solve_free(j: u32) -> bool {
    return vel[j].w > 0.0 && pos[j].w > 0.0;
}

// Particle `i`'s own diagonal: its mass and drag under the solve's weights.
fn own_diagonal(i: u32) -> f32 {
    let mass = 1.0 / vel[i].w;
    let drag = material_drag[material[i]].x;
    return solve_params.coef.z * mass + solve_params.coef.w * drag;
}

// Body `j`'s value of `src`: a particle's, or wall `j - n`'s (its velocity where it moves).
fn solve_value(j: u32, src: u32) -> vec3<f32> {
    let n = step.n_particles;
    if (j >= n) {
        let w = walls[j - n];
        let v = select(vec3<f32>(0.0), w.velocity, w.moving != 0u);
        if (src == SRC_START) {
            return v * solve_params.wall_factor;
        }
        if (src == SRC_P) {
            return vec3<f32>(0.0);
        }
        return v;
    }
    if (src == SRC_P) {
        return solve_p[j].xyz;
    }
    let v = vel[j].xyz;
    if (src == SRC_VEL) {
        return v;
    }
    if (src == SRC_END) {
        if (!solve_free(j)) {
            return v;
        }
        if (solve_params.mode == MODE_UNDERDAMPED) {
            return v + solve_x[j].xyz * step.dt;
        }
        return solve_x[j].xyz;
    }
    // The start: the velocities (overdamped), no acceleration (underdamped), no displacement
    // of a free particle and a known one's over the step (static).
    if (solve_params.mode == MODE_OVERDAMPED) {
        return v;
    }
    if (solve_params.mode == MODE_UNDERDAMPED || solve_free(j)) {
        return vec3<f32>(0.0);
    }
    return v * step.dt;
}

// What a walk over a particle's pairs sums: the row `M (x_i - x_partner)`, in column 0; the
// quadratic share `half rel^T M rel` (half for a particle pair, seen from both sides; whole
// for a wall's), in [0].x; or the diagonal block `M` itself.
const WALK_ROW: u32 = 0u;
const WALK_FORM: u32 = 1u;
const WALK_BLOCK: u32 = 2u;

// One pair's term of a walk from particle `i` at `xi` under block coefficients `c`.
fn pair_term(blk: MatBlock, partner: u32, xi: vec3<f32>, c: vec2<f32>, src: u32, what: u32) -> mat3x3<f32> {
    let w = block_weights(blk, c);
    let n = blk.normal;
    if (what == WALK_BLOCK) {
        let k = w.x - w.y;
        return mat3x3<f32>(
            vec3<f32>(w.y, 0.0, 0.0) + (k * n.x) * n,
            vec3<f32>(0.0, w.y, 0.0) + (k * n.y) * n,
            vec3<f32>(0.0, 0.0, w.y) + (k * n.z) * n,
        );
    }
    let rel = xi - solve_value(partner, src);
    let m = block_times(n, w, rel);
    if (what == WALK_FORM) {
        let half = select(0.5, 1.0, partner >= step.n_particles);
        return mat3x3<f32>(vec3<f32>(half * dot3(m, rel), 0.0, 0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    return mat3x3<f32>(m, vec3<f32>(0.0), vec3<f32>(0.0));
}

// A walk over particle `i`'s pairs with its own diagonal `d` (the row's `d x_i`, the form's
// `d |x_i|^2`, the block's `d I`) and block coefficients `c`.
fn solve_walk(i: u32, xi: vec3<f32>, d: f32, c: vec2<f32>, src: u32, what: u32) -> mat3x3<f32> {
    var s = mat3x3<f32>(d * xi, vec3<f32>(0.0), vec3<f32>(0.0));
    if (what == WALK_FORM) {
        s = mat3x3<f32>(vec3<f32>(d * dot3(xi, xi), 0.0, 0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    if (what == WALK_BLOCK) {
        s = mat3x3<f32>(vec3<f32>(d, 0.0, 0.0), vec3<f32>(0.0, d, 0.0), vec3<f32>(0.0, 0.0, d));
    }
    let r0 = pair_start[i];
    let r1 = pair_start[i + 1u];
    for (var r = r0; r < r1; r = r + 1u) {
        let blk = mat_block[r];
        if (blk.partner != NO_BLOCK) {
            s = s + pair_term(blk, pair_j[r], xi, c, src, what);
        }
    }
    let start = nbr_start[i];
    let end = nbr_start[i + 1u];
    let own = min(r1 - r0, end - start);
    let h0 = start - r0;
    for (var k = h0; k < h0 + (end - start - own); k = k + 1u) {
        let r = head_pair[k];
        if (r == 0xffffffffu) {
            continue;
        }
        let blk = mat_block[r];
        if (blk.partner != NO_BLOCK) {
            s = s + pair_term(blk, blk.partner, xi, c, src, what);
        }
    }
    for (var k = fixed_start[i]; k < fixed_start[i + 1u]; k = k + 1u) {
        let e = fixed_entry[k];
        let blk = mat_fixed[e / 2u];
        if (blk.partner != NO_BLOCK) {
            let pq = fixed_pairs[e / 2u];
            let other = select(pq.x, pq.y, e % 2u == 0u);
            s = s + pair_term(blk, other, xi, c, src, what);
        }
    }
    for (var k = shell_start[i]; k < shell_start[i + 1u]; k = k + 1u) {
        let e = shell_entry[k];
        // Triangle corners (the volume law's) and levers (the bending's) are no edge's ends.
        if ((e & 0x80000000u) != 0u || e % 4u >= 2u) {
            continue;
        }
        let gamma = shell_viscosity[e / 4u];
        if (gamma > 0.0) {
            let nodes = edge_nodes[e / 4u];
            let other = select(nodes.x, nodes.y, e % 4u == 0u);
            let blk = MatBlock(vec3<f32>(1.0, 0.0, 0.0), other, gamma, gamma, 0.0, 0.0);
            s = s + pair_term(blk, other, xi, c, src, what);
        }
    }
    return s;
}

// Row `i` of the operator with diagonal `d` and block coefficients `c`, applied to `src`.
fn solve_row(i: u32, xi: vec3<f32>, d: f32, c: vec2<f32>, src: u32) -> vec3<f32> {
    return solve_walk(i, xi, d, c, src, WALK_ROW)[0];
}
