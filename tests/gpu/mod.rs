//! CPU/GPU parity of every element, pass and scene, and GPU determinism.
//!
//! The GPU runs f32 like the CPU twins, in the same order of operations, but a driver may fuse
//! a multiply and an add or round a division or square root differently by an ulp. Tolerances
//! are therefore relative to a per-output scale (stated at each comparison) and small; whole
//! scenes allow more as differences grow with steps, while discrete results (neighbour lists,
//! candidate pairs, rebuild steps) must match exactly.
//!
//! No adapter: skipped with a message, or failed under `CI=true` / `GRAINS_REQUIRE_GPU=1`.
//! Lavapipe (Vulkan on the CPU) counts as an adapter, so CI runs all of this.

mod bindings;
mod capacity;
mod passes;
mod runs;
mod scenes;
mod solve;
mod twins;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use grains_core::kernel_types::PairSlot;
use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::law::Word;
use grains_core::{Backend, CpuBackend, Domain, Particles, World};
use grains_gpu::{AdapterRequest, GpuBackend, GpuContext, GpuOptions};
use grains_tests::worlds::*;

/// The shared device, or `None` (with a message) when there is none and none is required.
pub(crate) fn gpu_context() -> Option<GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    let ctx = CTX.get_or_init(|| match GpuContext::new(AdapterRequest::Any) {
        Ok(c) => Some(c),
        Err(e) => {
            if grains_tests::gpu_required() {
                panic!("a GPU adapter is required (CI / GRAINS_REQUIRE_GPU) but: {e}");
            }
            eprintln!("skipping GPU test: {e}");
            None
        }
    });
    ctx.clone()
}

fn gpu(world: World, ctx: &GpuContext) -> GpuBackend {
    GpuBackend::new(world, ctx).unwrap_or_else(|e| panic!("{e}"))
}

fn cpu(world: World) -> CpuBackend {
    CpuBackend::new(world).unwrap_or_else(|e| panic!("{e}"))
}

/// Largest |a - b| over xyz of two vec4 arrays, and the largest |a| (the scale).
fn max_diff4(a: &[[f32; 4]], b: &[[f32; 4]]) -> (f32, f32) {
    assert_eq!(a.len(), b.len());
    let mut d = 0.0f32;
    let mut s = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        for k in 0..3 {
            d = d.max((x[k] - y[k]).abs());
            s = s.max(x[k].abs());
        }
    }
    (d, s)
}

/// Largest coordinate difference of two position arrays (m), by minimum image on periodic
/// axes: a particle may sit just across a periodic face on one backend.
fn max_pos_diff(a: &[[f32; 4]], b: &[[f32; 4]], d: &Domain) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(a, b)| {
            (0..3).map(move |k| {
                let l = (d.max[k] - d.min[k]) as f32;
                let mut e = (a[k] - b[k]).abs();
                if d.periodic[k] {
                    e = e.min(l - e);
                }
                e
            })
        })
        .fold(0.0f32, f32::max)
}

// ---------------------------------------------------------------------------------------------
// Worlds

/// Hertz + viscous (e = 0.5) + Mindlin Cundall-Strack (mu 0.5): the benchmark chain.
fn full_chain() -> grains_core::materials::Interaction {
    self_interaction(
        hertz(),
        Some(0.5),
        Some((0.5, 0.5)),
        TangentialStiffness::Mindlin,
    )
}

