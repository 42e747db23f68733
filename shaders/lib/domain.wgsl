//!include lib/types.wgsl
// Periodic-domain helpers.

// Minimum-image separation on the periodic axes of `domain`.
// CPU twin: `min_image` in crates/grains-core/src/kernels/resolvers/sphere_sphere.rs.
// `floor(d/L + 0.5)`, not `round`, because WGSL's `round` ties to even and Rust's away from 0.
fn min_image(d: vec3<f32>, domain: DomainParams) -> vec3<f32> {
    var out = d;
    for (var k = 0u; k < 3u; k = k + 1u) {
        if ((domain.periodic_mask & (1u << k)) != 0u) {
            let l = domain.length[k];
            out[k] = out[k] - l * floor(out[k] / l + 0.5);
        }
    }
    return out;
}
