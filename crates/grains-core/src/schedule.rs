//! The passes of one time step, in their order, built once from the world ([`Schedule::of`])
//! and walked by both backends: the GPU backend compiles and records a dispatch for each pass
//! it lists (`grains-gpu`'s plan), and the CPU backend runs the same passes in the same order,
//! free to run a span of them through one fused sweep (the contact chains of the neighbour
//! list, the gather and the halves: [`crate::cpu::CpuBackend`]). A pass the world does not
//! need (no clumps, no moving wall, no shell, no moving kinematic particle, no applied forces)
//! is not in the schedule, so neither backend pays for it.
//!
//! The step (docs/architecture.md, "One time step"): [`Schedule::head`] (the first half-step
//! and what follows the bodies' moves), the broad phase on the steps the largest
//! displacement asks for it, the contact chains ([`Schedule::chains`]), the gather,
//! [`Schedule::after_gather`] (what adds to or reads the gathered forces), in a step
//! [`Schedule::booked`] (what the ledger books of the step's forces), and the second half.

use crate::shapes::KIND_CLUMP;
use crate::world::World;

/// A per-particle (or per-wall, per-shell) pass of the step, named as its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pass {
    /// The drift and the first half kick.
    IntegrateFirstHalf,
    /// Clump members placed with their bodies.
    ClumpPlace,
    /// Moving walls and mesh walls' bodies set to their pose at this step.
    WallMotion,
    /// Mesh walls' triangles set where their bodies stand.
    MeshMotion,
    /// Each particle's sums of its pairs' forces.
    Gather,
    /// The shells' volumes, their edges' forces, and each node's share.
    ShellVolume,
    ShellEdges,
    ShellGather,
    /// Node-to-segment contact between rings: each slave's master segments, then each node's
    /// forces as a slave and a master.
    SurfaceContact,
    SurfaceGather,
    /// Clump bodies take their members' forces.
    ClumpGather,
    /// The work moving walls do on the particles.
    WallPower,
    /// The work the forces do on kinematic particles.
    KinematicPower,
    /// Applied forces join the gathered forces, and their work is booked.
    AppliedPower,
    /// The second half kick.
    IntegrateSecondHalf,
}

impl Pass {
    /// The stem of its WGSL file under `shaders/passes/` and of its CPU twin.
    pub fn stem(self) -> &'static str {
        match self {
            Pass::IntegrateFirstHalf => "integrate_first_half",
            Pass::ClumpPlace => "clump_place",
            Pass::WallMotion => "wall_motion",
            Pass::MeshMotion => "mesh_motion",
            Pass::Gather => "gather",
            Pass::ShellVolume => "shell_volume",
            Pass::ShellEdges => "shell_edges",
            Pass::ShellGather => "shell_gather",
            Pass::SurfaceContact => "surface_contact",
            Pass::SurfaceGather => "surface_gather",
            Pass::ClumpGather => "clump_gather",
            Pass::WallPower => "wall_power",
            Pass::KinematicPower => "kinematic_power",
            Pass::AppliedPower => "applied_power",
            Pass::IntegrateSecondHalf => "integrate_second_half",
        }
    }

    /// Whether it adds to the forces the gather summed (so the second half cannot follow the
    /// gather in the same sweep).
    pub fn adds_to_gathered(self) -> bool {
        matches!(
            self,
            Pass::ShellVolume
                | Pass::ShellEdges
                | Pass::ShellGather
                | Pass::SurfaceContact
                | Pass::SurfaceGather
                | Pass::ClumpGather
                | Pass::AppliedPower
        )
    }

    /// Invocations of the pass in `world`: one per particle, wall, shell or shell edge.
    pub fn items(self, world: &World) -> usize {
        match self {
            Pass::WallMotion => world.walls.len() + world.meshes.bodies.len(),
            Pass::MeshMotion => world.triangles.len(),
            Pass::ShellVolume => world.shells.shells.len(),
            Pass::ShellEdges => world.shells.edges.len(),
            _ => world.particles.len(),
        }
    }
}

/// The step's passes for one world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The first half-step, then what follows the bodies' moves before any rebuild or contact.
    pub head: Vec<Pass>,
    /// The contact chains, by chain id: the neighbour list's first (its sums are the
    /// particles' first), then the others. Each chain writes slots of its own, so their order
    /// changes nothing the gather sums.
    pub chains: Vec<u32>,
    /// After the gather, before the second half: what adds to the gathered forces or reads
    /// them (shells, clump bodies, moving walls' power).
    pub after_gather: Vec<Pass>,
    /// After those in a step, not in the initial forces: what the ledger books of the step
    /// (the applied forces, which join the gathered forces here, with their work).
    pub booked: Vec<Pass>,
}

impl Schedule {
    /// The schedule of `world`.
    pub fn of(world: &World) -> Schedule {
        let clumps = world
            .particles
            .shape_table()
            .iter()
            .any(|s| s.kind == KIND_CLUMP);
        let moving = world.walls.iter().any(|w| w.moves());
        let meshes = world.meshes.move_any();
        let mut head = vec![Pass::IntegrateFirstHalf];
        // Members follow their bodies after the drift; walls take their pose for the step, and
        // mesh walls' triangles their bodies'.
        head.extend(clumps.then_some(Pass::ClumpPlace));
        head.extend(world.walls_move().then_some(Pass::WallMotion));
        head.extend(meshes.then_some(Pass::MeshMotion));
        let mut chains: Vec<u32> = (0..world.table.chains.len() as u32).collect();
        chains.sort_by_key(|&c| !world.table.chains[c as usize].source.in_list());
        let mut after_gather = Vec::new();
        if !world.shells.is_empty() {
            after_gather.extend([Pass::ShellVolume, Pass::ShellEdges, Pass::ShellGather]);
        }
        if world.shells.has_surface_contact() {
            after_gather.extend([Pass::SurfaceContact, Pass::SurfaceGather]);
        }
        after_gather.extend(clumps.then_some(Pass::ClumpGather));
        after_gather.extend(moving.then_some(Pass::WallPower));
        let mut booked = Vec::new();
        booked.extend(world.kinematic.then_some(Pass::KinematicPower));
        // Last: an applied force acts on free particles only, which `kinematic_power` leaves.
        booked.extend(world.applied_forces.then_some(Pass::AppliedPower));
        Schedule {
            head,
            chains,
            after_gather,
            booked,
        }
    }

    /// Whether `pass` is in the schedule.
    pub fn has(&self, pass: Pass) -> bool {
        self.head.contains(&pass)
            || self.after_gather.contains(&pass)
            || self.booked.contains(&pass)
    }

    /// Whether nothing runs between the gather and the second half, so that a backend may fuse
    /// them (and, where nothing reads the positions between the step's end and the next
    /// step's first half, that first half too).
    pub fn gather_meets_kick(&self) -> bool {
        self.after_gather.is_empty() && self.booked.is_empty()
    }

    /// Every pass of a step in order, the contact chains as one entry (`None`) before the
    /// gather and the broad phase left out (it runs on the steps that need it, between the
    /// head and the chains).
    pub fn step(&self) -> Vec<Option<Pass>> {
        let mut out: Vec<Option<Pass>> = self.head.iter().copied().map(Some).collect();
        out.push(None);
        out.push(Some(Pass::Gather));
        out.extend(self.after_gather.iter().copied().map(Some));
        out.extend(self.booked.iter().copied().map(Some));
        out.push(Some(Pass::IntegrateSecondHalf));
        out
    }
}