/// Two spheres head on, through contact and out.
fn two_spheres() -> World {
    let r = 1e-3;
    let mut p = Particles::default();
    p.push_sphere(
        [-1.05e-3, 0.0, 0.0],
        r,
        [0.5, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    p.push_sphere(
        [1.05e-3, 2e-5, 0.0],
        r,
        [-0.5, 0.0, 0.0],
        [0.0, 0.0, 50.0],
        0,
        2500.0,
        false,
    );
    world(
        p,
        vec![],
        material("glass", 1e7, 2500.0),
        full_chain(),
        open_domain(0.01),
        [0.0; 3],
        1e-6,
        2e-4,
    )
}

/// A few spheres dropped on a plane under gravity.
fn sphere_on_plane() -> World {
    let p = lattice_particles(
        [-4e-3, -4e-3, 0.2e-3],
        [4e-3, 4e-3, 2.5e-3],
        0.9e-3,
        2e-3,
        2500.0,
        0.05,
        10.0,
        7,
    );
    let walls = vec![wall([0.0, 0.0, 0.0], [0.0, 0.0, 1.0])];
    world(
        p,
        walls,
        material("glass", 1e7, 2500.0),
        full_chain(),
        Domain {
            min: [-5e-3, -5e-3, -1e-3],
            max: [5e-3, 5e-3, 9e-3],
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        2e-4,
    )
}

/// A packing settling in a walled box.
fn settling_box(seed: u64) -> World {
    settling_box_spaced(seed, 1.15e-3)
}

/// As [`settling_box`] with the lattice spacing given (1.05e-3: every particle starts with its
/// six lattice neighbours in the candidate list).
fn settling_box_spaced(seed: u64, spacing: f64) -> World {
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let p = lattice_particles(lo, hi, 0.5e-3, spacing, 2500.0, 0.2, 20.0, seed);
    world(
        p,
        box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]),
        material("glass", 1e7, 2500.0),
        full_chain(),
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    )
}

/// A granular gas in a periodic box.
fn periodic_gas(seed: u64) -> World {
    let (lo, hi) = ([0.0; 3], [1.2e-2; 3]);
    let p = lattice_particles(lo, hi, 0.4e-3, 1.0e-3, 2500.0, 2.0, 100.0, seed);
    world(
        p,
        vec![],
        material("glass", 1e7, 2500.0),
        full_chain(),
        Domain {
            min: lo,
            max: hi,
            periodic: [true; 3],
        },
        [0.0; 3],
        2e-6,
        1e-4,
    )
}

// ---------------------------------------------------------------------------------------------
// Passes: one rebuild and one force evaluation from the same state.

/// The neighbour list is exactly the CPU's; slots, gathered forces and one integrator step agree.
fn pass_parity(world: World, ctx: &GpuContext) {
    let mut c = cpu(world.clone());
    let mut g = gpu(world, ctx);
    let n = c.pos.len();
    let (c_j, c_pair) = c.list.to_full();
    // Each record's owner, which the GPU's neighbour source and carry start from.
    let c_i: Vec<u32> =
        grains_core::kernels::passes::pair_record::entry_owners(&c.list.pair_start).collect();
    let total = c_j.len();
    assert_eq!(g.neighbour_entries() as usize, total, "neighbour total");
    let start: Vec<u32> = g.read_buffer("nbr_start", n + 1).unwrap();
    assert_eq!(start, c.list.nbr_start, "nbr_start");
    // The device keeps each pair once, as the CPU does: each record's partner, each head
    // entry's record.
    let records = c_i.len();
    let pj: Vec<u32> = g.read_buffer("pair_j", records).unwrap();
    let hp: Vec<u32> = g.read_buffer("head_pair", total - records).unwrap();
    assert_eq!(pj, c.list.pair_j, "pair_j");
    assert_eq!(hp, c.list.head_pair, "head_pair");
    // The full list a state keeps, from it.
    let full = g.state();
    let (nj, np) = (full.nbr_j, full.nbr_pair);
    assert_eq!(nj, c_j, "nbr_j");
    assert_eq!(np, c_pair, "nbr_pair");

    // Contact slots: relative 1e-4 of the largest force in the scene (several f32 operations
    // through resolver, three laws and assembly, each within its own 1e-5 tolerance). The
    // device packs them in the order its invocations run; the state lays them out in record
    // order, where the same records are in contact.
    let (gst, cst) = (g.state(), c.state());
    assert_eq!(gst.nbr_slot, cst.nbr_slot, "records in contact");
    let slots = gst.slots.clone();
    assert_eq!(slots.len(), cst.slots.len(), "packed slots");
    let fmax = cst
        .slots
        .iter()
        .flat_map(|s| s.force)
        .fold(0.0f32, |a, x| a.max(x.abs()));
    for (k, (a, b)) in cst.slots.iter().zip(&slots).enumerate() {
        for d in 0..3 {
            assert!(
                (a.force[d] - b.force[d]).abs() <= 1e-4 * fmax + 1e-30,
                "slot {k} force {:?} vs {:?}",
                a.force,
                b.force
            );
        }
    }
    // History: the flags and states (words the laws declare exact) are equal.
    let t = &c.world.table;
    let stride = t.nbr_history_stride;
    // Packed as the slots, in record order in both states.
    let records = cst.slots.len();
    let history = &gst.history;
    assert_eq!(history.len(), cst.history.len(), "packed history");
    let chain = &t.chains[t.sphere_chain[0] as usize];
    for (law, &(_, _, ho, _)) in chain.laws.iter().zip(&chain.layout().laws) {
        for (w, kind) in law.history_words().iter().enumerate() {
            if *kind != Word::Exact {
                continue;
            }
            for k in 0..records {
                let i = k * stride + ho + w;
                assert_eq!(
                    cst.history[i], history[i],
                    "record {k} {law:?} history word {w}"
                );
            }
        }
    }

    // Gathered force and torque: same tolerance against the largest total.
    let gs = g.snapshot();
    let (df, sf) = max_diff4(&c.force, &gs.force);
    assert!(df <= 1e-4 * sf + 1e-30, "force diff {df} (scale {sf})");
    let (dt, st) = max_diff4(&c.torque, &gs.torque);
    assert!(dt <= 1e-4 * st + 1e-30, "torque diff {dt} (scale {st})");

    // One step of the integrator: positions to 1e-6 of the largest coordinate, velocities to
    // 1e-5 of the largest speed (the force enters dt/2 at a time).
    c.step();
    g.step();
    let gs = g.snapshot();
    let (dx, sx) = max_diff4(&c.pos, &gs.pos);
    assert!(dx <= 1e-6 * sx, "pos diff {dx} (scale {sx})");
    let (dv, sv) = max_diff4(&c.vel, &gs.vel);
    assert!(dv <= 1e-5 * sv, "vel diff {dv} (scale {sv})");
    let (dw, sw) = max_diff4(&c.omega, &gs.omega);
    assert!(dw <= 1e-5 * sw + 1e-30, "omega diff {dw} (scale {sw})");
    let (dq, _) = max_diff4(&c.quat, &gs.quat);
    assert!(dq <= 1e-6, "quat diff {dq}");
}

/// A dense packing started with `opts`' capacities, too small for its first list: the
/// initial rebuild replays into grown buffers and yields the CPU's pairs, then 40 steps later
/// the CPU's pairs and positions. Both backends come back for further checks.
fn overflow_at_start(ctx: &GpuContext, opts: GpuOptions, spacing: f64) -> (CpuBackend, GpuBackend) {
    let world = settling_box_spaced(23, spacing);
    let mut g = GpuBackend::with_options(world.clone(), ctx, opts).unwrap();
    let mut c = cpu(world);
    assert!(g.list_grows() > 0, "the list should have grown at start");
    assert!(
        c.candidate_pairs() == g.candidate_pairs(),
        "pairs differ at start"
    );
    c.run(40);
    g.run(40);
    assert!(c.candidate_pairs() == g.candidate_pairs(), "pairs differ");
    (c, g)
}

/// Records to spare, one packed slot per particle: in the dense lattice only the slots grow.
fn slots_alone_options() -> GpuOptions {
    GpuOptions {
        initial_records_per_particle: 64,
        initial_slots_per_particle: 1,
        check_every: 8,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    }
}

/// The records in contact are the CPU's, their forces within the pass parity's tolerance
/// (relative 1e-4 of the largest), and so are the contact counts. The list's owners and
/// records, which a replay writes again rather than restoring them, are the CPU's exactly.
fn assert_packed_slots_match(c: &mut CpuBackend, g: &mut GpuBackend) {
    let (cs, gs) = (c.state(), g.state());
    assert_eq!(cs.nbr_start, gs.nbr_start, "entry starts");
    assert_eq!(cs.nbr_pair, gs.nbr_pair, "records");
    assert_eq!(cs.nbr_slot, gs.nbr_slot, "records in contact");
    let fmax = cs
        .slots
        .iter()
        .flat_map(|s| s.force)
        .fold(0.0f32, |a, x| a.max(x.abs()));
    for (k, (a, b)) in cs.slots.iter().zip(&gs.slots).enumerate() {
        for d in 0..3 {
            assert!(
                (a.force[d] - b.force[d]).abs() <= 1e-4 * fmax,
                "slot {k}: {:?} vs {:?}",
                a.force,
                b.force
            );
        }
    }
    assert_eq!(c.contacts(), g.contacts(), "contacts");
}
