//! Exclusive scan, pass 1 of 3: each block's own scan and sum. WGSL twin:
//! `shaders/passes/scan_blocks.wgsl` (its constants: `shaders/lib/scan_block.wgsl` and
//! `shaders/lib/workgroup_scan.wgsl`).
//!
//! The GPU scans the cells' counts and the list's counts in blocks of [`SCAN_BLOCK`], one
//! workgroup each, so that no invocation loops over more than a few elements (lavapipe ends an
//! invocation's loops after 65535 iterations in all): `scan_blocks` scans each block from 0
//! and keeps its sum, [`super::prefix_sum()`] scans the sums, and [`super::scan_add()`] adds
//! each block's start. Integer sums are exact, so the three give [`super::prefix_sum()`]'s
//! result over the whole array, bit for bit.

/// Invocations of a block's workgroup.
pub const SCAN_THREADS: usize = 256;
/// Elements each invocation sums and scans.
pub const SCAN_PER_THREAD: usize = 8;
/// Elements of a block.
pub const SCAN_BLOCK: usize = SCAN_THREADS * SCAN_PER_THREAD;

/// Blocks of a scan over `n` elements: at least one, whose last invocation writes the total.
pub fn scan_block_count(n: usize) -> usize {
    n.div_ceil(SCAN_BLOCK).max(1)
}

/// The elements of block `block` of a scan over `n`.
pub fn scan_block_range(block: usize, n: usize) -> std::ops::Range<usize> {
    let lo = (block * SCAN_BLOCK).min(n);
    lo..(lo + SCAN_BLOCK).min(n)
}

/// Block `block` of the scan of `counts`: its elements' running sums from 0 into `out`, and its
/// sum into `block_sums[block]`.
pub fn scan_blocks(block: usize, counts: &[u32], out: &mut [u32], block_sums: &mut [u32]) {
    let mut acc = 0u32;
    for i in scan_block_range(block, counts.len()) {
        out[i] = acc;
        acc = acc.wrapping_add(counts[i]);
    }
    block_sums[block] = acc;
}

/// The three passes in order over `counts` into `out` (`out.len() == counts.len() + 1`), as
/// the GPU backend dispatches them.
pub fn scan_in_blocks(counts: &[u32], out: &mut [u32]) {
    let blocks = scan_block_count(counts.len());
    let mut sums = vec![0u32; blocks];
    for b in 0..blocks {
        scan_blocks(b, counts, out, &mut sums);
    }
    let mut starts = vec![0u32; blocks + 1];
    super::prefix_sum(&sums, &mut starts);
    for b in 0..blocks {
        super::scan_add(b, &starts, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_compose_to_the_serial_scan() {
        // Lengths around a block's edges, and none at all (the total is still written).
        for n in [
            0,
            1,
            SCAN_BLOCK - 1,
            SCAN_BLOCK,
            SCAN_BLOCK + 1,
            3 * SCAN_BLOCK + 17,
        ] {
            let counts: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761) >> 27)
                .collect();
            let mut want = vec![7u32; n + 1];
            super::super::prefix_sum(&counts, &mut want);
            let mut got = vec![7u32; n + 1];
            scan_in_blocks(&counts, &mut got);
            assert_eq!(got, want, "n = {n}");
        }
    }
}
