//! Plain-old-data mirrors of the WGSL structs in `shaders/lib/types.wgsl`.
//!
//! Every struct here is `#[repr(C)]` and laid out by WGSL's storage-buffer rules: a
//! `vec3<f32>` (here `[f32; 3]`) is 16-byte aligned and the scalar after it fills its fourth
//! lane. The layout test in `tests/` compares these offsets with what naga reports for the
//! WGSL side, so a field added here without its twin fails the build's tests.
//!
//! Law parameter and history structs live in their law's module (`kernels/laws/`), next to the
//! law, and in its WGSL file.

use bytemuck::{Pod, Zeroable};

/// One sphere as a resolver reads it (both bodies of a pair are gathered into this form).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SphereBody {
    /// Centre (m).
    pub pos: [f32; 3],
    /// Radius (m).
    pub radius: f32,
    /// Translational velocity (m/s).
    pub vel: [f32; 3],
    /// Inverse mass (1/kg); 0 for a fixed particle.
    pub inv_mass: f32,
    /// Angular velocity (rad/s).
    pub omega: [f32; 3],
    pub _pad: f32,
}

/// A capsule as its resolvers read it: a segment of half-length `half_length` along the unit
/// `axis` (world frame) through `pos`, swept by a sphere of `radius`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CapsuleBody {
    /// Centre of the segment (m).
    pub pos: [f32; 3],
    /// Radius of the swept sphere (m); not the bounding radius.
    pub radius: f32,
    /// Translational velocity (m/s).
    pub vel: [f32; 3],
    /// Inverse mass (1/kg); 0 for a fixed particle.
    pub inv_mass: f32,
    /// Angular velocity (rad/s).
    pub omega: [f32; 3],
    /// Half the segment's length (m); 0 makes the capsule a sphere.
    pub half_length: f32,
    /// Unit axis of the segment, world frame.
    pub axis: [f32; 3],
    pub _pad: f32,
}

/// A triangle of a mesh wall, its vertices relative to the centre of the particle that carries
/// it (m), so that a translating mesh moves its triangles with its particles.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Triangle {
    pub a: [f32; 3],
    /// The mesh wall it belongs to: its body among [`crate::mesh_walls::MeshBodies`].
    pub body: u32,
    pub b: [f32; 3],
    pub _pad_b: f32,
    pub c: [f32; 3],
    pub _pad_c: f32,
}

/// A wall: an infinite plane, an infinite cylinder or a flat disk, optionally moving.
///
/// - plane (`kind` [`WALL_PLANE`]): points `x` with `(x - point) . normal >= 0` are inside the
///   domain;
/// - cylinder ([`WALL_CYLINDER`]): the axis through `point` along the unit `normal`, of
///   `radius`; particles stay outside it, or inside it when `hollow` is 1 (a drum);
/// - disk ([`WALL_DISK`]): centred on `point` with unit `normal` and `radius`, touched from
///   either side;
/// - cone ([`WALL_CONE`]): a hopper's shell, open at both ends: the orifice of `radius` at
///   `point`, the axis `normal` pointing up into the hopper, the radius growing by `slope` per
///   metre; particles stay inside, and the orifice's rim is a wall too.
///
/// Motion: while `start <= t < stop` the wall moves with `velocity` and turns with `omega`
/// (rad/s) about `center`, which moves with it (`kernels/passes/wall_motion.rs`); `moving` says
/// whether it moves during the current step, `steps` counts the steps it has taken and `moved`
/// those it moved in. A wall driven by a table of poses (`table_rows > 0`) takes its pose from
/// the table instead, its velocity and spin those of the table's segment.
///
/// The same record is a mesh wall's body ([`MESH_BODY`], [`crate::mesh_walls::MeshBodies`]):
/// its motion as a wall's, `point - center` and `normal` its frame's x and z axes, which the
/// motion turns, and the triangles follow it (`kernels/passes/mesh_motion.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Wall {
    /// A point on the plane, on the cylinder's axis, or the disk's centre (m).
    pub point: [f32; 3],
    /// Material index of the wall.
    pub material: u32,
    /// Unit normal pointing into the domain (plane), axis (cylinder) or normal (disk).
    pub normal: [f32; 3],
    /// Cylinder or disk radius (m).
    pub radius: f32,
    /// Translation velocity while moving (m/s).
    pub velocity: [f32; 3],
    /// [`WALL_PLANE`], [`WALL_CYLINDER`] or [`WALL_DISK`].
    pub kind: u32,
    /// Angular velocity about `center` while moving (rad/s).
    pub omega: [f32; 3],
    /// 1: particles inside a cylinder; 0: outside.
    pub hollow: u32,
    /// Centre of rotation (m), moving with the wall.
    pub center: [f32; 3],
    /// Time the motion starts (s).
    pub start: f32,
    /// Time the motion stops (s).
    pub stop: f32,
    /// Steps taken (the wall's clock: `t = steps dt`).
    pub steps: u32,
    /// 1 while the wall moves during the current step.
    pub moving: u32,
    /// Steps it has moved so far: its pose is its initial pose carried by `moved dt` of
    /// motion, computed afresh each step so that rounding does not accumulate.
    pub moved: u32,
    /// Cone: the tangent of its half-angle from the axis (its radius grows by `slope` per
    /// metre up the axis from the orifice of `radius` at `point`).
    pub slope: f32,
    /// First row of its motion table in the world's table of poses
    /// ([`crate::mesh_walls::MeshBodies::poses`]).
    pub table_start: u32,
    /// Rows of its motion table; 0 for none.
    pub table_rows: u32,
    /// 1 for a wall a servo steers ([`crate::servo`]): it moves whatever its velocity now.
    pub steered: u32,
}

