//! Triangle meshes as walls.
//!
//! Each triangle of a mesh wall is a fixed particle (inverse mass 0) whose centre is the
//! triangle's centroid and whose `pos.w` is the radius of the sphere about the centroid that
//! holds the triangle, so the broad phase bins triangles as a second kind of body with no change
//! of its own: a particle meets a triangle through the neighbour list, and the material pair
//! picks `sphere_triangle` or `capsule_triangle` ([`crate::World::material_shapes`]). The
//! triangle's vertices, relative to that centre, are in the world's triangle table; its shape
//! record points there. Triangles larger than [`SIZE_FACTOR`] times the largest particle are
//! bisected across their longest edge until they fit, so the broad phase's cells stay close to
//! the particles' size: the
//! surface is unchanged, and the contact fraction makes a sphere on several triangles of one
//! flat surface feel one surface.
//!
//! Each mesh wall is a rigid body ([`MeshBodies`]): a [`Wall`] record of kind [`MESH_BODY`]
//! after the analytic walls, moved by the walls' own motion pass (velocity and spin about a
//! centre, start and stop, or a table of poses), and its triangles set where it stands each
//! step (`kernels/passes/mesh_motion.rs`), with the body's velocity at their centres and a
//! conveyor's surface velocity. A triangle's particle keeps no history of its own pose: it is
//! computed afresh from its place in the body, so rounding does not accumulate over the turns
//! of a mixer.

use crate::error::CoreError;
use crate::kernel_types::{Triangle, Wall, MESH_BODY};
use crate::shapes::ShapeRecord;
use crate::shells::Mesh;
use crate::world::Particles;

/// How large a triangle may be, as the radius about its centroid over the largest particle's
/// radius. The broad phase's cells are sized for a particle and a triangle to meet
/// ([`crate::World::grid`]; two triangles are never candidates), so larger triangles mean
/// fewer triangle particles but larger cells: at 2, cells grow from `2 r + cutoff` to
/// `3 r + cutoff`, and a mesh holds a quarter of the triangles it would at 1.
pub const SIZE_FACTOR: f64 = 2.0;

/// Largest number of triangles one mesh wall may become after splitting: beyond it, the mesh
/// is far finer than anything a wall needs and memory runs out first.
pub const MAX_TRIANGLES: usize = 4_000_000;

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = sub(a, b);
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

fn mid(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| 0.5 * (a[k] + b[k]))
}

/// Centroid of a triangle and the radius about it that holds its vertices (m).
pub fn bounding(t: &[[f64; 3]; 3]) -> ([f64; 3], f64) {
    let c = [0, 1, 2].map(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0);
    let r = t.iter().map(|&v| dist(v, c)).fold(0.0, f64::max);
    (c, r)
}

/// The mesh's triangles, each bisected across its longest edge until its bounding radius is at
/// most `max_radius` (m). Degenerate triangles (zero area) are dropped: they have no surface to
/// touch.
pub fn split_triangles(mesh: &Mesh, max_radius: f64) -> Result<Vec<[[f64; 3]; 3]>, CoreError> {
    let mut out = Vec::new();
    let mut stack: Vec<[[f64; 3]; 3]> = mesh
        .triangles
        .iter()
        .map(|t| t.map(|i| mesh.vertices[i as usize]))
        .collect();
    while let Some(t) = stack.pop() {
        let e1 = sub(t[1], t[0]);
        let e2 = sub(t[2], t[0]);
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let area2 = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let (_, r) = bounding(&t);
        // Zero area (or NaN): no surface to touch.
        if area2.is_nan() || area2 <= 1e-12 * r * r {
            continue;
        }
        if r <= max_radius {
            out.push(t);
        } else {
            // Bisect the longest edge: a long thin facet (an STL's cone near its apex) becomes
            // pieces of particle size without being cut into many thin slivers.
            let len = |i: usize| dist(t[i], t[(i + 1) % 3]);
            let e = (0..3)
                .max_by(|&i, &j| len(i).total_cmp(&len(j)))
                .unwrap_or(0);
            let (a, b, c) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
            let m = mid(a, b);
            stack.extend([[a, m, c], [m, b, c]]);
        }
        if out.len() + stack.len() > MAX_TRIANGLES {
            return Err(CoreError::BadShape(format!(
                "the mesh wall would need more than {MAX_TRIANGLES} triangles for each to lie \
                 within {} of its centroid ({SIZE_FACTOR} times the largest particle's radius, \
                 {}): the mesh is too large for particles this small; check the mesh's units \
                 (`scale`), or use larger particles",
                crate::units::qty(max_radius, "m"),
                crate::units::qty(max_radius / SIZE_FACTOR, "m")
            )));
        }
    }
    Ok(out)
}

