//! Triangulated shells: deformable surfaces (capsules, vesicles, cells, sheets) whose mesh nodes
//! are particles and whose mesh holds them together (the membrane elements of Mpacts,
//! `shared/reference/000`: ElasticShellSpring, the bending forces of triangle pairs,
//! MaxwellFluidShell, N_T_ShellViscosity).
//!
//! A shell is built once, on the host, from a [`Mesh`]:
//!
//! - each **node** becomes a particle of the world (a sphere of the shell's contact radius,
//!   whose mass is a third of the mass `density * thickness * area` of every triangle it is a
//!   corner of, without rotational freedom), so spheres and other shells touch it through the
//!   ordinary contact chains of the shell's material;
//! - each **edge** becomes one element of the `shell_edges` pass
//!   (`kernels/passes/shell_edges.rs`): the edge's spring, dashpot and Maxwell relaxation
//!   between its two nodes, and the bending of the hinge it forms with the two "lever" nodes
//!   opposite it (the `node_node_shell` and `triangle_triangle_common_edge` resolvers of
//!   `kernels/shell/`). Its coefficients differ per edge (Van Gelder's stiffness depends on the
//!   adjacent triangles' areas), so they are computed here into one [`ShellEdgeParams`]
//!   record per edge;
//! - each **shell** with a volume law is one element of the `shell_volume` pass (its enclosed
//!   volume and the pressure that restores it);
//! - the `shell_gather` pass adds each node's share into its force, after the contact gather.
//!
//! The element laws are the modules of `kernels/shell/`, each with its WGSL twin in
//! `shaders/shell/`; [`ShellLaws`] holds which ones a shell uses.

use std::f64::consts::PI;

use bytemuck::{Pod, Zeroable};

use crate::error::CoreError;
use crate::kernels::shell::{BendingLaw, DampingLaw, ShellLaws};
use crate::material::Material;
use crate::world::Particles;

/// No node: the second lever of an edge on the boundary of an open shell.
pub const NO_NODE: u32 = u32::MAX;

/// Bit of a `shell_entry` that marks a triangle corner rather than an edge role.
pub const TRIANGLE_ENTRY: u32 = 1 << 31;

/// A triangle mesh: vertex positions (m) and triangles as vertex indices, counter-clockwise
/// seen from outside (the normal `(b - a) x (c - a)` points out of a closed shell).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub vertices: Vec<[f64; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

