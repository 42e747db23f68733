//! Sets each mesh wall's triangle where its body stands. WGSL twin:
//! `shaders/passes/mesh_motion.wgsl`.
//!
//! One invocation per triangle of the mesh walls, after the walls' motion pass has moved their
//! bodies (`wall_motion`, which moves a body as a wall). A body's frame is its record's
//! `point - center` (x axis) and `normal` (z axis), unit vectors at the start that its motion
//! turns: the rotation `R` from its initial orientation. Triangle `gid`, the particle
//! `n_particles - n_triangles + gid`, sits at `home` (its centroid relative to the body's
//! initial centre), so it is put at `c = center + R home` with its vertices `R` times its
//! initial ones (`triangle_origin`), computed afresh each step so that rounding does not
//! accumulate over the turns of a mixer. Its velocity is the body's at `c`,
//! `v + omega x (c - center)`, and its spin the body's, while the body moves (zero when it
//! does not), plus the conveyor's surface velocity `R u` less its component along the
//! triangle's normal. The resolvers then see the surface's velocity at every contact point,
//! and `kinematic_power` books the work of the mesh on the particles.
//!
//! Returns the squared displacement since the last rebuild as f32 bits, folded into the
//! step's largest like the first half-step's (the GPU's `max_disp2`), so a moving mesh
//! rebuilds the list in time: no contact is missed.

use glam::Vec3;

use crate::kernel_types::{DomainParams, StepParams, Triangle, Wall};
use crate::kernels::resolvers::sphere_sphere::min_image;
use crate::kernels::v3;

/// A body's frame: its record's `point - center` (x) and `normal` (z), orthogonalised, and y
/// completing them; the rotation from the body's initial orientation.
pub fn body_frame(body: &Wall) -> [Vec3; 3] {
    let (ex, ez) = (v3(body.point) - v3(body.center), v3(body.normal));
    let z = ez.normalize();
    let x = (ex - z * z.dot(ex)).normalize();
    [x, z.cross(x), z]
}

/// `v` turned by the body frame `f` ([`body_frame`]).
pub fn frame_turn(f: &[Vec3; 3], v: Vec3) -> Vec3 {
    f[0] * v.x + f[1] * v.y + f[2] * v.z
}

/// The triangle particle's new state: position, velocity, spin, and its triangle.
pub struct MeshPlace<'a> {
    pub pos: &'a mut [f32; 4],
    pub pos_comp: &'a mut [f32; 4],
    pub vel: &'a mut [f32; 4],
    pub omega: &'a mut [f32; 4],
    pub triangle: &'a mut Triangle,
}

/// Put triangle `gid` where its body stands; the squared displacement since the last rebuild
/// as f32 bits.
#[allow(clippy::too_many_arguments)]
pub fn mesh_motion(
    gid: usize,
    step: &StepParams,
    domain: &DomainParams,
    walls: &[Wall],
    triangle_home: &[[f32; 4]],
    mesh_conveyor: &[[f32; 4]],
    triangle_origin: &[Triangle],
    ref_pos: &[[f32; 4]],
    out: MeshPlace<'_>,
) -> u32 {
    let t0 = &triangle_origin[gid];
    let body = &walls[(step.n_walls + t0.body) as usize];
    let (center, f) = (v3(body.center), body_frame(body));
    let home = triangle_home[gid];
    let c = center + frame_turn(&f, Vec3::new(home[0], home[1], home[2]));
    let (a, b, cc) = (
        frame_turn(&f, v3(t0.a)),
        frame_turn(&f, v3(t0.b)),
        frame_turn(&f, v3(t0.c)),
    );
    let moving = body.moving != 0;
    let spin = if moving { v3(body.omega) } else { Vec3::ZERO };
    let mut v = if moving {
        v3(body.velocity) + spin.cross(c - center)
    } else {
        Vec3::ZERO
    };
    let u = mesh_conveyor[t0.body as usize];
    let u = frame_turn(&f, Vec3::new(u[0], u[1], u[2]));
    let n = (b - a).cross(cc - a);
    let l2 = n.dot(n);
    if l2 > 0.0 {
        v += u - n * (n.dot(u) / l2);
    }
    *out.pos = [c.x, c.y, c.z, home[3]];
    *out.pos_comp = [0.0; 4];
    *out.vel = [v.x, v.y, v.z, out.vel[3]];
    *out.omega = [spin.x, spin.y, spin.z, out.omega[3]];
    *out.triangle = Triangle {
        a: a.to_array(),
        body: t0.body,
        b: b.to_array(),
        c: cc.to_array(),
        ..*t0
    };
    let p = (step.n_particles - step.n_triangles) as usize + gid;
    let r = ref_pos[p];
    let d = v3(min_image([c.x - r[0], c.y - r[1], c.z - r[2]], domain));
    d.dot(d).to_bits()
}
