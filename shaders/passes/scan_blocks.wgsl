// CPU twin: crates/grains-core/src/kernels/passes/scan_blocks.rs
//
// Exclusive scan, pass 1 of 3: each workgroup scans its block of `counts` (lib/scan_block.wgsl)
// into `out`, from 0, and stores the block's sum in `block_sums`; prefix_sum.wgsl then scans
// the sums (one workgroup, a few thousand of them for ten million elements) and scan_add.wgsl
// adds each block's start. The block goes through workgroup memory so that global reads and
// writes are coalesced (invocation `t` touches elements `t`, `t + 256`, ...), while each
// invocation sums and scans 8 neighbouring elements there; the 256 invocations' sums are
// scanned as in prefix_sum.wgsl (Hillis & Steele 1986). Integer sums are exact.
//!include lib/scan_block.wgsl

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> scan_len: u32;
@group(0) @binding(3) var<storage, read_write> block_sums: array<u32>;

var<workgroup> tile: array<u32, 2048>;

@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let n = scan_len;
    let b = scan_block_index(wid, nwg);
    // The surplus workgroups of a dispatch in rows: the whole group leaves, before any barrier.
    if (b >= scan_block_count(n)) {
        return;
    }
    let base = b * SCAN_BLOCK;
    for (var k = 0u; k < SCAN_PER_THREAD; k = k + 1u) {
        let e = k * SCAN_THREADS + lid;
        var c = 0u;
        if (base + e < n) {
            c = counts[base + e];
        }
        tile[e] = c;
    }
    workgroupBarrier();
    let first = lid * SCAN_PER_THREAD;
    var sum = 0u;
    for (var k = 0u; k < SCAN_PER_THREAD; k = k + 1u) {
        sum = sum + tile[first + k];
    }
    partial[lid] = sum;
    scan_partials(lid);
    var acc = partial[lid] - sum;
    for (var k = 0u; k < SCAN_PER_THREAD; k = k + 1u) {
        let c = tile[first + k];
        tile[first + k] = acc;
        acc = acc + c;
    }
    workgroupBarrier();
    for (var k = 0u; k < SCAN_PER_THREAD; k = k + 1u) {
        let e = k * SCAN_THREADS + lid;
        if (base + e < n) {
            out[base + e] = tile[e];
        }
    }
    if (lid == SCAN_THREADS - 1u) {
        block_sums[b] = partial[lid];
    }
}