impl Mesh {
    /// An icosphere: the icosahedron with each triangle split into four `subdivisions` times,
    /// every vertex projected onto the sphere. `10 * 4^s + 2` nodes, `20 * 4^s` triangles.
    pub fn icosphere(center: [f64; 3], radius: f64, subdivisions: u32) -> Mesh {
        let t = (1.0 + 5f64.sqrt()) / 2.0;
        let mut v: Vec<[f64; 3]> = vec![
            [-1.0, t, 0.0],
            [1.0, t, 0.0],
            [-1.0, -t, 0.0],
            [1.0, -t, 0.0],
            [0.0, -1.0, t],
            [0.0, 1.0, t],
            [0.0, -1.0, -t],
            [0.0, 1.0, -t],
            [t, 0.0, -1.0],
            [t, 0.0, 1.0],
            [-t, 0.0, -1.0],
            [-t, 0.0, 1.0],
        ];
        let mut f: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        let unit = |p: [f64; 3]| {
            let l = norm(p);
            [p[0] / l, p[1] / l, p[2] / l]
        };
        v.iter_mut().for_each(|p| *p = unit(*p));
        for _ in 0..subdivisions {
            let mut mid = std::collections::HashMap::new();
            let mut next = Vec::with_capacity(f.len() * 4);
            let mut middle = |a: u32, b: u32, v: &mut Vec<[f64; 3]>| -> u32 {
                *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    let (pa, pb) = (v[a as usize], v[b as usize]);
                    v.push(unit([
                        0.5 * (pa[0] + pb[0]),
                        0.5 * (pa[1] + pb[1]),
                        0.5 * (pa[2] + pb[2]),
                    ]));
                    v.len() as u32 - 1
                })
            };
            for [a, b, c] in f {
                let ab = middle(a, b, &mut v);
                let bc = middle(b, c, &mut v);
                let ca = middle(c, a, &mut v);
                next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
            }
            f = next;
        }
        Mesh {
            vertices: v
                .into_iter()
                .map(|p| {
                    [
                        center[0] + radius * p[0],
                        center[1] + radius * p[1],
                        center[2] + radius * p[2],
                    ]
                })
                .collect(),
            triangles: f,
        }
    }

    /// A flat sheet in the plane `z = corner[2]`, `size[0]` by `size[1]` (m), as a triangular
    /// lattice of `divisions[0]` triangles' bases along x and `divisions[1]` rows along y, odd
    /// rows shifted by half a base. The triangles are equilateral when
    /// `size[1] / divisions[1] = (size[0] / divisions[0]) sqrt(3) / 2`; the shifted rows stick
    /// out by half a base on the +x side. Normals point along +z.
    pub fn sheet(corner: [f64; 3], size: [f64; 2], divisions: [u32; 2]) -> Mesh {
        let (nx, ny) = (divisions[0].max(1), divisions[1].max(1));
        let (dx, dy) = (size[0] / nx as f64, size[1] / ny as f64);
        let mut vertices = Vec::new();
        for r in 0..=ny {
            for c in 0..=nx {
                let shift = if r % 2 == 1 { 0.5 * dx } else { 0.0 };
                vertices.push([
                    corner[0] + c as f64 * dx + shift,
                    corner[1] + r as f64 * dy,
                    corner[2],
                ]);
            }
        }
        let at = |r: u32, c: u32| r * (nx + 1) + c;
        let mut triangles = Vec::new();
        for r in 0..ny {
            for c in 0..nx {
                if r % 2 == 0 {
                    triangles.push([at(r, c), at(r, c + 1), at(r + 1, c)]);
                    triangles.push([at(r, c + 1), at(r + 1, c + 1), at(r + 1, c)]);
                } else {
                    triangles.push([at(r, c), at(r + 1, c + 1), at(r + 1, c)]);
                    triangles.push([at(r, c), at(r, c + 1), at(r + 1, c + 1)]);
                }
            }
        }
        Mesh {
            vertices,
            triangles,
        }
    }

    /// Scale about the origin, rotate by the unit quaternion `rotate = [w, x, y, z]`, then
    /// translate.
    pub fn transform(&mut self, scale: f64, rotate: [f64; 4], translate: [f64; 3]) {
        let [w, x, y, z] = rotate;
        let n = (w * w + x * x + y * y + z * z).sqrt();
        let (w, x, y, z) = (w / n, x / n, y / n, z / n);
        let r = [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
            ],
            [
                2.0 * (x * y + w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - w * x),
            ],
            [
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ];
        for p in &mut self.vertices {
            let s = [p[0] * scale, p[1] * scale, p[2] * scale];
            *p = [0, 1, 2].map(|k| dot(r[k], s) + translate[k]);
        }
    }

    /// Area of triangle `t` (m^2).
    pub fn area(&self, t: usize) -> f64 {
        let [a, b, c] = self.triangles[t].map(|i| self.vertices[i as usize]);
        0.5 * norm(cross(sub(b, a), sub(c, a)))
    }

    /// Enclosed volume (m^3) of a closed mesh, by the divergence theorem.
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.vertices[i as usize]);
                dot(a, cross(b, c)) / 6.0
            })
            .sum()
    }
}