/// [`Wall::kind`] of a mesh wall's body: not an analytic wall (no resolver, never a
/// candidate), the record its triangles move with.
pub const MESH_BODY: u32 = 0xffff;

impl Wall {
    /// A plane wall of `material` through `point` with inward unit `normal`, at rest.
    pub fn plane(point: [f32; 3], normal: [f32; 3], material: u32) -> Wall {
        Wall {
            point,
            material,
            normal,
            kind: crate::kernels::walls::WALL_PLANE,
            center: point,
            stop: f32::INFINITY,
            ..Default::default()
        }
    }

    /// Whether it is given a motion.
    pub fn moves(&self) -> bool {
        self.velocity != [0.0; 3]
            || self.omega != [0.0; 3]
            || self.table_rows > 0
            || self.steered != 0
    }

    /// Velocity of the wall's surface at `x` (m/s): zero unless it moves during this step.
    pub fn velocity_at(&self, x: glam::Vec3) -> glam::Vec3 {
        if self.moving == 0 {
            return glam::Vec3::ZERO;
        }
        let (v, w, c) = (
            glam::Vec3::from(self.velocity),
            glam::Vec3::from(self.omega),
            glam::Vec3::from(self.center),
        );
        v + w.cross(x - c)
    }
}

/// The simulation domain as resolvers and the integrator see it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct DomainParams {
    /// Lower corner (m).
    pub min: [f32; 3],
    /// Bit k set: axis k is periodic.
    pub periodic_mask: u32,
    /// Upper corner (m).
    pub max: [f32; 3],
    pub _pad0: u32,
    /// Edge lengths `max - min` (m), kept to avoid recomputing them per pair.
    pub length: [f32; 3],
    pub _pad1: u32,
}

/// What a geometry resolver hands to the laws of a chain.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactGeom {
    /// Unit normal from body 1 to body 2.
    pub normal: [f32; 3],
    /// Overlap (m), positive when the surfaces interpenetrate.
    pub delta: f32,
    /// Contact point (m), in the middle of the overlap.
    pub point: [f32; 3],
    /// Effective radius `R* = R1 R2 / (R1 + R2)` (m); `R1` against a plane.
    pub r_eff: f32,
    /// Velocity of body 1 relative to body 2 at the contact point (m/s).
    pub vrel: [f32; 3],
    /// Effective mass `m* = 1 / (1/m1 + 1/m2)` (kg).
    pub m_eff: f32,
    /// Lever arm from body 1's centre to the contact point (m).
    pub arm1: [f32; 3],
    /// Fraction of the contact that is active (1 for spheres and planes).
    pub fraction: f32,
    /// Lever arm from body 2's centre to the contact point (m); zero for a wall.
    pub arm2: [f32; 3],
    /// Time step (s), for laws with an incremental history.
    pub dt: f32,
    /// Contact lengths `l1, l2` (m) of Woo's linear model.
    pub lengths: [f32; 2],
    pub _pad: [f32; 2],
    /// Angular velocity of body 1 relative to body 2, `w1 - w2` (rad/s), for rolling and
    /// torsional laws.
    pub wrel: [f32; 3],
    pub _pad2: f32,
    /// Of two capsules whose contact point projects inside both their segments,
    /// `(t1 . t2) (t1 x t2) / (|t1|^2 |t2|^2)` of their axes (`cos sin` of their angle about
    /// their common normal, for `dmt_capsule`); zero otherwise.
    pub alignment: [f32; 3],
    pub _pad3: f32,
}

