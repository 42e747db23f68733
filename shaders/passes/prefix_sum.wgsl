// CPU twin: crates/grains-core/src/kernels/passes/prefix_sum.rs
//
// Exclusive scan of `counts[0..scan_len]` into `out[0..=scan_len]` (`out[scan_len]` = total),
// entirely on the device, in ONE workgroup of 256 invocations: dispatch exactly (1, 1, 1).
// Each invocation sums a contiguous chunk of `ceil(n / 256)` counts, the 256 chunk sums are
// scanned in workgroup memory (Hillis & Steele 1986), and each invocation then writes its
// chunk's running sums. Integer sums are exact, so the result equals the twin's serial scan.
// The backend runs it between scan_blocks.wgsl and scan_add.wgsl, over their blocks' sums
// (one per 2048 elements): an invocation loops 2 n / 256 times, and lavapipe stops an
// invocation's loops at 65535 iterations in all, which this array alone reaches past 8.4
// million elements (a billion particles make half a million block sums, 4000 iterations).

//!include lib/workgroup_scan.wgsl

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> scan_len: u32;

@compute @workgroup_size(256)
fn prefix_sum(@builtin(local_invocation_index) lid: u32) {
    let n = scan_len;
    let chunk = (n + SCAN_THREADS - 1u) / SCAN_THREADS;
    let start = min(lid * chunk, n);
    let end = min(start + chunk, n);
    var sum = 0u;
    for (var i = start; i < end; i = i + 1u) {
        sum = sum + counts[i];
    }
    partial[lid] = sum;
    scan_partials(lid);
    var acc = partial[lid] - sum;
    for (var i = start; i < end; i = i + 1u) {
        out[i] = acc;
        acc = acc + counts[i];
    }
    if (lid == SCAN_THREADS - 1u) {
        out[n] = partial[lid];
    }
}