/// Append a node of a shell or ring: a sphere at `x = [x, y, z, contact radius]` with velocity
/// `v` and mass `m`, without rotational freedom (nodes are points: an inverse inertia of 0
/// keeps its spin at 0).
pub(crate) fn push_node(
    particles: &mut Particles,
    x: [f64; 4],
    v: [f64; 3],
    m: f64,
    material: u32,
) {
    particles.pos.push(x.map(|c| c as f32));
    particles
        .vel
        .push([v[0] as f32, v[1] as f32, v[2] as f32, (1.0 / m) as f32]);
    particles.omega.push([0.0; 4]);
    particles.quat.push(crate::shapes::IDENTITY);
    particles.material.push(material);
    particles.mass.push(m as f32);
    particles.inertia.push(0.0);
    particles.shape.push(crate::shapes::SPHERE);
}

/// An edge of a mesh with its hinge: common nodes `i -> j` as triangle 1 = `(i, j, k)` runs
/// them, lever `k` of triangle 1 and lever `l` of triangle 2 = `(j, i, l)` ([`NO_NODE`] on a
/// boundary); `t1`, `t2` the two triangles (`t2 = u32::MAX` on a boundary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshEdge {
    pub nodes: [u32; 4],
    pub t1: u32,
    pub t2: u32,
}

/// Edges and hinges of a mesh, found once (the `node_node_shell` resolver's topology step).
pub fn mesh_edges(mesh: &Mesh) -> Result<(Vec<MeshEdge>, bool), CoreError> {
    let bad = |what: String| Err(CoreError::BadMesh(what));
    let nv = mesh.vertices.len() as u32;
    let mut half = std::collections::BTreeMap::new();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if tri.iter().any(|&v| v >= nv) {
            return bad(format!(
                "triangle {t} names a vertex beyond the {nv} vertices"
            ));
        }
        if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
            return bad(format!("triangle {t} repeats a vertex: {tri:?}"));
        }
        if mesh.area(t) <= 0.0 {
            return bad(format!("triangle {t} has zero area"));
        }
        for c in 0..3 {
            let (a, b, o) = (tri[c], tri[(c + 1) % 3], tri[(c + 2) % 3]);
            if half.insert((a, b), (t as u32, o)).is_some() {
                return bad(format!(
                    "edge {a}-{b} runs the same way in two triangles: the triangles are not \
                     consistently oriented, or the edge is shared by more than two"
                ));
            }
        }
    }
    let mut edges = Vec::new();
    let mut closed = true;
    for (&(a, b), &(t, o)) in &half {
        match half.get(&(b, a)) {
            Some(&(t2, o2)) if a < b => edges.push(MeshEdge {
                nodes: [a, b, o, o2],
                t1: t,
                t2,
            }),
            Some(_) => {}
            None => {
                closed = false;
                edges.push(MeshEdge {
                    nodes: [a, b, o, NO_NODE],
                    t1: t,
                    t2: u32::MAX,
                })
            }
        }
    }
    let mut used = vec![false; nv as usize];
    mesh.triangles
        .iter()
        .flatten()
        .for_each(|&v| used[v as usize] = true);
    if let Some(v) = used.iter().position(|u| !u) {
        return bad(format!("vertex {v} belongs to no triangle"));
    }
    Ok((edges, closed))
}

/// Coefficients of one edge element (WGSL: `shaders/lib/shell.wgsl`), computed on the host from
/// the shell's laws and the initial mesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShellEdgeParams {
    /// Spring stiffness of the edge (N/m); 0 for none.
    pub stretch: f32,
    /// Relaxation time of the edge's rest length (s), `maxwell_shell`; 0 for none.
    pub relax_time: f32,
    /// Dashpot `Gamma` on the relative velocity of the two nodes (N s/m); 0 for none.
    pub viscosity: f32,
    /// Bending law of the hinge ([`BendingLaw::code`]); 0 for none (boundary edges).
    pub bend_law: u32,
    /// Bending stiffness `k_b` (J).
    pub bend: f32,
    /// Reference angle of the hinge (rad).
    pub theta0: f32,
    /// The shell this edge belongs to.
    pub shell: u32,
    pub _pad: u32,
}

