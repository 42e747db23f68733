// CPU twin: crates/grains-core/src/kernels/passes/scan_add.rs
//
// Exclusive scan, pass 3 of 3: each workgroup adds its block's start (`block_start`, the scan
// of scan_blocks.wgsl's block sums by prefix_sum.wgsl) to its block of `out`, coalesced; the
// last block's first invocation writes the total after the last element (`out[n]`).
//!include lib/scan_block.wgsl

@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> scan_len: u32;
@group(0) @binding(4) var<storage, read> block_start: array<u32>;

@compute @workgroup_size(256)
fn scan_add(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let n = scan_len;
    let blocks = scan_block_count(n);
    let b = scan_block_index(wid, nwg);
    if (b >= blocks) {
        return;
    }
    let add = block_start[b];
    let base = b * SCAN_BLOCK;
    for (var k = 0u; k < SCAN_PER_THREAD; k = k + 1u) {
        let i = base + k * SCAN_THREADS + lid;
        if (i < n) {
            out[i] = out[i] + add;
        }
    }
    if (b == blocks - 1u && lid == 0u) {
        out[n] = block_start[blocks];
    }
}
