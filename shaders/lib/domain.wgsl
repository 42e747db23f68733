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
            // Nearer than half a period the floor is 0: d itself, without the divide (as the
            // twin).
            if (abs(out[k]) < 0.4999 * l) {
                continue;
            }
            out[k] = out[k] - l * floor(out[k] / l + 0.5);
        }
    }
    return out;
}

// A coordinate wrapped into [min, min + L) on the periodic axes.
// CPU twin: `wrap_position` in crates/grains-core/src/kernels/passes/integrate_first_half.rs.
fn wrap_position(x: vec3<f32>, domain: DomainParams) -> vec3<f32> {
    var a = x;
    for (var k = 0u; k < 3u; k = k + 1u) {
        if ((domain.periodic_mask & (1u << k)) != 0u) {
            let l = domain.length[k];
            let o = a[k] - domain.min[k];
            // Inside the box, clear of its far end, the floor is 0: x itself, without the
            // divide (as the twin).
            if (o > 0.0 && o < 0.999999 * l) {
                continue;
            }
            a[k] = a[k] - l * floor(o / l);
        }
    }
    return a;
}