/// One shell as the `shell_volume` pass reads it (WGSL: `shaders/lib/shell.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShellParams {
    /// Volume stiffness `k_v` (Pa) of `volume_conservation` (a ring's area stiffness `k_a`,
    /// N/m, of `area_conservation`); 0 for none.
    pub volume_stiffness: f32,
    /// Enclosed volume at rest (m^3; a ring's enclosed area, m^2).
    pub rest_volume: f32,
    /// Its triangles are `shell_tris[tri_start .. tri_start + tri_count]`.
    pub tri_start: u32,
    pub tri_count: u32,
    /// The node its volume is measured from (minimum image on periodic axes); a ring's first
    /// node, its nodes being `ref_node .. ref_node + tri_count` in order.
    pub ref_node: u32,
    /// Node-to-surface penalty stiffness (N/m) of a ring or shell as a master; 0 for none.
    pub contact_stiffness: f32,
    /// Whether its nodes meet its own elements (1) or only other rings' or shells' (0).
    pub self_contact: u32,
    /// How far a slave node may be from one of its elements and still find it (m): half its
    /// longest edge.
    pub contact_reach: f32,
}

/// Sizes the shell passes loop over (WGSL: `shaders/lib/shell.wgsl`), a uniform.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShellCounts {
    /// Shell edges.
    pub n_edges: u32,
    /// Shells.
    pub n_shells: u32,
    pub _pad0: u32,
    pub _pad1: u32,
}

/// The node-to-surface contact of a ring or shell ([`crate::kernels::shell::penalty`]):
/// node-to-segment between rings, node-to-triangle between shells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceContact {
    /// Penalty stiffness `k` (N/m) of this ring or shell as a master.
    pub stiffness: f64,
    /// Whether its nodes meet its own elements (those not around them).
    pub self_contact: bool,
}

impl SurfaceContact {
    /// `(contact_stiffness, self_contact, contact_reach)` of [`ShellParams`] for elements whose
    /// longest edge is `longest` (m): the reach is half of it.
    pub fn params(contact: Option<SurfaceContact>, longest: f64) -> (f32, u32, f32) {
        match contact {
            Some(c) => (
                c.stiffness as f32,
                c.self_contact as u32,
                (0.5 * longest) as f32,
            ),
            None => (0.0, 0, 0.0),
        }
    }
}

/// A shell as the scene gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShellSpec {
    pub mesh: Mesh,
    /// Material index.
    pub material: u32,
    /// Thickness (m).
    pub thickness: f64,
    /// Contact radius of its nodes (m); `None`: 0.45 of the shortest edge.
    pub contact_radius: Option<f64>,
    /// Initial velocity of every node (m/s).
    pub velocity: [f64; 3],
    pub laws: ShellLaws,
    /// Node-to-triangle contact with other shells.
    pub contact: Option<SurfaceContact>,
}

/// Every shell of a world: the tables the three shell passes read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shells {
    /// `(i, j, k, l)` per edge: common nodes, levers ([`NO_NODE`] on a boundary).
    pub edges: Vec<[u32; 4]>,
    pub edge_params: Vec<ShellEdgeParams>,
    /// Initial rest length of each edge (m): the `shell_rest` state array starts from it.
    pub rest: Vec<f32>,
    /// `(a, b, c, shell)` per triangle, triangles of one shell contiguous; a ring's segments
    /// are `(a, b, NO_NODE, ring)` ([`crate::rings`]).
    pub triangles: Vec<[u32; 4]>,
    pub shells: Vec<ShellParams>,
    /// First particle and node count of each shell.
    pub nodes: Vec<(u32, u32)>,
}

