// Blocks of the list's and cells' exclusive scans, for scan_blocks.wgsl and scan_add.wgsl
// (prefix_sum.wgsl scans the blocks' sums in between). CPU twin: the constants and
// `scan_block_count` in crates/grains-core/src/kernels/passes/scan_blocks.rs.
//
// One workgroup per block of SCAN_BLOCK elements, so that no invocation loops over more than
// SCAN_PER_THREAD of them: lavapipe (llvmpipe's gallivm) ends an invocation's loops after
// 65535 iterations in all, which cut a single workgroup's scan short past 8,388,480 elements
// (each of its 256 invocations walks its chunk twice) and left the last part of every chunk
// zero.

//!include lib/workgroup_scan.wgsl

const SCAN_PER_THREAD: u32 = 8u;
const SCAN_BLOCK: u32 = 2048u;

// Blocks of a scan over `n` elements: at least one, whose last invocation writes the total.
fn scan_block_count(n: u32) -> u32 {
    return max(1u, n / SCAN_BLOCK + select(0u, 1u, n % SCAN_BLOCK != 0u));
}

// The workgroup's block: workgroups numbered row by row, as lib/dispatch.wgsl numbers
// invocations.
fn scan_block_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}
