// The scan of one value per invocation across a workgroup of 256, in workgroup memory (Hillis
// & Steele 1986), for the scan passes (prefix_sum.wgsl, scan_blocks.wgsl). Each invocation
// stores its value in `partial[lid]` and calls `scan_partials` from uniform control flow; on
// return `partial[lid]` holds the sum of the values of invocations 0..=lid.

const SCAN_THREADS: u32 = 256u;

var<workgroup> partial: array<u32, 256>;

fn scan_partials(lid: u32) {
    for (var offset = 1u; offset < SCAN_THREADS; offset = offset * 2u) {
        workgroupBarrier();
        var t = partial[lid];
        if (lid >= offset) {
            t = t + partial[lid - offset];
        }
        workgroupBarrier();
        partial[lid] = t;
    }
    workgroupBarrier();
}