impl Shells {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.shells.is_empty()
    }

    /// The counts uniform of the shell passes.
    pub fn counts(&self) -> ShellCounts {
        ShellCounts {
            n_edges: self.edges.len() as u32,
            n_shells: self.shells.len() as u32,
            ..Default::default()
        }
    }

    /// Each particle's entries for the gather, in CSR form: particle `p`'s are
    /// `entry[start[p]..start[p + 1]]`, edge roles `4 * edge + role` (role 0, 1: the common
    /// nodes, 2, 3: the levers) first in edge order, then triangle corners
    /// `TRIANGLE_ENTRY | 3 * triangle + corner` of shells with a volume law.
    pub fn node_index(&self, n: usize) -> (Vec<u32>, Vec<u32>) {
        let mut lists = vec![Vec::new(); n];
        for (e, nodes) in self.edges.iter().enumerate() {
            for (role, &p) in nodes.iter().enumerate() {
                if p != NO_NODE {
                    lists[p as usize].push(4 * e as u32 + role as u32);
                }
            }
        }
        for (t, tri) in self.triangles.iter().enumerate() {
            if self.shells[tri[3] as usize].volume_stiffness == 0.0 {
                continue;
            }
            // A ring's segment has two corners (its third is NO_NODE).
            for c in (0..3).filter(|&c| tri[c] != NO_NODE) {
                lists[tri[c] as usize].push(TRIANGLE_ENTRY | (3 * t as u32 + c as u32));
            }
        }
        let mut start = vec![0u32; n + 1];
        for (p, l) in lists.iter().enumerate() {
            start[p + 1] = start[p] + l.len() as u32;
        }
        (start, lists.concat())
    }

    /// Smallest time scale of the shell elements (s): `pi sqrt(m*/k)` of the stiffest edge for
    /// its nodes' effective mass, where `k` adds the spring, the bending hinge's stiffness
    /// against a lever displacement (`k_b / h^2`, `h` the triangle height) and the volume
    /// term's stiffness at one node (`k_v A^2 / V0` with `A` the node's area) and a ring's
    /// node-to-segment penalty; `None` without
    /// shells. `dt = "auto"` resolves it in 40 steps as it does a collision.
    pub fn element_time(&self, p: &Particles) -> Option<f64> {
        let mass = |i: u32| p.mass[i as usize] as f64;
        self.edges
            .iter()
            .zip(&self.edge_params)
            .zip(&self.rest)
            .map(|((e, ep), &l0)| {
                let m = mass(e[0]) * mass(e[1]) / (mass(e[0]) + mass(e[1]));
                let l0 = l0 as f64;
                // A lever at height ~ l0 sqrt(3)/2 from the edge.
                let h = 0.75f64.sqrt() * l0;
                let sh = self.shells[ep.shell as usize];
                let area = l0 * l0 * 3f64.sqrt() / 4.0 * 2.0;
                let kv = if sh.volume_stiffness > 0.0 {
                    sh.volume_stiffness as f64 * area * area / sh.rest_volume as f64
                } else {
                    0.0
                };
                // A ring's node-to-segment penalty acts on its nodes too.
                let k = ep.stretch as f64
                    + 4.0 * ep.bend as f64 / (h * h)
                    + kv
                    + sh.contact_stiffness as f64;
                if k > 0.0 {
                    PI * (m / k).sqrt()
                } else {
                    f64::INFINITY
                }
            })
            .reduce(f64::min)
    }

    /// Append shell `spec`'s nodes to `particles` and its elements to these tables.
    pub fn add(
        &mut self,
        spec: &ShellSpec,
        materials: &[Material],
        particles: &mut Particles,
    ) -> Result<(), CoreError> {
        let mesh = &spec.mesh;
        let (edges, closed) = mesh_edges(mesh)?;
        let mat = materials
            .get(spec.material as usize)
            .ok_or_else(|| CoreError::BadMesh(format!("no material {}", spec.material)))?;
        if spec.laws.volume.is_some() && !closed {
            return Err(CoreError::BadMesh(
                "a volume law needs a closed shell, and this mesh has boundary edges".into(),
            ));
        }
        let t = spec.thickness;
        let first = particles.len() as u32;
        let shell = self.shells.len() as u32;
        let areas: Vec<f64> = (0..mesh.triangles.len()).map(|k| mesh.area(k)).collect();
        let shortest = edges
            .iter()
            .map(|e| {
                norm(sub(
                    mesh.vertices[e.nodes[1] as usize],
                    mesh.vertices[e.nodes[0] as usize],
                ))
            })
            .fold(f64::INFINITY, f64::min);
        let radius = spec.contact_radius.unwrap_or(0.45 * shortest);
        let mut node_mass = vec![0.0f64; mesh.vertices.len()];
        for (tri, a) in mesh.triangles.iter().zip(&areas) {
            for &v in tri {
                node_mass[v as usize] += mat.density * t * a / 3.0;
            }
        }
        for (x, &m) in mesh.vertices.iter().zip(&node_mass) {
            let node = [x[0], x[1], x[2], radius];
            push_node(particles, node, spec.velocity, m, spec.material);
        }
        for e in &edges {
            let [i, j, k, l] = e.nodes;
            let (xi, xj) = (mesh.vertices[i as usize], mesh.vertices[j as usize]);
            let l0 = norm(sub(xj, xi));
            let a1 = areas[e.t1 as usize];
            let a2 = if e.t2 == u32::MAX {
                0.0
            } else {
                areas[e.t2 as usize]
            };
            let mut p = ShellEdgeParams {
                shell,
                ..Default::default()
            };
            if spec.laws.stretch.is_some() {
                p.stretch = crate::kernels::shell::elastic_shell_spring::stiffness(
                    mat.young,
                    a1 * t + a2 * t,
                    l0,
                ) as f32;
            }
            match spec.laws.damping {
                Some(DampingLaw::ShellViscosity { viscosity }) => {
                    p.viscosity =
                        crate::kernels::shell::shell_viscosity::coefficient(viscosity, t) as f32;
                }
                Some(DampingLaw::MaxwellShell { relaxation_time }) => {
                    p.relax_time = crate::kernels::shell::maxwell_shell::edge_relaxation_time(
                        relaxation_time,
                        t,
                        mat.young,
                        p.stretch as f64,
                    ) as f32;
                }
                None => {}
            }
            if let (Some(b), true) = (spec.laws.bending, l != NO_NODE) {
                let x = [i, j, k, l].map(|v| {
                    let p = mesh.vertices[v as usize];
                    [p[0] as f32, p[1] as f32, p[2] as f32]
                });
                let h = crate::kernels::shell::triangle_triangle_common_edge::hinge_angle(
                    x[0], x[1], x[2], x[3],
                );
                p.bend_law = b.code();
                p.bend = b.stiffness(mat, t) as f32;
                p.theta0 = b.reference_angle().unwrap_or(h as f64) as f32;
            }
            let l = if l == NO_NODE { NO_NODE } else { l + first };
            self.edges.push([i + first, j + first, k + first, l]);
            self.edge_params.push(p);
            self.rest.push(l0 as f32);
        }
        let tri_start = self.triangles.len() as u32;
        for tri in &mesh.triangles {
            self.triangles
                .push([tri[0] + first, tri[1] + first, tri[2] + first, shell]);
        }
        let (volume_stiffness, rest_volume) = match spec.laws.volume {
            Some(v) => (v.stiffness as f32, mesh.volume() as f32),
            None => (0.0, if closed { mesh.volume() as f32 } else { 0.0 }),
        };
        if spec.laws.volume.is_some() && rest_volume <= 0.0 {
            return Err(CoreError::BadMesh(format!(
                "the mesh encloses a volume of {rest_volume:e} m^3: its triangles must be \
                 counter-clockwise seen from outside"
            )));
        }
        let longest = edges
            .iter()
            .map(|e| {
                let [a, b] = [e.nodes[0], e.nodes[1]].map(|v| mesh.vertices[v as usize]);
                norm(sub(b, a))
            })
            .fold(0.0, f64::max);
        let (contact_stiffness, self_contact, contact_reach) =
            SurfaceContact::params(spec.contact, longest);
        self.shells.push(ShellParams {
            volume_stiffness,
            rest_volume,
            tri_start,
            tri_count: mesh.triangles.len() as u32,
            ref_node: first,
            contact_stiffness,
            self_contact,
            contact_reach,
        });
        self.nodes.push((first, mesh.vertices.len() as u32));
        Ok(())
    }
}