/// What the laws of a chain accumulate; the assembly turns it into forces on both bodies.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactForce {
    /// Force on body 1 (N); body 2 receives the opposite.
    pub force: [f32; 3],
    /// Magnitude of the normal force so far (N, never negative), for Coulomb limits.
    pub normal_force: f32,
    /// Torque on body 1 not produced by `force` through the lever arm (N m).
    pub torque1: [f32; 3],
    /// Tangent normal stiffness `dF_n/d delta` of the normal law (N/m), for damping and
    /// tangential laws that scale with it.
    pub stiffness: f32,
    /// Torque on body 2 not produced by `force` through the lever arm (N m).
    pub torque2: [f32; 3],
    /// Elastic energy stored in the contact (J).
    pub elastic: f32,
    /// Energy dissipated by damping during this step (J).
    pub damping_dissipated: f32,
    /// Energy dissipated by friction slip during this step (J).
    pub friction_dissipated: f32,
    /// Friction along the normal (N s/m) the resistance laws declare: the friction matrix
    /// block `gamma_n n n^T + gamma_t (I - n n^T)` of the implicit dynamics modes.
    pub gamma_n: f32,
    /// Friction across the normal (N s/m), the block's other half.
    pub gamma_t: f32,
    /// Stiffness across the normal (N/m) a law declares beside its normal `stiffness`: the
    /// stiffness block `stiffness n n^T + stiffness_t (I - n n^T)` (a spring's
    /// `k (1 - L0/L)`, the turn of a stretched spring).
    pub stiffness_t: f32,
    /// Contact area (m^2) a normal law declares, for the area-weighted resistances; 0 where it
    /// declares none.
    pub area: f32,
    pub _pad: [f32; 2],
}

/// Result of one pair's chain, gathered per particle.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairSlot {
    /// Force on body 1 (N).
    pub force: [f32; 3],
    /// Elastic energy stored in the contact (J).
    pub elastic: f32,
    /// Total torque on body 1 (N m).
    pub torque1: [f32; 3],
    /// Energy dissipated by damping this step (J).
    pub damping_dissipated: f32,
    /// Total torque on body 2 (N m).
    pub torque2: [f32; 3],
    /// Energy dissipated by friction this step (J).
    pub friction_dissipated: f32,
}

