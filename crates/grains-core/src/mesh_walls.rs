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

use crate::error::CoreError;
use crate::kernel_types::Triangle;
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

/// Append a mesh wall of `material` to `particles` and its triangles to `table`: one fixed
/// particle per triangle (after splitting to `max_radius`), at rest. Returns how many.
pub fn add_mesh_wall(
    particles: &mut Particles,
    table: &mut Vec<Triangle>,
    mesh: &Mesh,
    material: u32,
    max_radius: f64,
) -> Result<usize, CoreError> {
    let tris = split_triangles(mesh, max_radius)?;
    for t in &tris {
        let (c, r) = bounding(t);
        let rel = |v: [f64; 3]| sub(v, c).map(|x| x as f32);
        let shape = particles.add_shape(ShapeRecord::triangle(table.len() as u32));
        table.push(Triangle {
            a: rel(t[0]),
            b: rel(t[1]),
            c: rel(t[2]),
            ..Default::default()
        });
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