impl BendingLaw {
    /// Reference angle given in the scene (rad), or `None` for the initial shape's.
    pub fn reference_angle(&self) -> Option<f64> {
        match *self {
            BendingLaw::Linear { theta0, .. }
            | BendingLaw::Elastic { theta0, .. }
            | BendingLaw::ElasticShell { theta0, .. } => theta0,
        }
    }
}

impl Shells {
    /// Whether a ring or shell meets others through node-to-surface contact.
    pub fn has_surface_contact(&self) -> bool {
        self.shells.iter().any(|s| s.contact_stiffness > 0.0)
    }

    /// Each of `n` particles' elements (indices of [`Shells::triangles`]: a shell's triangles,
    /// a ring's segments) where it is a node of a ring or shell with contact, in CSR form:
    /// particle p's are `elems[start[p]..start[p + 1]]`, in element order.
    pub fn surface_index(&self, n: usize) -> (Vec<u32>, Vec<u32>) {
        let mut lists = vec![Vec::new(); n];
        for (t, tri) in self.triangles.iter().enumerate() {
            if self.shells[tri[3] as usize].contact_stiffness <= 0.0 {
                continue;
            }
            for &p in tri[..3].iter().filter(|&&p| p != NO_NODE) {
                lists[p as usize].push(t as u32);
            }
        }
        let mut start = vec![0u32; n + 1];
        for (p, l) in lists.iter().enumerate() {
            start[p + 1] = start[p] + l.len() as u32;
        }
        (start, lists.concat())
    }

