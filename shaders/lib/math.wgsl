// Small numeric helpers shared by kernels (no entry points).

// Rounds to the same f32 as Rust's `std::f32::consts::PI`.
const PI: f32 = 3.14159265358979323846;

// Kahan compensated addition of `x` to `(sum, comp)`, returned as `(sum, comp)`.
// CPU twin: `kahan_add` in crates/grains-core/src/kernels/passes/gather.rs.
// `unit` is `step.unit` (1.0): it hides the identity `(sum + y) - sum == y` from compilers
// that would otherwise fold the compensation to zero.
fn kahan_add(sum: f32, comp: f32, x: f32, unit: f32) -> vec2<f32> {
    let y = x - comp;
    let t = sum + y;
    let c = (t - sum * unit) - y;
    return vec2<f32>(t, c);
}
