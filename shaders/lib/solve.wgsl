// The implicit dynamics' solve on the GPU (crates/grains-core/src/dynamics.rs): what its passes
// (passes/solve_*.wgsl) share. CPU twin: crates/grains-core/src/kernels/solve.rs.
//
// A step's system `A x = b` is matrix-free: each particle's row is its own diagonal `d_i x_i`
// plus, for each pair with a block `M = c_g Gamma + c_k K`, `M (x_i - x_partner)`; the blocks
// come from the pairs' `contact_matrix` records (passes/solve_assemble.wgsl). The conjugate
// gradient runs in f32, one pass per vector operation, its dot products summed in a fixed
// order: a tree over each workgroup of 64 (`workgroup_total`), then the workgroups' partials in
// index order by the control kernels (control/control.wgsl, `solve_begin`, `solve_alpha`,
// `solve_beta`), which keep the scalars in `solve`.

@group(0) @binding(40) var<uniform> solve_params: SolveParams;
// The solve's scalars as the control kernels leave them (f32 words; see SOLVE_*).
@group(0) @binding(41) var<storage, read> solve: array<f32>;

// Words of `solve` the passes read: the step length and the new direction's weight. The host
// table (grains-gpu's control_words.rs, SW_ALPHA and SW_BETA) has the same numbers.
const SOLVE_ALPHA: u32 = 0u;
const SOLVE_BETA: u32 = 1u;
// A matrix block of no pair (a record out of contact, or of a chain with no matrix record).
const NO_BLOCK: u32 = 0xffffffffu;

// The weights `(a, b)` of block `blk` under block coefficients `c` (friction, stiffness).
fn block_weights(blk: MatBlock, c: vec2<f32>) -> vec2<f32> {
    let a = c.x * blk.gamma_n + c.y * blk.stiffness_n;
    let b = c.x * blk.gamma_t + c.y * blk.stiffness_t;
    return vec2<f32>(a, b);
}

// `(a n n^T + b (I - n n^T)) y` for the block's normal and weights `w`.
fn block_times(n: vec3<f32>, w: vec2<f32>, y: vec3<f32>) -> vec3<f32> {
    let ny = n.x * y.x + n.y * y.y + n.z * y.z;
    return w.y * y + ((w.x - w.y) * ny) * n;
}

// `P r` for the symmetric block `P` kept as (xx, yy, zz, xy) and (xz, yz, -, -).
fn sym_times(p0: vec4<f32>, p1: vec4<f32>, r: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        p0.x * r.x + p0.w * r.y + p1.x * r.z,
        p0.w * r.x + p0.y * r.y + p1.y * r.z,
        p1.x * r.x + p1.y * r.y + p0.z * r.z,
    );
}

fn dot3(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

var<workgroup> wg_sum: array<vec4<f32>, 64>;

// The sum of `v` over the workgroup, as a tree in a fixed order (lane k takes lane k + s for
// s = 32, 16, ..., 1). Every invocation must call it: it holds barriers.
fn workgroup_total(lid: u32, v: vec4<f32>) -> vec4<f32> {
    wg_sum[lid] = v;
    workgroupBarrier();
    for (var s = 32u; s > 0u; s = s / 2u) {
        if (lid < s) {
            wg_sum[lid] = wg_sum[lid] + wg_sum[lid + s];
        }
        workgroupBarrier();
    }
    return wg_sum[0];
}

// The inverse of the symmetric block `m`, or, where it is not safely invertible (its
// determinant under 1e-6 once scaled by its largest diagonal entry), of its diagonal (1 where
// an entry is not positive), which keeps the preconditioner positive definite. Scaled first so
// that no product of three entries leaves f32's range.
fn invert_block(m: mat3x3<f32>) -> SymBlock {
    let scale = max(abs(m[0].x), max(abs(m[1].y), abs(m[2].z)));
    if (scale > 0.0) {
        let a = m[0].x / scale;
        let d = m[1].y / scale;
        let f = m[2].z / scale;
        let b = m[1].x / scale;
        let c = m[2].x / scale;
        let e = m[2].y / scale;
        let c00 = d * f - e * e;
        let c11 = a * f - c * c;
        let c22 = a * d - b * b;
        let c01 = c * e - b * f;
        let c02 = b * e - c * d;
        let c12 = b * c - a * e;
        let det = a * c00 + b * c01 + c * c02;
        if (det > 1e-6) {
            let k = 1.0 / (det * scale);
            return SymBlock(vec4<f32>(c00 * k, c11 * k, c22 * k, c01 * k), vec4<f32>(c02 * k, c12 * k, 0.0, 0.0));
        }
    }
    let inv = vec3<f32>(
        select(1.0, 1.0 / m[0].x, m[0].x > 0.0),
        select(1.0, 1.0 / m[1].y, m[1].y > 0.0),
        select(1.0, 1.0 / m[2].z, m[2].z > 0.0),
    );
    return SymBlock(vec4<f32>(inv, 0.0), vec4<f32>(0.0));
}