/// The mesh walls as bodies: one record each, what their triangles keep of their place in
/// them, and their motion tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshBodies {
    /// Each mesh wall's body, in the order of its triangles' `body`: kind [`MESH_BODY`], its
    /// motion as a wall's ([`Wall`]), its frame `point - center` (x) and `normal` (z), unit
    /// vectors at the start.
    pub bodies: Vec<Wall>,
    /// Each body's conveyor: the velocity its surface carries particles at, in the body's
    /// frame (m/s; only its component along each triangle's plane acts), `w` unused.
    pub conveyor: Vec<[f32; 4]>,
    /// Each triangle's centroid relative to its body's initial centre (m), and its bounding
    /// radius in `w`: where the body's pose puts it.
    pub home: Vec<[f32; 4]>,
    /// The tables of poses, rows `(t, dx, dy, dz, rx, ry, rz, 0)`: time (s), displacement of
    /// the body's centre from its initial place (m) and rotation vector from its initial
    /// orientation (rad), interpolated linearly between rows.
    pub poses: Vec<[f32; 8]>,
}

impl MeshBodies {
    /// Whether a mesh wall moves or carries particles along: its triangles are then set each
    /// step.
    pub fn move_any(&self) -> bool {
        self.bodies.iter().any(|b| b.moves()) || self.conveyor.iter().any(|c| c[..3] != [0.0; 3])
    }

    /// The triangles `origin` (the world's table) turned with `bodies` (their records as they
    /// stand, a backend's walls after the analytic ones): the vertices `mesh_motion` gives
    /// them, for a backend taking up a state.
    pub fn triangles_at(origin: &[Triangle], bodies: &[Wall]) -> Vec<Triangle> {
        use crate::kernels::passes::mesh_motion::{body_frame, frame_turn};
        use glam::Vec3;
        origin
            .iter()
            .map(|t| {
                let Some(b) = bodies.get(t.body as usize) else {
                    return *t;
                };
                let f = body_frame(b);
                let turn = |v: [f32; 3]| frame_turn(&f, Vec3::from(v)).to_array();
                Triangle {
                    a: turn(t.a),
                    b: turn(t.b),
                    c: turn(t.c),
                    ..*t
                }
            })
            .collect()
    }

    /// A new body at rest about `center` (m) with `material`, returning its index.
    pub fn add_body(&mut self, center: [f64; 3], material: u32) -> u32 {
        let c = center.map(|x| x as f32);
        let mut body = Wall::plane([c[0] + 1.0, c[1], c[2]], [0.0, 0.0, 1.0], material);
        body.kind = MESH_BODY;
        body.center = c;
        self.bodies.push(body);
        self.conveyor.push([0.0; 4]);
        (self.bodies.len() - 1) as u32
    }
}

/// Append a mesh wall of `material` to `particles` and its triangles to `table`: one fixed
/// particle per triangle (after splitting to `max_radius`), at rest, each a triangle of the
/// body `body` of `bodies`. Returns how many.
pub fn add_mesh_wall(
    particles: &mut Particles,
    table: &mut Vec<Triangle>,
    bodies: &mut MeshBodies,
    body: u32,
    mesh: &Mesh,
    max_radius: f64,
) -> Result<usize, CoreError> {
    let tris = split_triangles(mesh, max_radius)?;
    let record = bodies.bodies[body as usize];
    let (material, center) = (record.material, record.center);
    for t in &tris {
        let (c, r) = bounding(t);
        let rel = |v: [f64; 3]| sub(v, c).map(|x| x as f32);
        let shape = particles.add_shape(ShapeRecord::triangle(table.len() as u32));
        table.push(Triangle {
            a: rel(t[0]),
            body,
            b: rel(t[1]),
            c: rel(t[2]),
            ..Default::default()
        });
        let arm = [0, 1, 2].map(|k| (c[k] - center[k] as f64) as f32);
        bodies.home.push([arm[0], arm[1], arm[2], r as f32]);
        particles
            .pos
            .push([c[0] as f32, c[1] as f32, c[2] as f32, r as f32]);
        particles.vel.push([0.0; 4]);
        particles.omega.push([0.0; 4]);
        particles.quat.push(crate::shapes::IDENTITY);
        particles.material.push(material);
        particles.mass.push(0.0);
        particles.inertia.push(0.0);
        particles.shape.push(shape);
    }
    Ok(tris.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_keeps_the_area_and_bounds_every_triangle() {
        let mesh = Mesh::sheet([0.0, 0.0, 0.0], [0.1, 0.05], [2, 1]);
        let area: f64 = (0..mesh.triangles.len()).map(|t| mesh.area(t)).sum();
        let tris = split_triangles(&mesh, 0.004).unwrap();
        let mut sum = 0.0;
        for t in &tris {
            let (_, r) = bounding(t);
            assert!(r <= 0.004 + 1e-15);
            let e1 = sub(t[1], t[0]);
            let e2 = sub(t[2], t[0]);
            let n = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            sum += 0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        }
        assert!((sum - area).abs() < 1e-12 * area, "{sum} vs {area}");
    }
}
