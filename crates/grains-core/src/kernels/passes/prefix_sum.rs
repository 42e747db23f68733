//! Exclusive prefix sum. WGSL twin: `shaders/passes/prefix_sum.wgsl`.
//!
//! `out[i] = sum(counts[..i])`, `out[n] = total`. Used for cell starts and for the offsets of
//! the per-particle neighbour lists. The GPU does it as a block scan; integer sums are exact,
//! so any order gives the same result.

/// Exclusive scan of `counts` into `out` (`out.len() == counts.len() + 1`).
pub fn prefix_sum(counts: &[u32], out: &mut [u32]) {
    let mut acc = 0u32;
    for (i, c) in counts.iter().enumerate() {
        out[i] = acc;
        acc += c;
    }
    out[counts.len()] = acc;
}
