// The half-step kicks both halves of velocity Verlet add; the including pass declares `step`
// (binding 0). CPU twins: `velocity_kick` and `spin_kick` in
// crates/grains-core/src/kernels/passes/integrate_second_half.rs.

// Over `step.kick`: dt/2, or 0 in the implicit dynamics modes, whose solve sets the velocities.
// `(F/m + g) dt/2` for force `f` (N) and inverse mass `inv_m`; its z dropped in a planar world.
fn velocity_kick(f: vec3<f32>, inv_m: f32) -> vec3<f32> {
    let k = (f * inv_m + step.gravity) * step.kick;
    if (step.planar != 0u) {
        return k * vec3<f32>(1.0, 1.0, 0.0);
    }
    return k;
}

// `T/I dt/2` for torque `t` (N m) and inverse moment of inertia `inv_i`; only its z kept in a
// planar world.
fn spin_kick(t: vec3<f32>, inv_i: f32) -> vec3<f32> {
    let k = t * inv_i * step.kick;
    if (step.planar != 0u) {
        return k * vec3<f32>(0.0, 0.0, 1.0);
    }
    return k;
}
