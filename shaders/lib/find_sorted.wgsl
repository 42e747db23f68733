// The record of partner `key` among records `[lo_in, hi_in)` of `pair_j` (sorted within each
// owner), or 0xffffffff. WGSL cannot pass a storage array to a function, so the search reads
// the `pair_j` the including pass binds (pair_record.wgsl, slot_carry.wgsl). CPU twin:
// `find_sorted` in crates/grains-core/src/kernels/passes/pair_record.rs.
fn find_sorted(lo_in: u32, hi_in: u32, key: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let v = pair_j[mid];
        if (v == key) {
            return mid;
        }
        if (v < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return 0xffffffffu;
}
