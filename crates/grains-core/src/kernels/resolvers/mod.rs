//! Geometry resolvers: from two bodies to a [`crate::kernel_types::ContactGeom`].
//!
//! Resolvers are listed once, in the `resolvers!` table below: one line per resolver, naming
//! its variant, its module (also the stem of its WGSL file and of `resolve_<stem>`) and the type
//! in it that implements [`Resolver`]. From that table `crate::registry` generates
//! [`crate::ResolverKind`] and every dispatch over it (the CPU contact pass, the composer's
//! adapter, the pair table's ranges, the harness list, the parity test). A new resolver is its
//! module (with its parity cases), its WGSL file and one line here; its parity harness is the
//! generic `shaders/testing/harness_resolve.wgsl` with the resolver inserted.

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

use bytemuck::Pod;

use crate::kernel_types::{
    CapsuleBody, ContactGeom, DomainParams, SourcePair, SphereBody, StepParams, Triangle, Wall,
};
use crate::kernels::sources::SourceKind;
use crate::parity::SplitMix;

/// A record a resolver's harness reads for a body, declared under the same name in
/// `shaders/lib/types.wgsl`.
pub trait HarnessRecord: Pod + std::fmt::Debug {
    /// Its WGSL name.
    const WGSL: &'static str;
}

impl HarnessRecord for SphereBody {
    const WGSL: &'static str = "SphereBody";
}

impl HarnessRecord for CapsuleBody {
    const WGSL: &'static str = "CapsuleBody";
}

impl HarnessRecord for Wall {
    const WGSL: &'static str = "Wall";
}

/// One random parity case of a resolver: the records its twin reads (the harness's `b1`, `b2`
/// and `t`) and the scales its outputs are compared at.
#[derive(Clone, Debug)]
pub struct ResolverCase<B1, B2> {
    /// Body 1.
    pub b1: B1,
    /// Body 2: a particle or a wall.
    pub b2: B2,
    /// The triangle carried by body 2, relative to its centre (read by the triangle resolvers
    /// alone; the others get it too, so every harness binds the same inputs).
    pub triangle: Triangle,
    /// Length scale (m): the overlap and the arms are compared relative to it (the overlap is
    /// a difference of nearly equal lengths, so relative to itself it would be
    /// ill-conditioned).
    pub size: f32,
    /// Speed scale (m/s): the largest surface speed of the pair, for the relative velocity.
    pub speed: f32,
    /// Position scale (m): the largest position the twin reads, whose rounding every length it
    /// computes carries.
    pub pos_scale: f32,
}

impl<B1: Pod, B2: Pod> ResolverCase<B1, B2> {
    /// The case with its bodies as words, as the registry hands it to a generic test.
    pub fn to_words(&self) -> ResolverCase<Vec<u32>, Vec<u32>> {
        ResolverCase {
            b1: bytemuck::cast_slice(bytemuck::bytes_of(&self.b1)).to_vec(),
            b2: bytemuck::cast_slice(bytemuck::bytes_of(&self.b2)).to_vec(),
            triangle: self.triangle,
            size: self.size,
            speed: self.speed,
            pos_scale: self.pos_scale,
        }
    }
}

impl ResolverCase<Vec<u32>, Vec<u32>> {
    /// The case with its bodies read back from words ([`ResolverCase::to_words`]).
    pub fn typed<B1: Pod, B2: Pod>(&self) -> ResolverCase<B1, B2> {
        ResolverCase {
            b1: bytemuck::pod_read_unaligned(bytemuck::cast_slice(&self.b1)),
            b2: bytemuck::pod_read_unaligned(bytemuck::cast_slice(&self.b2)),
            triangle: self.triangle,
            size: self.size,
            speed: self.speed,
            pos_scale: self.pos_scale,
        }
    }
}

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

    /// Body 1 of its twin `resolve_<stem>`, the harness's `b1`.
    type Body1: HarnessRecord;
    /// Body 2 of its twin, the harness's `b2`: a particle or a wall.
    type Body2: HarnessRecord;
    /// The arguments of its WGSL twin `resolve_<stem>`, from the harness's `b1`, `b2`, `t`
    /// (the triangle), `domain` and `dt`.
    const TWIN_ARGS: &'static str;
    /// Its CPU twin on the records of a parity case.
    fn twin(
        case: &ResolverCase<Self::Body1, Self::Body2>,
        domain: &DomainParams,
        dt: f32,
    ) -> ContactGeom;
    /// Random parity case `i` (the first few indices are edge cases).
    fn parity_case(rng: &mut SplitMix, i: usize) -> ResolverCase<Self::Body1, Self::Body2>;
    /// How far its twin moves when its inputs are rounded (normal, overlap, arms, point), where
    /// a direction amplifies that rounding beyond the fixed allowance of the parity test; zero
    /// (the default) where it does not.
    fn rounding_spread(
        _case: &ResolverCase<Self::Body1, Self::Body2>,
        _domain: &DomainParams,
        _dt: f32,
    ) -> [f32; 4] {
        [0.0; 4]
    }
}

/// Body 1 touching body 2 at `point`, `arm1` and `arm2` (m) from their centres, along `n`
/// (unit, from 1 to 2) with overlap `delta` (m): the geometry with the effective mass and the
/// relative velocity and spin at the contact point. The end of every resolver of two particles.
/// WGSL twin `body_contact` in `shaders/lib/contact.wgsl`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn body_contact(
    b1: &SphereBody,
    arm1: glam::Vec3,
    b2: &SphereBody,
    arm2: glam::Vec3,
    point: glam::Vec3,
    n: glam::Vec3,
    delta: f32,
    r_eff: f32,
    lengths: [f32; 2],
    fraction: f32,
    dt: f32,
) -> ContactGeom {
    use crate::kernels::v3;
    let inv_m = b1.inv_mass + b2.inv_mass;
    let m_eff = if inv_m > 0.0 { 1.0 / inv_m } else { 0.0 };
    let vc1 = v3(b1.vel) + v3(b1.omega).cross(arm1);
    let vc2 = v3(b2.vel) + v3(b2.omega).cross(arm2);
    ContactGeom {
        normal: n.to_array(),
        delta,
        point: point.to_array(),
        r_eff,
        vrel: (vc1 - vc2).to_array(),
        m_eff,
        arm1: arm1.to_array(),
        fraction,
        arm2: arm2.to_array(),
        dt,
        lengths,
        _pad: [0.0; 2],
        wrel: (v3(b1.omega) - v3(b2.omega)).to_array(),
        _pad2: 0.0,
        alignment: [0.0; 3],
        _pad3: 0.0,
    }
}

/// A capsule's centre, swept radius and motion, as [`body_contact`] reads a body. WGSL twin
/// `capsule_kinematics` in `shaders/lib/contact.wgsl`.
#[inline]
pub fn capsule_kinematics(b: &crate::kernel_types::CapsuleBody) -> SphereBody {
    SphereBody {
        pos: b.pos,
        radius: b.radius,
        vel: b.vel,
        inv_mass: b.inv_mass,
        omega: b.omega,
        _pad: 0.0,
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
pub(crate) fn load_capsule_at(i: usize, b: &Bodies<'_>) -> crate::kernel_types::CapsuleBody {
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
    pub triangles: &'a [crate::kernel_types::Triangle],
}
