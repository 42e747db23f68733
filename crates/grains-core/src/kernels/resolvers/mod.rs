//! Geometry resolvers: from two bodies to a [`crate::gpu_types::ContactGeom`].
//!
//! Resolvers are listed once, in the `resolvers!` table below: one line per resolver, naming
//! its variant, its module (also the stem of its WGSL file and of `resolve_<stem>`) and the type
//! in it that implements [`Resolver`]. From that table `crate::registry` generates
//! [`crate::ResolverKind`] and every dispatch over it (the CPU contact pass, the composer's
//! adapter, the pair table's ranges, the harness list). A new resolver is its module, its WGSL
//! file, its parity harness and one line here.

crate::registry::resolvers! {
    SphereSphere => sphere_sphere::SphereSphereResolver,
    SpherePlane => sphere_plane::SpherePlaneResolver,
    SpherePoint => sphere_point::SpherePointResolver,
    SphereCylinder => sphere_cylinder::SphereCylinderResolver,
    SphereDisk => sphere_disk::SphereDiskResolver,
    SphereCone => sphere_cone::SphereConeResolver,
    CapsuleSphere => capsule_sphere::CapsuleSphereResolver,
    CapsuleCapsule => capsule_capsule::CapsuleCapsuleResolver,
    CapsulePlane => capsule_plane::CapsulePlaneResolver,
    SphereTriangle => sphere_triangle::SphereTriangleResolver,
    CapsuleTriangle => capsule_triangle::CapsuleTriangleResolver,
}

pub use capsule_capsule::resolve_capsule_capsule;
pub use capsule_plane::resolve_capsule_plane;
pub use capsule_sphere::resolve_capsule_sphere;
pub use capsule_triangle::resolve_capsule_triangle;
pub use sphere_cone::resolve_sphere_cone;
pub use sphere_cylinder::resolve_sphere_cylinder;
pub use sphere_disk::resolve_sphere_disk;
pub use sphere_plane::resolve_sphere_plane;
pub use sphere_point::resolve_sphere_point;
pub use sphere_sphere::resolve_sphere_sphere;
pub use sphere_triangle::resolve_sphere_triangle;

pub use glam::Vec3;

use crate::gpu_types::{
    ContactGeom, DomainParams, SourcePair, SphereBody, StepParams, Wall, WALL_CONE, WALL_CYLINDER,
    WALL_DISK,
};
use crate::kernels::sources::SourceKind;

/// One geometry resolver: what the registry, the composer and the pair table need of it.
pub trait Resolver {
    /// The pair sources whose pairs it can read, the first being where an `[[interaction]]` of
    /// its bodies runs.
    const SOURCES: &'static [SourceKind];
    /// Relative tolerance of CPU/GPU parity on its outputs.
    const PARITY_TOLERANCE: f32;
    /// Whether its adapter reads the shape bindings (orientations, shape and triangle tables),
    /// which the composer then declares.
    const READS_SHAPES: bool = false;
    /// The WGSL `pair_overlap` and `pair_geom` of a source pair, reading the contact template's
    /// bindings: the WGSL form of [`Resolver::overlap`] and [`Resolver::resolve`].
    const ADAPTER: &'static str;
    /// The largest effective radius (m) it can produce for bodies of largest radii `ra`, `rb`
    /// (m): what bounds the range of adhesive laws.
    fn r_eff_max(ra: f64, rb: f64) -> f64;
    /// The contact geometry of source pair `pr`.
    fn resolve(pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom;
    /// Its overlap (m), exactly as [`Resolver::resolve`] computes `delta`: the contact pass's
    /// early out. By default the resolver itself, so the two never disagree.
    #[inline]
    fn overlap(pr: &SourcePair, b: &Bodies<'_>) -> f32 {
        Self::resolve(pr, b).delta
    }
}

/// `(the particle of kind `kind`, the other, whether it is `q`)` of a pair of particles.
#[inline]
pub(crate) fn ordered(pr: &SourcePair, kind: u32, b: &Bodies<'_>) -> (usize, usize, bool) {
    let (p, q) = (pr.p as usize, pr.q as usize);
    if b.shapes[b.shape[p] as usize].kind == kind {
        (p, q, false)
    } else {
        (q, p, true)
    }
}

/// Particle `i` as a capsule ([`crate::shapes::load_capsule`]).
#[inline]
pub(crate) fn load_capsule_at(i: usize, b: &Bodies<'_>) -> crate::gpu_types::CapsuleBody {
    crate::shapes::load_capsule(
        b.pos[i],
        b.vel[i],
        b.omega[i],
        b.quat[i],
        &b.shapes[b.shape[i] as usize],
    )
}

/// Index in the triangle table of triangle particle `i`.
#[inline]
pub(crate) fn triangle_index(i: usize, b: &Bodies<'_>) -> usize {
    b.shapes[b.shape[i] as usize].data[0].to_bits() as usize
}

/// The unit normal from a sphere at `x` (centre xyz, radius w) into wall `w`, and their
/// overlap (m), as the wall's resolver computes them: for contact records and the initial
/// overlap check.
pub fn wall_contact(x: [f32; 4], w: &Wall) -> ([f32; 3], f32) {
    let b = SphereBody {
        pos: [x[0], x[1], x[2]],
        radius: x[3],
        ..Default::default()
    };
    let g = match w.kind {
        WALL_CYLINDER => resolve_sphere_cylinder(&b, w, 0.0),
        WALL_CONE => resolve_sphere_cone(&b, w, 0.0),
        WALL_DISK => resolve_sphere_disk(&b, w, 0.0),
        _ => resolve_sphere_plane(&b, w, 0.0),
    };
    (g.normal, g.delta)
}

/// The same contact seen from the other body: normal, arms, relative velocities and lengths
/// exchanged or reversed, the rest unchanged. A resolver of two kinds of body (`capsule_sphere`)
/// is written for one order; the pair source hands pairs in index order (body 1 the lower
/// index), so a pair in the other order is resolved as written and flipped, and the slot's
/// force stays the force on the lower index. WGSL twin `flip_geom` in `shaders/lib/shape.wgsl`.
pub fn flip_geom(g: &ContactGeom) -> ContactGeom {
    let neg = |a: [f32; 3]| [-a[0], -a[1], -a[2]];
    ContactGeom {
        normal: neg(g.normal),
        arm1: g.arm2,
        arm2: g.arm1,
        vrel: neg(g.vrel),
        wrel: neg(g.wrel),
        lengths: [g.lengths[1], g.lengths[0]],
        ..*g
    }
}

/// What a resolver may read of the world for a pair (the contact template's bindings): the
/// particle arrays, the shape and triangle tables, the walls and the domain.
#[derive(Clone, Copy, Debug)]
pub struct Bodies<'a> {
    pub step: &'a StepParams,
    pub domain: &'a DomainParams,
    pub walls: &'a [Wall],
    pub pos: &'a [[f32; 4]],
    pub vel: &'a [[f32; 4]],
    pub omega: &'a [[f32; 4]],
    /// Orientations (x, y, z, w).
    pub quat: &'a [[f32; 4]],
    /// Each particle's index into `shapes`.
    pub shape: &'a [u32],
    /// The shape table ([`crate::shapes`]).
    pub shapes: &'a [crate::shapes::ShapeRecord],
    /// The mesh walls' triangles, relative to their particles' centres.
    pub triangles: &'a [crate::gpu_types::Triangle],
}