/// Constants of one time step, shared by the passes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StepParams {
    /// Gravity (m/s^2).
    pub gravity: [f32; 3],
    /// Time step (s).
    pub dt: f32,
    /// Number of particles.
    pub n_particles: u32,
    /// Number of plane walls.
    pub n_walls: u32,
    /// Number of materials.
    pub n_materials: u32,
    /// Skin distance of the candidate list (m).
    pub skin: f32,
    /// Always 1.0. Compensated sums multiply by it where an exact value must not be seen as
    /// algebraically known: shader compilers (Mesa's NIR among them) may rewrite
    /// `((a + b) - a) - b` to 0 and so silently undo a Kahan summation; `a * unit` hides the
    /// identity without changing any value.
    pub unit: f32,
    /// History words per neighbour-list entry (the pair table's `nbr_history_stride`).
    pub nbr_history_stride: u32,
    /// Number of fixed-topology pairs (the fixed source's slots).
    pub n_fixed: u32,
    /// Speed beyond which a free particle is a fault (m/s): the run's guard
    /// ([`crate::world::World::speed_limit`]); infinity turns the check off.
    pub max_speed: f32,
    /// 1 where the world has neighbour-list chains: their contact passes leave each owner's
    /// side of its records in contact in `force` and `torque` (the damping and friction
    /// dissipation in their `w`), and the gather starts from it; 0 where it starts from zero.
    pub own_sums: u32,
    /// 1 in a planar world ([`crate::World::planar`]): the kicks drop the velocity's z and
    /// the spin's x and y.
    pub planar: u32,
    /// The time of the kicks (s): `dt / 2` (the same f32 as `0.5 * dt`) in the inertial
    /// dynamics; 0 in the implicit modes, whose solve sets the velocities, so the first half
    /// only moves each particle by `v dt` ([`crate::dynamics`]). A factor rather than a test, so
    /// the kicks stay branch-free.
    pub kick: f32,
    /// Number of mesh walls' bodies, after the walls in the walls' array.
    pub n_bodies: u32,
    /// Number of mesh walls' triangles: the last particles.
    pub n_triangles: u32,
    /// First particle of the division pool ([`crate::cells`]): its particles `first + 2k` and
    /// `first + 2k + 1` are the halves of division pair k; 0 in a world without one (a colony
    /// starts from a cell, so its pool never starts at particle 0).
    pub division_first: u32,
    /// Index of division pair 0 among the fixed pairs.
    pub division_pairs: u32,
    pub _pad5: u32,
}

/// One pair of a pair source, as the contact pass reads it (`kernels/sources`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SourcePair {
    /// Body 1: a particle.
    pub p: u32,
    /// Body 2: a particle, or a wall's index for the wall source.
    pub q: u32,
    /// Entry of the pair table: `material(p) * n_materials + material(q)`.
    pub table: u32,
    /// 1 when this invocation evaluates the pair (the neighbour list holds each pair twice).
    pub owns: u32,
}

/// Uniform cell grid of the broad phase.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GridParams {
    /// Lower corner of the grid (m).
    pub origin: [f32; 3],
    /// Candidate cut-off beyond touching: skin plus the largest interaction range (m).
    pub cutoff: f32,
    /// Cell edge lengths (m).
    pub cell_size: [f32; 3],
    /// Total number of cells.
    pub n_cells: u32,
    /// Cells per axis.
    pub dims: [u32; 3],
    /// Bit k set: axis k wraps around.
    pub periodic_mask: u32,
}

/// Constants of the implicit dynamics' solve on the GPU (`shaders/lib/solve.wgsl`,
/// [`crate::kernels::solve`]): the mode's weights and where the blocks are kept.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SolveParams {
    /// Weights of a pair's friction and stiffness blocks and of a particle's mass and drag on
    /// its diagonal ([`crate::dynamics::Coefficients`]).
    pub coef: [f32; 4],
    /// The underdamped mode's explicit part: the weights of the friction and stiffness blocks
    /// at this step's velocities (1 and `lambda dt`).
    pub explicit_gamma: f32,
    pub explicit_stiffness: f32,
    /// A moving wall's known value per unit of its velocity: 1 (overdamped: velocities), 0
    /// (underdamped: accelerations), `dt` (static: displacements).
    pub wall_factor: f32,
    /// 1 overdamped, 2 underdamped, 3 static.
    pub mode: u32,
    /// Words of a neighbour-list history record as the device packs them (the pair table's
    /// `nbr_history_words`).
    pub history_words: u32,
    /// Words of a fixed pair's history record (`fixed_history_stride`).
    pub fixed_stride: u32,
    /// The implicitness lambda.
    pub lambda: f32,
    pub _pad1: u32,
}

/// A pair's blocks as the solve's rows read them: the record's `contact_matrix` blocks and,
/// for a neighbour-list record, its owner (the row of the partner below reaches it through
/// its head), or `NO_BLOCK` in `partner` for a record without blocks.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MatBlock {
    pub normal: [f32; 3],
    pub partner: u32,
    pub gamma_n: f32,
    pub gamma_t: f32,
    pub stiffness_n: f32,
    pub stiffness_t: f32,
}

/// A particle's preconditioner block, symmetric: (xx, yy, zz, xy), (xz, yz, 0, 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SymBlock {
    pub p0: [f32; 4],
    pub p1: [f32; 4],
}