    /// How far beyond touching the neighbour list must reach for node-to-surface contact (m):
    /// a slave within an element's reach `rho` (half its longest initial edge `L`) lies within
    /// `rho + 1.5 L = 4 rho` of each of its nodes while the element's edges are at most half
    /// again as long as `L`, which the list holds when its cut-off, `r_i + r_j` plus this, is
    /// at least that far. 0 without such contact.
    pub fn surface_range(&self, particles: &Particles) -> f32 {
        let smallest = (self.contact_nodes())
            .map(|p| particles.pos[p as usize][3])
            .fold(f32::INFINITY, f32::min);
        self.shells
            .iter()
            .filter(|s| s.contact_stiffness > 0.0)
            .map(|s| (4.0 * s.contact_reach - 2.0 * smallest).max(0.0))
            .fold(0.0, f32::max)
    }

    /// The nodes of the rings and shells with node-to-surface contact.
    pub fn contact_nodes(&self) -> impl Iterator<Item = u32> + '_ {
        (self.shells.iter().zip(&self.nodes))
            .filter(|(s, _)| s.contact_stiffness > 0.0)
            .flat_map(|(_, &(first, count))| first..first + count)
    }
}

/// Per material, whether every particle of it is a node of a ring or shell with
/// node-to-surface contact (and there is at least one): such materials meet through it.
pub fn surface_only_materials(
    shells: &Shells,
    particle_materials: &[u32],
    n_materials: usize,
) -> Vec<bool> {
    let count = |ps: &mut dyn Iterator<Item = u32>| {
        let mut n = vec![0usize; n_materials];
        for p in ps {
            if let Some(c) = n.get_mut(particle_materials[p as usize] as usize) {
                *c += 1;
            }
        }
        n
    };
    let nodes = count(&mut shells.contact_nodes());
    let all = count(&mut (0..particle_materials.len() as u32));
    nodes
        .iter()
        .zip(&all)
        .map(|(&k, &a)| k > 0 && k == a)
        .collect()
}
