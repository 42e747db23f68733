//! Volume conservation of a closed shell: an enclosed-volume energy
//! `E = k_v (V - V0)^2 / (2 V0)` and the pressure `p = dE/dV = k_v (V - V0) / V0` it exerts on
//! the nodes, `F_a = -p dV/dx_a` with `dV/dx_a = (x_b - x_a) x (x_c - x_a) / 6` summed over
//! the triangles `(a, b, c)` at node a (the divergence theorem; the same area-weighted volume
//! constraint as the cell models of Mpacts' DeformableCell and Fedosov 2010). WGSL twin:
//! `shaders/shell/volume_conservation.wgsl`.
//!
//! Scene: `volume = { law = "volume_conservation", stiffness = k_v }` (Pa), on a closed shell.

/// Scene keyword.
pub const KEYWORD: &str = "volume_conservation";
/// Keys besides `law`.
pub const KEYS: &[&str] = &["stiffness"];

/// `(p, energy)` at volume `v` for rest volume `v0` (m^3) and stiffness `kv` (Pa); nothing
/// without a law (`kv = 0`).
pub fn law_volume_conservation(v: f32, v0: f32, kv: f32) -> [f32; 2] {
    if kv == 0.0 {
        return [0.0, 0.0];
    }
    let x = (v - v0) / v0;
    [kv * x, 0.5 * kv * v0 * x * x]
}
