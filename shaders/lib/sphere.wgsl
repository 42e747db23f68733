//!include lib/types.wgsl
// Gathering a particle into the form resolvers read, and turning a chain's force into a slot.

// CPU twin: `load_sphere` in crates/grains-core/src/kernels/passes/mod.rs. It takes the loaded
// array elements rather than the arrays, because WGSL cannot pass storage arrays to functions.
fn load_sphere(pos: vec4<f32>, vel: vec4<f32>, omega: vec4<f32>) -> SphereBody {
    return SphereBody(pos.xyz, pos.w, vel.xyz, vel.w, omega.xyz, 0.0);
}

// CPU twin: `assemble_slot` in crates/grains-core/src/kernels/passes/contact.rs.
// Weighted by the contact fraction (see the twin).
fn assemble_slot(geom: ContactGeom, f: ContactForce) -> PairSlot {
    let w = geom.fraction;
    let force = f.force * w;
    let t1 = cross(geom.arm1, force) + f.torque1 * w;
    let t2 = cross(geom.arm2, -force) + f.torque2 * w;
    return PairSlot(
        force,
        f.elastic * w,
        t1,
        f.damping_dissipated * w,
        t2,
        f.friction_dissipated * w,
    );
}
