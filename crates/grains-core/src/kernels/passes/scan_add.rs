//! Exclusive scan, pass 3 of 3: each block's start added. WGSL twin:
//! `shaders/passes/scan_add.wgsl`; the scan as a whole: [`super::scan_blocks`].

use super::scan_blocks::{scan_block_count, scan_block_range};

/// Add block `block`'s start (`block_start`, the scan of the blocks' sums) to its elements of
/// `out` (`out.len()` = elements + 1); the last block also writes the total, `out[n]`.
pub fn scan_add(block: usize, block_start: &[u32], out: &mut [u32]) {
    let n = out.len() - 1;
    let blocks = scan_block_count(n);
    for o in &mut out[scan_block_range(block, n)] {
        *o = o.wrapping_add(block_start[block]);
    }
    if block == blocks - 1 {
        out[n] = block_start[blocks];
    }
}
