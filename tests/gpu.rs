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

use std::collections::BTreeMap;
use std::sync::OnceLock;

use grains_core::gpu_types::PairSlot;
use grains_core::kernels::laws::cundall_strack::TangentialStiffness;
use grains_core::law::Word;
use grains_core::{Backend, CpuBackend, Domain, Particles, World};
use grains_gpu::{AdapterRequest, GpuBackend, GpuContext, GpuOptions};
use grains_tests::worlds::*;

/// The shared device, or `None` (with a message) when there is none and none is required.
fn gpu_context() -> Option<GpuContext> {
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

#[test]
fn passes_match_cpu_on_a_settling_box() {
    let Some(ctx) = gpu_context() else { return };
    pass_parity(settling_box(3), &ctx);
}

#[test]
fn passes_match_cpu_on_a_periodic_gas() {
    let Some(ctx) = gpu_context() else { return };
    pass_parity(periodic_gas(5), &ctx);
}

/// A state taken where spheres' orientations were tracked resumes where they are not (a
/// checkpoint written before the key existed, or resumed with it changed), and the other way,
/// on both backends: the orientations are dropped, or start as the identity, and the rest of
/// the state is taken up as it was (the positions bit for bit).
#[test]
fn a_state_resumes_whether_or_not_its_world_tracks_orientations() {
    let Some(ctx) = gpu_context() else { return };
    let untracked = periodic_gas(3);
    let mut tracked = untracked.clone();
    tracked.particles.set_sphere_orientation(true);
    let n = tracked.particles.len();
    let mut c = cpu(tracked.clone());
    c.run(20);
    let s = c.state();
    assert_eq!(
        s.quat.len(),
        n,
        "a tracked world's state holds its orientations"
    );
    assert!(s.quat.iter().any(|q| *q != grains_core::shapes::IDENTITY));
    let mut cu = CpuBackend::from_state(untracked.clone(), s.clone()).expect("cpu resumes");
    assert!(cu.quat.is_empty(), "cpu: the orientations are dropped");
    assert_eq!(cu.snapshot().pos, c.snapshot().pos);
    let mut gu = GpuBackend::from_state(untracked, &ctx, &s).expect("gpu resumes");
    let snap = gu.snapshot();
    assert!(snap.quat.is_empty(), "gpu: the orientations are dropped");
    assert_eq!(snap.pos, c.snapshot().pos);
    let su = cu.state();
    assert!(su.quat.is_empty());
    let identity = vec![grains_core::shapes::IDENTITY; n];
    let ct = CpuBackend::from_state(tracked.clone(), su.clone()).expect("cpu resumes");
    assert_eq!(
        ct.quat, identity,
        "cpu: the orientations start as the identity"
    );
    let mut gt = GpuBackend::from_state(tracked, &ctx, &su).expect("gpu resumes");
    assert_eq!(gt.snapshot().quat.to_vec(), identity, "gpu: the same");
}

/// A sphere whose orientation is not tracked (the default) keeps none: neither backend holds
/// an orientation array, and each reports the identity. Where spheres are tracked, a particle
/// without spin keeps its orientation bit for bit (neither twin renormalises it: a
/// frictionless sphere never turns, and the gas skips the square root and divides); one with
/// spin turns as the closed form has it, `q(t) = (sin(θ/2) ŵ, cos(θ/2)) q(0)` with `θ = |w| t`,
/// alike on both backends. Over ten steps of 2 us a few of the spheres (1 mm apart, radius
/// 0.4 mm, up to 2 m/s) touch, and their contacts change their spins: the closed form is
/// checked on those whose spin did not change.
#[test]
fn spheres_turn_with_their_spin_only_where_tracked_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    let q0 = [0.1f32, 0.2, 0.3, (1.0f32 - 0.14).sqrt()];
    let spin = [50.0f32, -20.0, 10.0];
    let steps = 10;
    for tracked in [false, true] {
        let mut w = periodic_gas(7);
        w.particles.set_sphere_orientation(tracked);
        let n = w.particles.len();
        for i in 0..n {
            w.particles.quat[i] = q0;
            let s = if i % 2 == 0 { [0.0; 3] } else { spin };
            let inv_i = w.particles.omega[i][3];
            w.particles.omega[i] = [s[0], s[1], s[2], inv_i];
        }
        let dt = w.dt;
        let (mut c, mut g) = (cpu(w.clone()), gpu(w, &ctx));
        assert_eq!(c.contacts().pairs, 0, "the spheres should not touch");
        for _ in 0..steps {
            c.step();
            g.step();
        }
        let gs = g.snapshot();
        if !tracked {
            assert!(
                c.quat.is_empty(),
                "cpu: untracked spheres hold orientations"
            );
            assert!(
                gs.quat.is_empty(),
                "gpu: untracked spheres report orientations"
            );
            let (cs, gst) = (c.state(), g.state());
            assert!(
                cs.quat.is_empty() && gst.quat.is_empty(),
                "states hold orientations"
            );
            continue;
        }
        // The closed form, in f64: the turn about the spin's axis by |w| t, applied to q0.
        let wl = spin.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
        let half = 0.5 * wl * dt * steps as f64;
        let (s, cth) = (half.sin() / wl, half.cos());
        let a = [
            spin[0] as f64 * s,
            spin[1] as f64 * s,
            spin[2] as f64 * s,
            cth,
        ];
        let b = q0.map(|x| x as f64);
        let turned = [
            a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
            a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
            a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]),
        ];
        let mut checked = 0;
        for i in 0..n {
            let (a, b) = (c.quat[i], gs.quat[i]);
            let s = if i % 2 == 0 { [0.0; 3] } else { spin };
            let (wc, wg) = (c.omega[i], gs.omega[i]);
            if wc[..3] != s || wg[..3] != s {
                continue;
            }
            checked += 1;
            if i % 2 == 0 {
                assert_eq!(a, q0, "cpu: spinless particle {i} turned");
                assert_eq!(b, q0, "gpu: spinless particle {i} turned");
                continue;
            }
            // The update is first order and normalised, so its angle per step is
            // 2 atan(θ/2) against θ: 1e-13 here. What is left is f32 rounding, a few ulps of
            // 1 a step: 2e-6 over ten steps.
            for k in 0..4 {
                let e = turned[k] as f32;
                assert!(
                    (a[k] - e).abs() <= 2e-6,
                    "cpu: particle {i}: {a:?} against {e:?}"
                );
                assert!(
                    (b[k] - e).abs() <= 2e-6,
                    "gpu: particle {i}: {b:?} against {e:?}"
                );
            }
            assert_ne!(a, q0, "cpu: spinning particle {i} did not turn");
        }
        assert!(
            checked > n * 9 / 10,
            "only {checked} of {n} spheres kept their spin"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The scan

/// The three scan passes (`scan_blocks`, `prefix_sum` over the blocks' sums, `scan_add`) on the
/// GPU against their twins composed (`scan_in_blocks`) and the serial scan, bit for bit: sums
/// of integers are exact. Seeded random counts at lengths around a block's edges, and one of
/// 9,000,000, past where the single-workgroup scan it replaces stopped short on lavapipe
/// (8,388,480 elements: llvmpipe ends an invocation's loops at 65535 iterations in all, and
/// each of its 256 invocations walked its chunk twice; the list's starts came out zero at the
/// end of every chunk, and every run past 2^23 spheres ended wrong).
#[test]
fn the_scan_in_blocks_matches_its_twins_past_lavapipes_loop_limit() {
    use grains_core::kernels::passes::prefix_sum;
    use grains_core::kernels::passes::scan_blocks::{scan_block_count, scan_in_blocks};
    use grains_core::parity::SplitMix;
    let Some(ctx) = gpu_context() else { return };
    let pass = |stem: &str| grains_shaders::compose_pass(stem).unwrap_or_else(|e| panic!("{e}"));
    let (blocks_src, sums_src, add_src) =
        (pass("scan_blocks"), pass("prefix_sum"), pass("scan_add"));
    let words = |v: &[u8]| -> Vec<u32> { bytemuck::pod_collect_to_vec(v) };
    let mut rng = SplitMix(0x5CA7);
    for n in [1usize, 2047, 2048, 2049, 300_001, 9_000_000] {
        // Counts up to 31, like a particle's candidates: the total stays within 32 bits.
        let counts: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 59) as u32).collect();
        let blocks = scan_block_count(n);
        let len = (n as u32).to_ne_bytes();
        let nb = (blocks as u32).to_ne_bytes();
        let out0 = vec![0u8; 4 * (n + 1)];
        let run = |label: &str, src: &str, bufs: &[(&str, &[u8])], outs: &[&str], groups: usize| {
            grains_gpu::kernel::run_once(&ctx, label, src, label, bufs, outs, groups as u32)
                .unwrap_or_else(|e| panic!("{label} over {n}: {e}"))
        };
        let sums0 = vec![0u8; 4 * blocks];
        let first = run(
            "scan_blocks",
            &blocks_src,
            &[
                ("counts", bytemuck::cast_slice(&counts)),
                ("out", &out0),
                ("scan_len", &len),
                ("block_sums", &sums0),
            ],
            &["out", "block_sums"],
            blocks,
        );
        let starts0 = vec![0u8; 4 * (blocks + 1)];
        let starts = run(
            "prefix_sum",
            &sums_src,
            &[("counts", &first[1]), ("out", &starts0), ("scan_len", &nb)],
            &["out"],
            1,
        );
        let out = run(
            "scan_add",
            &add_src,
            &[
                ("out", &first[0]),
                ("scan_len", &len),
                ("block_start", &starts[0]),
            ],
            &["out"],
            blocks,
        );
        let gpu = words(&out[0]);
        let mut twin = vec![u32::MAX; n + 1];
        scan_in_blocks(&counts, &mut twin);
        let mut serial = vec![u32::MAX; n + 1];
        prefix_sum(&counts, &mut serial);
        assert_eq!(
            twin, serial,
            "n = {n}: the twins' blocks against the serial scan"
        );
        if let Some(i) = (0..=n).find(|&i| gpu[i] != twin[i]) {
            panic!(
                "n = {n}: out[{i}] is {} on the GPU, {} by the twins ({} wrong of {})",
                gpu[i],
                twin[i],
                (0..=n).filter(|&i| gpu[i] != twin[i]).count(),
                n + 1
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Whole scenes

/// Run both backends `steps` steps; compare positions and velocities per particle, the
/// candidate pairs and the rebuild steps.
fn scene_parity(
    name: &str,
    world: World,
    ctx: &GpuContext,
    steps: u64,
    opts: GpuOptions,
    (pos_tol, vel_tol): (f32, f32),
) {
    let mut c = cpu(world.clone());
    let mut g = GpuBackend::with_options(world, ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    c.run(steps);
    g.run(steps);
    assert_eq!(g.counters().steps, steps);
    assert_eq!(
        c.rebuild_steps(),
        g.rebuild_steps(),
        "{name}: rebuild steps differ"
    );
    let cp = c.candidate_pairs();
    let gp = g.candidate_pairs();
    assert_eq!(cp.len(), gp.len(), "{name}: candidate pair count");
    assert!(cp == gp, "{name}: candidate pairs differ");
    let gs = g.snapshot();
    let cs = c.snapshot().into_owned();
    // Positions to `pos_tol` of the domain size, velocities to `vel_tol` of the largest speed:
    // the backends differ by an ulp here and there (the driver may fuse a multiply-add), and
    // contacts amplify such differences, a dilute gas the most (each collision multiplies them).
    let size = (0..3)
        .map(|k| c.world.domain.max[k] - c.world.domain.min[k])
        .fold(0.0f64, f64::max) as f32;
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    let (dv, sv) = max_diff4(&cs.vel, &gs.vel);
    eprintln!(
        "{name}: {} particles, {} rebuilds, {} pairs, max |dx| {dx:e} m (domain {size}), max |dv| {dv:e} m/s (max |v| {sv})",
        cs.pos.len(),
        c.rebuild_steps().len(),
        cp.len()
    );
    assert!(dx <= pos_tol * size, "{name}: position diff {dx}");
    assert!(
        dv <= vel_tol * sv,
        "{name}: velocity diff {dv} (scale {sv})"
    );
}

#[test]
fn scene_two_spheres_head_on() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "two spheres",
        two_spheres(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-6, 1e-4),
    );
}

#[test]
fn scene_sphere_on_a_plane() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "sphere on plane",
        sphere_on_plane(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-6, 1e-4),
    );
}

#[test]
fn scene_settling_box() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "settling box",
        settling_box(11),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
}

#[test]
fn scene_periodic_gas() {
    let Some(ctx) = gpu_context() else { return };
    scene_parity(
        "periodic gas",
        periodic_gas(13),
        &ctx,
        500,
        GpuOptions::default(),
        // Measured on lavapipe: 7.5e-5 of the box and 2e-3 of the top speed after 500 steps,
        // from one-ulp differences first seen at step 7 in a tangential spring.
        (3e-4, 1e-2),
    );
}

/// The settling box with fixed pairs (the fixed-topology source) running the box's own chain:
/// lattice neighbours along x, listed in both orders so that the gather meets both sides, and
/// a sphere with fixed slots on either side.
fn settling_box_with_fixed_pairs(seed: u64, spacing: f64) -> World {
    let w = settling_box_spaced(seed, spacing);
    let n = w.particles.len() as u32;
    let pairs: Vec<[u32; 2]> = (0..n - 1)
        .step_by(3)
        .flat_map(|i| [[i, i + 1], [i + 2, i + 1]])
        .filter(|p| p[0] < n && p[1] < n)
        .collect();
    w.with_fixed_pairs(pairs, vec![full_chain()])
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Fixed pairs on the GPU: their slots after the first force evaluation equal the CPU's, a
/// scene with them matches the CPU after 500 steps, and a CPU state with them resumes on the
/// GPU.
#[test]
fn fixed_pairs_match_cpu() {
    let Some(ctx) = gpu_context() else { return };
    // A lattice compressed by 2e-6 m (0.4 % of a radius): fixed pairs touch from the start.
    let world = settling_box_with_fixed_pairs(19, 0.998e-3);
    let nf = world.fixed_pairs.len();
    let c = cpu(world.clone());
    let g = gpu(world.clone(), &ctx);
    let slots: Vec<PairSlot> = g.read_buffer("fixed_slots", nf).unwrap();
    let fmax = c
        .fixed_slots
        .iter()
        .flat_map(|s| s.force)
        .fold(0.0f32, |a, x| a.max(x.abs()));
    assert!(fmax > 0.0, "some fixed pairs touch at the start");
    // Resolver, three laws and assembly, each within its own 1e-5: 1e-4 of the largest force.
    for (k, (a, b)) in c.fixed_slots.iter().zip(&slots).enumerate() {
        for d in 0..3 {
            assert!(
                (a.force[d] - b.force[d]).abs() <= 1e-4 * fmax,
                "fixed slot {k}: {:?} vs {:?}",
                a.force,
                b.force
            );
        }
    }
    // The settling box of `scene_settling_box`, with its tolerances: a jammed lattice with
    // doubled contacts amplifies ulp differences beyond them within 500 steps (measured: 2.9e-3
    // of the top speed, against 5e-4 without the fixed pairs), from forces that agree to 1.4e-7
    // at the start.
    let world = settling_box_with_fixed_pairs(11, 1.15e-3);
    scene_parity(
        "settling box with fixed pairs",
        world.clone(),
        &ctx,
        500,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
    let mut c = cpu(world.clone());
    c.run(201);
    // At an odd step the packed history lives in the second of the GPU's two history buffers:
    // the state reads back exactly as it went in, and the next steps read it from there.
    let state = c.state();
    assert!(!state.history.is_empty(), "pairs in contact at step 201");
    let mut g = GpuBackend::from_state(world, &ctx, &state).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        g.state() == state,
        "the GPU's state after resuming at step 201"
    );
    c.run(100);
    g.run(100);
    let (gs, cs) = (g.snapshot(), c.snapshot().into_owned());
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    assert!(
        dx <= 1e-5 * 1.6e-2,
        "resumed on the GPU: position diff {dx}"
    );
    let ge = g.energy();
    let ce = c.energy();
    assert!(
        (ge.elastic - ce.elastic).abs() <= 1e-3 * ce.elastic.abs() + 1e-15,
        "elastic energy {} vs {}",
        ge.elastic,
        ce.elastic
    );
}

/// The settling box with a chain of the law library in every slot (gonthier, a dashpot,
/// regularised Coulomb friction, spring-slider rolling, torsional friction, and linear adhesion
/// with lubrication in the extra list) between two particle materials, and EEPA against the
/// walls: the same 500 steps on both backends, within `scene_settling_box`'s tolerances.
#[test]
fn scene_with_the_law_library() {
    let Some(ctx) = gpu_context() else { return };
    let world = law_library_world();
    // One library chain serves the three particle pairs, one EEPA chain the walls.
    assert_eq!(world.table.chains.len(), 2, "{:?}", world.table.chains);
    scene_parity(
        "law library",
        world,
        &ctx,
        500,
        GpuOptions::default(),
        // Ten times the settling box's: its chains hold pow, exp and atan2 (EEPA, Gonthier,
        // lubrication), which a conforming adapter rounds to several ulp where lavapipe gives
        // the CPU's bits. Measured on an H100 (Vulkan): 3.3e-5 of the domain and 7.9e-3 of the
        // top speed; a wrong law moves particles by their overlaps, about 1e-2 of the domain.
        (1e-4, 3e-2),
    );
}

/// The world of [`scene_with_the_law_library`].
fn law_library_world() -> World {
    use grains_core::kernels::laws::eepa::EepaSpec;
    use grains_core::kernels::laws::haff_werner::ViscousCoulombSpec;
    use grains_core::kernels::laws::hunt_crossley::ImpactSpec;
    use grains_core::kernels::laws::linear_adhesion::LinearAdhesionSpec;
    use grains_core::kernels::laws::linear_damper::NormalDashpotSpec;
    use grains_core::kernels::laws::lubrication::LubricationSpec;
    use grains_core::kernels::laws::rolling_spring::RollingSpringSpec;
    use grains_core::kernels::laws::torsional_coulomb::TorsionalCoulombSpec;
    use grains_core::materials::Interaction;
    use grains_core::LawSpec;
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let p = lattice_particles(lo, hi, 0.5e-3, 1.15e-3, 2500.0, 0.2, 20.0, 23);
    let mut particles = p;
    // Half the particles of a second material.
    for (k, m) in particles.material.iter_mut().enumerate() {
        *m = (k % 2) as u32;
    }
    let library = vec![
        LawSpec::Gonthier(ImpactSpec {
            restitution: 0.4,
            exponent: 1.5,
            stiffness: None,
            min_impact_velocity: 0.01,
            damping: 0.0,
        }),
        LawSpec::LinearDamperOverlap(NormalDashpotSpec { damping: 1e-4 }),
        LawSpec::RegularizedCoulomb(ViscousCoulombSpec {
            friction: 0.4,
            damping: 0.0,
            regularization_velocity: 1e-3,
        }),
        LawSpec::RollingSpring(RollingSpringSpec {
            rolling_friction: 0.05,
            rolling_stiffness: None,
            rolling_damping: 0.3,
        }),
        LawSpec::TorsionalCoulomb(TorsionalCoulombSpec {
            torsional_friction: 0.1,
            damping: 1e3,
        }),
        LawSpec::LinearAdhesion(LinearAdhesionSpec {
            detach_force: 1e-5,
            detach_length: 1e-5,
        }),
        LawSpec::Lubrication(LubricationSpec {
            viscosity: 1e-3,
            min_gap: 1e-6,
            max_gap: 5e-5,
        }),
    ];
    let eepa = vec![LawSpec::Eepa(EepaSpec {
        plasticity_ratio: 0.5,
        stiffness: None,
        exponent: 1.5,
        adhesion_stiffness: 1e2,
        adhesion_exponent: 1.0,
        pull_off_force: 1e-6,
    })];
    // The walls are a third material, met with EEPA.
    let mut walls = box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    for w in walls.iter_mut() {
        w.material = 2;
    }
    let world = World::new(
        particles,
        walls,
        vec![
            material("a", 1e7, 2500.0),
            material("b", 2e7, 2500.0),
            material("wall", 1e7, 2500.0),
        ],
        vec![
            Interaction::new(0, 0, library.clone()),
            Interaction::new(1, 1, library.clone()),
            Interaction::new(0, 1, library),
            Interaction::new(0, 2, eepa.clone()),
            Interaction::new(1, 2, eepa),
        ],
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    world
}

/// A list that grows during the run (a gas colliding into more candidates) freezes mid-interval
/// and, taken up again in grown buffers, still yields the CPU's pairs.
#[test]
fn neighbour_overflow_grows_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let world = periodic_gas(17);
    // Records for the first list and an eighth more; slots to spare, so only the records grow.
    let opts = GpuOptions {
        initial_records_per_particle: 0,
        initial_slots_per_particle: 64,
        // Odd, so that replays go back to odd steps too, where the packed history is in the
        // second of its two buffers.
        check_every: 15,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let mut g = GpuBackend::with_options(world.clone(), &ctx, opts).unwrap();
    let mut c = cpu(world);
    let (grows0, records0) = (g.list_grows(), g.record_capacity());
    // The gas starts sparse (under one entry per particle) and collides into more: the list
    // overflows during the run, mid-interval, and the replay must reproduce the CPU exactly.
    for _ in 0..4 {
        c.run(50);
        g.run(50);
        assert!(c.candidate_pairs() == g.candidate_pairs(), "pairs differ");
        assert_eq!(c.rebuild_steps(), g.rebuild_steps());
    }
    assert!(
        g.list_grows() > grows0,
        "the list should have grown mid-run"
    );
    assert!(
        g.record_capacity() > records0,
        "the records should have grown"
    );
    let (cs, gs) = (c.snapshot().into_owned(), g.snapshot());
    let dx = max_pos_diff(&cs.pos, &gs.pos, &c.world.domain);
    assert!(dx < 1e-6, "positions after growth and replay: {dx}");
    // Slots are not saved for a replay: the replayed steps take them again. The records in
    // contact are the CPU's, one packed slot each, and the contacts and the elastic energy read
    // from the slots afterwards are still the CPU's.
    let (cst, gst) = (c.state(), g.state());
    assert_eq!(
        cst.nbr_slot, gst.nbr_slot,
        "records in contact after replay"
    );
    assert_eq!(
        cst.slots.len(),
        gst.slots.len(),
        "packed slots after replay"
    );
    assert_eq!(c.contacts(), g.contacts(), "contacts after replay");
    let (ec, eg) = (c.energy(), g.energy());
    assert!(
        (ec.elastic - eg.elastic).abs() <= 1e-4 * ec.elastic.abs().max(1e-30),
        "elastic energy after replay: {} vs {}",
        ec.elastic,
        eg.elastic
    );
    assert!(ec.elastic > 0.0, "pairs in contact at the end");
    eprintln!(
        "overflow: record capacity {} after {} grows",
        g.record_capacity(),
        g.list_grows()
    );
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

/// A dense packing whose very first list does not fit: the initial rebuild itself replays.
#[test]
fn neighbour_overflow_at_start() {
    let Some(ctx) = gpu_context() else { return };
    let opts = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 8,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    // Spheres still apart after 40 steps: free flight is bitwise the CPU's.
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 1.05e-3);
    assert_eq!(c.snapshot().pos, g.snapshot().pos);
}

/// Records that do not fit (one record per particle against a settling box of several pairs
/// each, walls included) grow, and the run replays to the CPU's list and positions.
#[test]
fn record_overflow_grows_records_alone_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let opts = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 8,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 1.05e-3);
    assert_eq!(c.snapshot().pos, g.snapshot().pos);
    let n = c.pos.len() as u64;
    assert!(g.record_capacity() > n, "the records grew");
    // The list's integers are the CPU's exactly: every entry's record and every flag.
    let (cs, gs) = (c.state(), g.state());
    assert_eq!(cs.nbr_pair, gs.nbr_pair, "nbr_pair");
    assert_eq!(cs.nbr_slot, gs.nbr_slot, "nbr_slot");
    assert_eq!(cs.history.len(), gs.history.len(), "history records");
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

/// A lattice packed 0.5% closer than touching (about 3 pairs in contact per sphere, walls
/// besides) against one packed slot per particle: only the slots grow, at the first step, and
/// the run replays to the CPU's positions, records in contact and slots.
#[test]
fn slot_overflow_grows_slots_alone_and_matches_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let (mut c, mut g) = overflow_at_start(&ctx, slots_alone_options(), 0.995e-3);
    let n = c.pos.len() as u64;
    // In contact, the f32 sums differ in their last bits (the pass parity's 1e-4 relative).
    let dx = max_pos_diff(
        &c.snapshot().into_owned().pos,
        &g.snapshot().pos,
        &c.world.domain,
    );
    assert!(dx < 1e-9, "positions after the replay: {dx} m");
    let full = (64 * n).next_multiple_of(64);
    assert_eq!(g.record_capacity(), full, "the records fitted");
    assert!(
        g.slot_capacity() > n,
        "the slots grew: {}",
        g.slot_capacity()
    );
    assert!(
        c.state().slots.len() as u64 > n,
        "more contacts ({}) than the initial slots ({n})",
        c.state().slots.len()
    );
    assert_packed_slots_match(&mut c, &mut g);
}

/// A run whose list, records and slots all start too small freezes again and again: at its
/// first rebuild, and in the middle of later steps as the lattice collapses into contact (the
/// list at its guard, the slots after the contact passes, with tangential history in play).
/// Each frozen step, taken up again where it stopped, gives the bits of a run whose buffers
/// never filled: positions, velocities, spins, the list, its flags and its history.
#[test]
fn frozen_steps_give_the_bits_of_a_run_that_never_freezes() {
    let Some(ctx) = gpu_context() else { return };
    // A sparse lattice squeezed towards its centre (every sphere moving at 400/s times its
    // distance from it): the list gains pairs and the spheres come into contact as it packs.
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let mut p = lattice_particles(lo, hi, 0.5e-3, 1.3e-3, 2500.0, 0.05, 100.0, 29);
    for (x, v) in p.pos.iter().zip(p.vel.iter_mut()) {
        for k in 0..3 {
            v[k] -= 400.0 * (x[k] - 0.5 * hi[k] as f32);
        }
    }
    let world = world(
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
    );
    let ample = GpuOptions {
        initial_records_per_particle: 64,
        initial_slots_per_particle: 64,
        check_every: 64,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let tight = GpuOptions {
        initial_records_per_particle: 1,
        initial_slots_per_particle: 1,
        check_every: 7,
        binding_limit: 0,
        buffer_limit: 0,
        texture_limit: 0,
        fuse_gather_kick: true,
    };
    let mut a = GpuBackend::with_options(world.clone(), &ctx, ample).unwrap();
    let mut t = GpuBackend::with_options(world, &ctx, tight).unwrap();
    let (grows0, slots0, records0) = (t.list_grows(), t.slot_capacity(), t.record_capacity());
    for round in 0..8 {
        a.run(50);
        t.run(50);
        let (sa, st) = (a.snapshot().into_owned(), t.snapshot().into_owned());
        assert!(sa.pos == st.pos, "positions differ after round {round}");
        assert!(sa.vel == st.vel, "velocities differ after round {round}");
        assert!(sa.omega == st.omega, "spins differ after round {round}");
    }
    eprintln!(
        "grows {grows0} at start, {} at the end; slots {slots0} -> {}, records {records0} -> {}",
        t.list_grows(),
        t.slot_capacity(),
        t.record_capacity()
    );
    assert!(t.slot_capacity() > slots0, "the slots grew mid-run");
    assert!(t.record_capacity() > records0, "the list grew mid-run");
    assert_eq!(a.rebuild_steps(), t.rebuild_steps());
    let (sa, st) = (a.state(), t.state());
    assert!(!sa.slots.is_empty(), "pairs in contact at the end");
    assert_eq!(sa.nbr_j, st.nbr_j, "the list");
    assert_eq!(sa.nbr_slot, st.nbr_slot, "records in contact");
    let bits = |h: &[f32]| h.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(
        bits(&sa.history) == bits(&st.history),
        "tangential history differs"
    );
}

/// `gather_kick`, the gather and the second half-step in one pass, gives the bits of the two
/// passes it replaces: a settling box with walls and friction, 300 steps, positions,
/// velocities, spins, orientations, gathered forces and torques, and the energy ledger.
#[test]
fn the_fused_gather_and_kick_give_the_bits_of_the_two_passes() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box_spaced(41, 1.02e-3);
    let two = GpuOptions {
        fuse_gather_kick: false,
        ..GpuOptions::default()
    };
    let mut a = GpuBackend::with_options(world.clone(), &ctx, GpuOptions::default()).unwrap();
    let mut b = GpuBackend::with_options(world, &ctx, two).unwrap();
    for round in 0..3 {
        a.run(100);
        b.run(100);
        let (sa, sb) = (a.snapshot().into_owned(), b.snapshot().into_owned());
        assert!(sa.pos == sb.pos, "positions differ after round {round}");
        assert!(sa.vel == sb.vel, "velocities differ after round {round}");
        assert!(sa.omega == sb.omega, "spins differ after round {round}");
        assert!(
            sa.quat == sb.quat,
            "orientations differ after round {round}"
        );
        assert!(sa.force == sb.force, "forces differ after round {round}");
        assert!(sa.torque == sb.torque, "torques differ after round {round}");
    }
    assert!(a.contacts().pairs > 0, "pairs in contact");
    let (ea, eb) = (a.energy(), b.energy());
    assert_eq!(ea.kinetic.to_bits(), eb.kinetic.to_bits(), "kinetic energy");
    assert_eq!(
        ea.damping_dissipated.to_bits(),
        eb.damping_dissipated.to_bits(),
        "damping dissipation"
    );
    assert_eq!(
        ea.friction_dissipated.to_bits(),
        eb.friction_dissipated.to_bits(),
        "friction dissipation"
    );
}

/// The particle pairs in contact (the backend's contact records, walls and bonds left out),
/// each once as (lower, higher) particle.
fn pairs_in_contact(b: &mut GpuBackend) -> std::collections::BTreeSet<(u32, u32)> {
    b.contact_records()
        .iter()
        .filter(|c| !c.bond && c.j >= 0)
        .map(|c| (c.i.min(c.j as u32), c.i.max(c.j as u32)))
        .collect()
}

/// A pair keeps its packed slot while in contact and gives it back when it parts; pairs that
/// come into contact take the slots given back before new ones. In a granular gas, where
/// pairs collide and part all the time, the slots ever taken stay far below the collisions
/// seen (without reuse they would be at least as many), and a run whose slots grow mid-step
/// (the PENDING records taken up again) gives the bits of one that never grows. (Against the
/// CPU, a gas's collisions grow one-ulp differences into other collisions within 2000 steps;
/// the pass parity and the scene tests compare the two.)
#[test]
fn parted_pairs_give_their_slots_back_for_the_next_collisions() {
    let Some(ctx) = gpu_context() else { return };
    let world = periodic_gas(53);
    let mut g = gpu(world.clone(), &ctx);
    // Records and slots to spare from the start: this run never grows them, where `g` starts
    // with a workgroup's worth of slots and grows them as the collisions need.
    let ample = GpuOptions {
        initial_records_per_particle: 16,
        initial_slots_per_particle: 8,
        ..GpuOptions::default()
    };
    let mut t = GpuBackend::with_options(world, &ctx, ample).unwrap();
    let (mut before, mut collisions, mut most) = (pairs_in_contact(&mut g), 0, 0);
    for _ in 0..200 {
        g.run(10);
        t.run(10);
        let now = pairs_in_contact(&mut g);
        collisions += now.difference(&before).count();
        most = most.max(now.len());
        before = now;
    }
    let taken = g.slots_taken().unwrap() as usize;
    eprintln!("{collisions} collisions seen, at most {most} pairs in contact, {taken} slots taken");
    assert!(
        most > 0 && collisions > 4 * taken,
        "{collisions} collisions, {taken} slots"
    );
    let gs = g.state();
    let ts = t.state();
    // `g` began with 64 slots: taking more froze a step, whose PENDING records took theirs
    // once the slots had grown.
    assert!(taken > 64 && g.list_grows() > 0, "the slots grew");
    assert_eq!(t.list_grows(), 0, "the ample run's slots never grew");
    assert!(
        ts.pos == gs.pos && ts.vel == gs.vel,
        "the bits of the run that grew"
    );
    assert!(
        ts.nbr_slot == gs.nbr_slot,
        "pairs in contact in the run that grew"
    );
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

/// Arrays larger than a storage binding are bound as several windows of their buffer, the
/// kernels that bind them composed to pick each element's window
/// (`grains_shaders::split_arrays`), as on an adapter whose binding limit a large pack
/// exceeds. Here the limit is 20 B a particle, and a buffer holds at most two bindings' worth
/// (as an adapter's `max_buffer_size` caps an array's buffer): the packed slots, their history
/// and pairs split, the slots and history over several buffers, and the slots grow at the
/// first step (their kernels composed again for more parts). The run matches the CPU, tangential springs included; a state taken
/// at an odd step goes up and comes back exactly and runs on bit for bit as the same state
/// does unsplit. (Lavapipe allows 32 storage bindings a kernel: a lower limit here would split
/// the contact kernel past them; `per_particle_arrays_split_over_bindings_run_as_unsplit`
/// splits the particles' arrays.)
#[test]
fn arrays_split_over_bindings_match_cpu() {
    let Some(ctx) = gpu_context() else { return };
    let n = settling_box_spaced(23, 0.995e-3).particles.len() as u64;
    let binding = (20 * n).next_multiple_of(256);
    let opts = GpuOptions {
        binding_limit: binding,
        buffer_limit: 2 * binding,
        initial_records_per_particle: 0,
        ..slots_alone_options()
    };
    let (mut c, mut g) = overflow_at_start(&ctx, opts, 0.995e-3);
    let split = g.split_arrays();
    for array in ["slots", "history", "slot_pair"] {
        assert!(
            split.iter().any(|(_, a, parts)| a == array && *parts >= 2),
            "`{array}` not split: {split:?}"
        );
    }
    // Past two bindings' worth, the slots and their history are held in several buffers.
    for array in ["slots", "history"] {
        assert!(g.array_buffers(array) >= 2, "`{array}` in one buffer");
    }
    let dx = max_pos_diff(
        &c.snapshot().into_owned().pos,
        &g.snapshot().pos,
        &c.world.domain,
    );
    // An element read from the wrong window moves a sphere by its overlap (5e-6 m) or more;
    // rounding alone gave under 1e-9 m on lavapipe and on an H100 (Vulkan).
    assert!(dx < 1e-8, "positions: {dx} m");
    assert_packed_slots_match(&mut c, &mut g);
    // Records past the first window of the history hold some.
    let window = opts.binding_limit as usize / (4 * c.world.table.nbr_history_words);
    assert_packed_history_match(&mut c, &mut g, window);
    c.run(1);
    let state = c.state();
    let mut r = GpuBackend::from_state_with_options(c.world.clone(), &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.state() == state, "the state read back at step 41");
    // Runs on as the same state does unsplit, bit for bit: which window an element lives in
    // changes no arithmetic. (Against the CPU, the 1%-compressed lattice's stiff contacts
    // grow one-ulp differences: 1.4e-8 m in 20 steps on an H100.)
    let whole = GpuOptions {
        binding_limit: 0,
        buffer_limit: 0,
        ..opts
    };
    let mut u = GpuBackend::from_state_with_options(c.world.clone(), &ctx, &state, whole)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        u.split_arrays().is_empty(),
        "nothing split at the adapter's limit"
    );
    r.run(20);
    u.run(20);
    let (rs, us) = (r.state(), u.state());
    assert!(rs.pos == us.pos, "positions 20 steps after the resume");
    assert!(rs == us, "the state 20 steps after the resume");
    c.run(20);
    assert_eq!(
        c.contacts(),
        r.contacts(),
        "contacts 20 steps after the resume"
    );
}

/// The particles' arrays split over bindings (12 B a particle: every per-particle array in two
/// windows, the broad phase's scratch in theirs) and held in several buffers (one window each,
/// as a 134-million-sphere pack's are past a 2 GiB `max_buffer_size`): a settling box runs 300
/// steps, rebuilds included, bit for bit as unsplit, through a removal (which writes single
/// particles across the buffers) and a resume from its state (which writes them whole).
#[test]
fn per_particle_arrays_split_over_bindings_run_as_unsplit() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let n = world.particles.len() as u64;
    let binding = (12 * n).next_multiple_of(256);
    let opts = GpuOptions {
        binding_limit: binding,
        buffer_limit: binding,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world.clone(), &ctx);
    let split = a.split_arrays();
    for array in [
        "pos",
        "vel",
        "omega",
        "force",
        "torque",
        "ref_pos",
        "dissipated",
        "sorted",
    ] {
        assert!(
            split.iter().any(|(_, x, parts)| x == array && *parts == 2),
            "`{array}` not in two windows: {split:?}"
        );
    }
    for array in [
        "pos", "vel", "omega", "pos_comp", "force", "torque", "ref_pos",
    ] {
        assert_eq!(a.array_buffers(array), 2, "`{array}`'s buffers");
        assert_eq!(b.array_buffers(array), 1, "`{array}`'s buffers, unsplit");
    }
    a.run(150);
    b.run(150);
    // One particle in each buffer; the second past the first buffer's end.
    let gone = [3, (n - 5) as u32];
    assert!(16 * gone[1] as u64 > binding, "{gone:?}");
    remove_alike(&mut a, &mut b, &gone);
    let state = a.state();
    let mut r = GpuBackend::from_state_with_options(world, &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.array_buffers("pos"), 2, "the resumed run's buffers");
    finish_alike(&mut r, &mut b);
}

/// Particles `gone` removed from run `a` and the unsplit run `b`: 50 steps later both hold
/// the same state, bit for bit.
fn remove_alike(a: &mut GpuBackend, b: &mut GpuBackend, gone: &[u32]) {
    a.remove_particles(gone).unwrap_or_else(|e| panic!("{e}"));
    b.remove_particles(gone).unwrap_or_else(|e| panic!("{e}"));
    a.run(50);
    b.run(50);
    assert!(
        a.state() == b.state(),
        "the state 50 steps after the removal"
    );
}

/// A resumed run `r` and the unsplit run `b` it follows: 100 more steps each, rebuilds
/// included, end bit for bit alike.
fn finish_alike(r: &mut GpuBackend, b: &mut GpuBackend) {
    r.run(100);
    b.run(100);
    assert!(r.rebuild_steps().len() > 1, "no rebuild after the first");
    assert_eq!(r.rebuild_steps(), b.rebuild_steps());
    assert!(r.state() == b.state(), "the state after 300 steps");
    assert_eq!(r.energy(), b.energy(), "energy");
}

/// A kernel whose arrays, counted as windows, would bind more storage buffers than a shader
/// stage may is refused before it is composed, and the refusal says about how many particles
/// would fit: the same scene builds with the binding size scaled up by particles over that
/// figure (the same windows as that many particles on the first binding size).
#[test]
fn a_kernel_past_its_storage_buffers_is_refused_with_the_count_that_fits() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let n = world.particles.len() as u64;
    let binding = 4096;
    // Never in textures: a kernel that cannot bind its windows is refused.
    let opts = |binding_limit| GpuOptions {
        binding_limit,
        texture_limit: u64::MAX,
        ..GpuOptions::default()
    };
    let err = match GpuBackend::with_options(world.clone(), &ctx, opts(binding)) {
        Ok(_) => panic!("{n} particles in windows of {binding} B were not refused"),
        Err(e) => e,
    };
    let text = err.to_string();
    let grains_gpu::GpuError::KernelReach {
        needed,
        limit,
        particles,
        fit,
        ..
    } = err
    else {
        panic!("not a reach refusal: {text}")
    };
    assert!(needed > limit, "{text}");
    assert_eq!(particles as u64, n, "{text}");
    assert!(fit > 0 && fit < n, "{text}");
    assert!(
        text.contains(&format!("about {fit} particles of this scene fit")),
        "{text}"
    );
    assert!(text.contains("pos in"), "{text}");
    let scaled = (binding * n).div_ceil(fit).next_multiple_of(256);
    if let Err(e) = GpuBackend::with_options(world, &ctx, opts(scaled)) {
        panic!("windows of {scaled} B (as {fit} particles on {binding} B) refused: {e}");
    }
}

/// Arrays held in storage textures (`GpuOptions::texture_limit`: every array of more than 4 B
/// a particle that no kernel updates atomically; the history in two textures) run a settling
/// box in contact 300 steps, rebuilds and the list's growth included, bit for bit as in buffers,
/// through a removal and a resume from its state.
#[test]
fn arrays_in_textures_run_as_in_buffers() {
    let Some(ctx) = gpu_context() else { return };
    // Every particle touching its lattice neighbours from the start: a list and slots
    // of a dense pack's size.
    let world = settling_box_spaced(21, 1.0e-3);
    let n = world.particles.len() as u64;
    let opts = GpuOptions {
        texture_limit: 4 * n,
        buffer_limit: 48 * n,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world.clone(), &ctx);
    let held: BTreeMap<String, usize> = a.texture_arrays().into_iter().collect();
    for array in ["pos", "vel", "omega", "force", "torque", "ref_pos"] {
        assert!(
            held.contains_key(array),
            "`{array}` not in textures: {held:?}"
        );
    }
    assert!(
        !held.contains_key("cell_counts"),
        "an atomic array in textures"
    );
    assert!(b.texture_arrays().is_empty(), "{:?}", b.texture_arrays());
    a.run(150);
    b.run(150);
    // The list's arrays, grown past the limit, are made as textures.
    let held: BTreeMap<String, usize> = a.texture_arrays().into_iter().collect();
    for array in ["pair_j", "nbr_slot", "slots", "slot_pair"] {
        assert!(
            held.contains_key(array),
            "`{array}` not in textures: {held:?}"
        );
    }
    assert!(
        held.get("history").is_some_and(|t| *t >= 2),
        "the history not in several textures: {held:?}"
    );
    let gone = [3, (n - 5) as u32];
    remove_alike(&mut a, &mut b, &gone);
    assert_eq!(a.energy(), b.energy(), "energy after the removal");
    let state = a.state();
    let mut r = GpuBackend::from_state_with_options(world, &ctx, &state, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    // The state goes up whole across the textures' ends (the packed slots, whose textures
    // hold a whole number of slots and some padding after them, in two).
    let held: BTreeMap<String, usize> = r.texture_arrays().into_iter().collect();
    assert!(
        held.get("slots").is_some_and(|t| *t >= 2),
        "the resumed slots not in several textures: {held:?}"
    );
    assert!(
        r.state() == state,
        "the resumed state does not read back as written"
    );
    finish_alike(&mut r, &mut b);
}

/// Where a kernel's windows would take more storage buffers than a stage may (4 KiB
/// bindings), its largest arrays go into textures until it binds, rather than the run being
/// refused; it runs bit for bit as with whole buffers.
#[test]
fn arrays_a_kernel_cannot_bind_as_windows_go_into_textures() {
    let Some(ctx) = gpu_context() else { return };
    let world = settling_box(21);
    let opts = GpuOptions {
        binding_limit: 4096,
        ..GpuOptions::default()
    };
    let mut a =
        GpuBackend::with_options(world.clone(), &ctx, opts).unwrap_or_else(|e| panic!("{e}"));
    let mut b = gpu(world, &ctx);
    let held = a.texture_arrays();
    assert!(!held.is_empty(), "nothing went into textures");
    assert!(
        held.len() < 20,
        "more arrays than needed went into textures: {held:?}"
    );
    a.run(200);
    b.run(200);
    assert!(a.rebuild_steps().len() > 1, "no rebuild after the first");
    assert!(a.state() == b.state(), "the state after 200 steps");
    assert_eq!(a.energy(), b.energy(), "energy");
}

/// The packed history records (tangential springs) of both backends agree, records past
/// `split` included, and some of those are not zero: 1e-3 of the largest word, as the slots'
/// forces (the same f32 arithmetic, summed in another order only where the laws differ).
fn assert_packed_history_match(c: &mut CpuBackend, g: &mut GpuBackend, split: usize) {
    let (cs, gs) = (c.state(), g.state());
    assert_eq!(cs.history.len(), gs.history.len(), "history words");
    let stride = cs.history.len() / cs.slots.len().max(1);
    let hmax = cs.history.iter().fold(0.0f32, |a, x| a.max(x.abs()));
    assert!(hmax > 0.0, "no tangential spring stretched");
    let past = &gs.history[(split * stride).min(gs.history.len())..];
    assert!(
        past.iter().any(|x| *x != 0.0),
        "the records past the split hold history"
    );
    for (k, (a, b)) in cs.history.iter().zip(&gs.history).enumerate() {
        assert!(
            (a - b).abs() <= 1e-3 * hmax,
            "history word {k} (record {}): {a} vs {b}",
            k / stride.max(1)
        );
    }
}

/// The same world twice on the GPU: bitwise identical after 300 steps.
#[test]
fn gpu_runs_are_bitwise_deterministic() {
    let Some(ctx) = gpu_context() else { return };
    let mut a = gpu(settling_box(21), &ctx);
    let mut b = gpu(settling_box(21), &ctx);
    a.run(300);
    for _ in 0..3 {
        b.run(100);
    }
    let (sa, sb) = (a.snapshot(), b.snapshot());
    let bits = |v: &[[f32; 4]]| -> Vec<u32> { v.iter().flatten().map(|x| x.to_bits()).collect() };
    assert_eq!(bits(&sa.pos), bits(&sb.pos), "positions");
    assert_eq!(bits(&sa.vel), bits(&sb.vel), "velocities");
    assert_eq!(bits(&sa.omega), bits(&sb.omega), "angular velocities");
    assert_eq!(bits(&sa.force), bits(&sb.force), "forces");
    assert_eq!(a.energy(), b.energy(), "energy");
    assert_eq!(a.rebuild_steps(), b.rebuild_steps());
}

/// `step()` and `run(n)` record the same work.
#[test]
fn step_and_run_agree() {
    let Some(ctx) = gpu_context() else { return };
    let mut a = gpu(sphere_on_plane(), &ctx);
    let mut b = gpu(sphere_on_plane(), &ctx);
    a.run(40);
    for _ in 0..40 {
        b.step();
    }
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(a.counters(), b.counters());
}

/// The adapter is listed; a buffer beyond the device's largest (not its binding limit: larger
/// arrays are bound as windows) is refused with a message naming it.
#[test]
fn adapter_summary_is_listed() {
    let Some(ctx) = gpu_context() else { return };
    let s = ctx.summary();
    assert!(!s.name.is_empty());
    assert!(grains_gpu::list_adapters().iter().any(|a| a.name == s.name));
    let binding = ctx.limits().max_storage_buffer_binding_size;
    if ctx.limits().max_buffer_size > binding + 16 {
        ctx.check_buffer("pos", binding + 16, 123)
            .unwrap_or_else(|e| panic!("a buffer past a binding is split, not refused: {e}"));
    }
    let limit = ctx.limits().max_buffer_size;
    let err = ctx
        .check_buffer("pos", limit + 16, 123)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pos") && err.contains("123 particles"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// Elements through their harness kernels

use grains_core::gpu_types::{CapsuleBody, ContactForce, ContactGeom, SphereBody, Triangle, Wall};
use grains_core::kernels::resolvers::{
    resolve_capsule_capsule, resolve_capsule_plane, resolve_capsule_sphere,
    resolve_capsule_triangle, resolve_sphere_cone, resolve_sphere_cylinder, resolve_sphere_disk,
    resolve_sphere_plane, resolve_sphere_point, resolve_sphere_sphere, resolve_sphere_triangle,
};
use grains_core::{LawKind, ResolverKind};

const N_RANDOM: usize = 10_000;

fn norm(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Run a harness over the given buffers and read back its outputs as `T`s.
fn harness(
    ctx: &GpuContext,
    name: &str,
    buffers: &[(&str, &[u8])],
    outputs: &[&str],
    n: usize,
) -> Vec<Vec<u8>> {
    let src = grains_shaders::compose_harness(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let entry = grains_shaders::harnesses()
        .into_iter()
        .find(|(h, _)| h == name)
        .map(|(_, e)| e)
        .unwrap_or_else(|| panic!("no harness {name}"));
    grains_gpu::kernel::run_once(
        ctx,
        name,
        &src,
        entry,
        buffers,
        outputs,
        n.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `|a - b| <= tol * scale` per component, with a message naming the element and field.
fn check(what: &str, i: usize, field: &str, a: &[f32], b: &[f32], tol: f32, scale: f32) {
    check_slack(what, i, field, a, b, tol, scale, 0.0);
}

/// As [`check`], with `slack` added to the bound: the rounding a value inherits from larger
/// inputs it is a difference of.
#[allow(clippy::too_many_arguments)]
fn check_slack(
    what: &str,
    i: usize,
    field: &str,
    a: &[f32],
    b: &[f32],
    tol: f32,
    scale: f32,
    slack: f32,
) {
    for k in 0..a.len() {
        let ok = (a[k] - b[k]).abs() <= tol * scale + slack || (a[k].is_nan() && b[k].is_nan());
        assert!(
            ok,
            "{what} #{i} {field}: cpu {a:?} gpu {b:?} (tol {tol} x scale {scale:e} + {slack:e})"
        );
    }
}

/// How far a wall resolver's twin moves when the geometry it reads (the sphere's centre and
/// radius; the wall's point, axis, radius and slope) is rounded by 4 ulp, each float up or down
/// (signs from a generator seeded by the inputs), three times: the largest change of the normal
/// (per component), the overlap, the arms and the contact point from the twin's outputs `a`. Where the sphere's
/// centre is near a cone's or a cylinder's axis, the radial direction amplifies the rounding of
/// the centre by the ratio of the wall's radius to that distance: an H200 turned a sphere-cone
/// normal by 1.5e-5 there, which `compare_geom`'s fixed 16 ulp of the positions did not cover,
/// and moved the contact point, which lies along that normal, by 3.8e-7 m (1.1e-5 of the
/// positions).
fn wall_spread(
    twin: impl Fn(&SphereBody, &Wall) -> ContactGeom,
    a: &ContactGeom,
    b: &SphereBody,
    w: &Wall,
) -> [f32; 4] {
    let mut bump = ulp_rounder(0x5EED_0004, bytemuck::cast_slice(std::slice::from_ref(w)));
    let mut out = [0.0f32; 4];
    for _ in 0..3 {
        let (mut b, mut w) = (*b, *w);
        b.pos.iter_mut().for_each(&mut bump);
        bump(&mut b.radius);
        w.point.iter_mut().for_each(&mut bump);
        w.normal.iter_mut().for_each(&mut bump);
        bump(&mut w.radius);
        bump(&mut w.slope);
        let g = twin(&b, &w);
        let most =
            |x: [f32; 3], y: [f32; 3]| (0..3).fold(0.0f32, |m, k| m.max((x[k] - y[k]).abs()));
        out[0] = out[0].max(most(a.normal, g.normal));
        out[1] = out[1].max((a.delta - g.delta).abs());
        out[2] = out[2].max(most(a.arm1, g.arm1)).max(most(a.arm2, g.arm2));
        out[3] = out[3].max(most(a.point, g.point));
    }
    out
}

/// A random pair of spheres touching, nearly touching or apart, with edge cases first:
/// coincident centres, exactly touching, a fixed body.
fn sphere_pairs(rng: &mut SplitMix) -> Vec<(SphereBody, SphereBody)> {
    let mut out = Vec::new();
    for i in 0..N_RANDOM {
        let r1 = rng.log_uniform(1e-4, 1e-2);
        let r2 = rng.log_uniform(1e-4, 1e-2);
        let p1 = rng.vec3(0.05);
        let n = rng.unit();
        let gap = match i {
            0 => 0.0,              // coincident centres
            1 => (r1 + r2) as f64, // exactly touching (zero overlap)
            _ => (r1 + r2) as f64 * rng.range(0.8, 1.1),
        };
        let p2 = std::array::from_fn(|k| p1[k] + n[k] * gap as f32);
        let body = |rng: &mut SplitMix, pos: [f32; 3], radius: f32, fixed: bool| SphereBody {
            pos,
            radius,
            vel: rng.vec3(1.0),
            inv_mass: if fixed {
                0.0
            } else {
                rng.log_uniform(1e1, 1e6)
            },
            omega: rng.vec3(100.0),
            _pad: 0.0,
        };
        let b1 = body(rng, p1, r1, false);
        let b2 = body(rng, p2, r2, i == 2);
        out.push((b1, b2));
    }
    out
}

/// Resolver outputs: directions to `tol` absolute (unit vectors), lengths to `tol` of the
/// pair's size (the overlap is a difference of nearly equal lengths, so relative to itself
/// it would be ill-conditioned), velocities to `tol` of the pair's largest surface speed,
/// masses, radii and pass-through values relative to themselves.
///
/// `spread` is the twin's own movement under input rounding ([`wall_spread`]: normal, overlap,
/// arms, point; zero where not measured), four times of which each bound adds.
#[allow(clippy::too_many_arguments)]
fn compare_geom(
    what: &str,
    i: usize,
    a: &ContactGeom,
    b: &ContactGeom,
    tol: f32,
    size: f32,
    speed: f32,
    pos_scale: f32,
    spread: [f32; 4],
) {
    // The overlap and the arms are differences of positions: each carries the positions'
    // rounding, an ulp of `pos_scale` (f32::EPSILON of it) per operation, whatever their own
    // size. A conforming adapter may round sqrt and division to 2.5 ulp and fuse multiply-adds
    // (an H100 under Vulkan gave 0.9 ulp of the position on a sphere-disk arm, 1.1e-5 of the
    // radius); 16 ulp of the positions covers that with room.
    let slack = 16.0 * f32::EPSILON * pos_scale;
    // The normal is the direction between two points `size - delta` apart (the centres, or a
    // centre and its closest point on a wall): their rounding turns it by `slack` over that
    // distance (an H100 turned a sphere-disk normal by 4e-5 near the rim). Coincident points
    // keep the resolver's convention, exactly.
    let gap = size - a.delta;
    let turn = if gap > 0.0 {
        (slack / gap).min(2.0)
    } else {
        0.0
    };
    let turn = turn + 4.0 * spread[0];
    check_slack(what, i, "normal", &a.normal, &b.normal, tol, 1.0, turn);
    let dslack = slack + 4.0 * spread[1];
    check_slack(what, i, "delta", &[a.delta], &[b.delta], tol, size, dslack);
    check_slack(
        what,
        i,
        "point",
        &a.point,
        &b.point,
        tol,
        pos_scale,
        4.0 * spread[3],
    );
    check(what, i, "r_eff", &[a.r_eff], &[b.r_eff], tol, a.r_eff.abs());
    check(what, i, "vrel", &a.vrel, &b.vrel, tol, speed);
    check(what, i, "m_eff", &[a.m_eff], &[b.m_eff], tol, a.m_eff.abs());
    let aslack = slack + 4.0 * spread[2];
    check_slack(what, i, "arm1", &a.arm1, &b.arm1, tol, size, aslack);
    check_slack(what, i, "arm2", &a.arm2, &b.arm2, tol, size, aslack);
    // A pass-through 1 for most resolvers, an area ratio for the triangle's.
    check(what, i, "fraction", &[a.fraction], &[b.fraction], tol, 1.0);
    check(what, i, "dt", &[a.dt], &[b.dt], 0.0, 1.0);
    check(what, i, "lengths", &a.lengths, &b.lengths, 0.0, 1.0);
    let spin = (0..3).map(|k| a.wrel[k].abs()).fold(1e-30f32, f32::max);
    check(what, i, "wrel", &a.wrel, &b.wrel, tol, spin);
}

#[test]
fn resolvers_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x5EED_0001);
    let dt = 1e-6f32;
    for &r in ResolverKind::ALL {
        let tol = r.parity_tolerance();
        let pairs = sphere_pairs(&mut rng);
        let b1: Vec<SphereBody> = pairs.iter().map(|p| p.0).collect();
        let n = b1.len();
        let zero_geom = vec![ContactGeom::default(); n];
        let name = format!("harness_resolve_{}", r.stem());
        match r {
            ResolverKind::SphereSphere | ResolverKind::SpherePoint => {
                let twin = match r {
                    ResolverKind::SpherePoint => resolve_sphere_point,
                    _ => resolve_sphere_sphere,
                };
                let b2: Vec<SphereBody> = pairs.iter().map(|p| p.1).collect();
                // Periodic in x only, over a box the pairs straddle.
                let domain = Domain {
                    min: [-0.06; 3],
                    max: [0.06; 3],
                    periodic: [true, false, false],
                }
                .params();
                let out = harness(
                    &ctx,
                    &name,
                    &[
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("domain", bytemuck::bytes_of(&domain)),
                        ("dt", bytemuck::bytes_of(&dt)),
                        ("geom", bytemuck::cast_slice(&zero_geom)),
                    ],
                    &["geom"],
                    n,
                );
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = twin(&b1[i], &b2[i], &domain, dt);
                    let size = b1[i].radius + b2[i].radius;
                    let speed = norm(b1[i].vel)
                        + norm(b2[i].vel)
                        + norm(b1[i].omega) * b1[i].radius
                        + norm(b2[i].omega) * b2[i].radius;
                    let pos_scale = norm(b1[i].pos).max(size);
                    // Measured for the wall resolvers alone, where a radial direction amplifies rounding.
                    let spread = [0.0; 4];
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
            ResolverKind::SpherePlane
            | ResolverKind::SphereCylinder
            | ResolverKind::SphereDisk
            | ResolverKind::SphereCone => {
                let twin = match r {
                    ResolverKind::SphereCone => resolve_sphere_cone,
                    ResolverKind::SphereCylinder => resolve_sphere_cylinder,
                    ResolverKind::SphereDisk => resolve_sphere_disk,
                    _ => resolve_sphere_plane,
                };
                let walls: Vec<Wall> = (0..n)
                    .map(|i| random_wall(r, &b1[i], &mut rng, i))
                    .collect();
                let out = harness(
                    &ctx,
                    &name,
                    &[
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("w", bytemuck::cast_slice(&walls)),
                        ("dt", bytemuck::bytes_of(&dt)),
                        ("geom", bytemuck::cast_slice(&zero_geom)),
                    ],
                    &["geom"],
                    n,
                );
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = twin(&b1[i], &walls[i], dt);
                    let size = b1[i].radius;
                    let wall_speed = norm(walls[i].velocity)
                        + norm(walls[i].omega) * (norm(b1[i].pos) + norm(walls[i].center));
                    let speed = norm(b1[i].vel) + norm(b1[i].omega) * b1[i].radius + wall_speed;
                    let pos_scale = norm(b1[i].pos).max(norm(walls[i].point)).max(size);
                    let spread = wall_spread(|b, w| twin(b, w, dt), &c, &b1[i], &walls[i]);
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
            ResolverKind::CapsuleSphere
            | ResolverKind::CapsuleCapsule
            | ResolverKind::CapsulePlane
            | ResolverKind::SphereTriangle
            | ResolverKind::CapsuleTriangle => {
                let domain = Domain {
                    min: [-0.06; 3],
                    max: [0.06; 3],
                    periodic: [true, false, false],
                }
                .params();
                let b2: Vec<SphereBody> = pairs.iter().map(|p| p.1).collect();
                let c1: Vec<CapsuleBody> =
                    (0..n).map(|i| capsule_of(&b1[i], &mut rng, i)).collect();
                let c2: Vec<CapsuleBody> = (0..n)
                    .map(|i| capsule_of(&b2[i], &mut rng, i + 1))
                    .collect();
                let tris: Vec<Triangle> = (0..n)
                    .map(|i| triangle_near(&b1[i], &b2[i], &mut rng, i))
                    .collect();
                let walls: Vec<Wall> = (0..n)
                    .map(|i| random_wall(ResolverKind::SpherePlane, &b1[i], &mut rng, i))
                    .collect();
                let mut inputs: Vec<(&str, &[u8])> = match r {
                    ResolverKind::CapsuleSphere => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                    ],
                    ResolverKind::CapsuleCapsule => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&c2)),
                    ],
                    ResolverKind::CapsulePlane => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("w", bytemuck::cast_slice(&walls)),
                    ],
                    ResolverKind::SphereTriangle => vec![
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("t", bytemuck::cast_slice(&tris)),
                    ],
                    _ => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("t", bytemuck::cast_slice(&tris)),
                    ],
                };
                if r != ResolverKind::CapsulePlane {
                    inputs.push(("domain", bytemuck::bytes_of(&domain)));
                }
                inputs.push(("dt", bytemuck::bytes_of(&dt)));
                inputs.push(("geom", bytemuck::cast_slice(&zero_geom)));
                let out = harness(&ctx, &name, &inputs, &["geom"], n);
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = match r {
                        ResolverKind::CapsuleSphere => {
                            resolve_capsule_sphere(&c1[i], &b2[i], &domain, dt)
                        }
                        ResolverKind::CapsuleCapsule => {
                            resolve_capsule_capsule(&c1[i], &c2[i], &domain, dt)
                        }
                        ResolverKind::CapsulePlane => resolve_capsule_plane(&c1[i], &walls[i], dt),
                        ResolverKind::SphereTriangle => {
                            resolve_sphere_triangle(&b1[i], &b2[i], &tris[i], &domain, dt)
                        }
                        _ => resolve_capsule_triangle(&c1[i], &b2[i], &tris[i], &domain, dt),
                    };
                    let size = b1[i].radius + b2[i].radius + c1[i].half_length + c2[i].half_length;
                    let speed = norm(b1[i].vel)
                        + norm(b2[i].vel)
                        + (norm(b1[i].omega) + norm(b2[i].omega)) * size
                        + norm(walls[i].velocity)
                        + norm(walls[i].omega) * (norm(b1[i].pos) + norm(walls[i].center));
                    let pos_scale = norm(b1[i].pos).max(norm(walls[i].point)).max(size);
                    // Measured for the wall resolvers alone, where a radial direction amplifies rounding.
                    let spread = [0.0; 4];
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
        }
        eprintln!("{name}: {n} inputs within {tol}");
    }
}

/// Sphere `b` as a capsule: its centre and radius, a random axis and a half-length of up to
/// twice its radius (zero in every fourth case, where a capsule is a sphere).
fn capsule_of(b: &SphereBody, rng: &mut SplitMix, i: usize) -> CapsuleBody {
    CapsuleBody {
        pos: b.pos,
        radius: b.radius,
        vel: b.vel,
        inv_mass: b.inv_mass,
        omega: b.omega,
        half_length: if i.is_multiple_of(4) {
            0.0
        } else {
            b.radius * rng.range(0.0, 2.0) as f32
        },
        axis: rng.unit(),
        _pad: 0.0,
    }
}

/// A triangle carried by `b2`, about the size of `b1`, near the segment between them: some
/// reach `b1`, some miss it.
fn triangle_near(b1: &SphereBody, b2: &SphereBody, rng: &mut SplitMix, i: usize) -> Triangle {
    let size = b1.radius * rng.range(0.5, 3.0) as f32;
    let towards: [f32; 3] = std::array::from_fn(|k| (b1.pos[k] - b2.pos[k]) * 0.5);
    let corner = |rng: &mut SplitMix| {
        let u = rng.unit();
        std::array::from_fn(|k| towards[k] * (i % 3) as f32 * 0.5 + u[k] * size)
    };
    Triangle {
        a: corner(rng),
        b: corner(rng),
        c: corner(rng),
        ..Default::default()
    }
}

/// A wall of the resolver's kind placed at a random distance around sphere `b` (touching in
/// about half the cases), moving in half of them.
fn random_wall(r: ResolverKind, b: &SphereBody, rng: &mut SplitMix, i: usize) -> Wall {
    let normal = rng.unit();
    let rad = b.radius;
    let d = if i == 1 {
        rad
    } else {
        rad * rng.range(0.5, 1.2) as f32
    };
    let x = b.pos;
    let across = {
        let a = rng.unit();
        let c = [
            a[1] * normal[2] - a[2] * normal[1],
            a[2] * normal[0] - a[0] * normal[2],
            a[0] * normal[1] - a[1] * normal[0],
        ];
        let l = norm(c).max(1e-6);
        c.map(|v| v / l)
    };
    let mut w = Wall::plane(std::array::from_fn(|k| x[k] - normal[k] * d), normal, 0);
    match r {
        ResolverKind::SphereCylinder => {
            // The axis along `normal`, the centre `rho` from it along `across`.
            let big = rad * rng.range(3.0, 10.0) as f32;
            w.kind = grains_core::gpu_types::WALL_CYLINDER;
            w.radius = big;
            w.hollow = (i % 2) as u32;
            let rho = if w.hollow == 1 { big - d } else { big + d };
            w.point = std::array::from_fn(|k| x[k] - across[k] * rho + normal[k] * rad);
        }
        ResolverKind::SphereCone => {
            // The orifice below the sphere (the rim) or beside it (the slanted wall).
            let r0 = rad * rng.range(2.0, 6.0) as f32;
            w.kind = grains_core::gpu_types::WALL_CONE;
            w.radius = r0;
            w.slope = rng.range(0.2, 1.5) as f32;
            let rho = r0 * rng.range(0.0, 1.4) as f32;
            let h = rad * rng.range(-1.5, 4.0) as f32;
            w.point = std::array::from_fn(|k| x[k] - across[k] * rho - normal[k] * h);
        }
        ResolverKind::SphereDisk => {
            // The centre projected `d` below, offset across by up to 1.5 disk radii (the rim).
            let big = rad * rng.range(1.0, 4.0) as f32;
            let off = big * rng.range(0.0, 1.5) as f32;
            w.kind = grains_core::gpu_types::WALL_DISK;
            w.radius = big;
            w.point = std::array::from_fn(|k| x[k] - normal[k] * d - across[k] * off);
        }
        _ => {}
    }
    if i % 2 == 1 {
        w.velocity = rng.unit().map(|v| v * 0.3);
        w.omega = rng.unit().map(|v| v * 20.0);
        w.center = std::array::from_fn(|k| w.point[k] + across[k] * 0.01);
        w.moving = 1;
    }
    w
}

/// A rounding of floats by 4 ulp, up or down, the signs drawn from a generator seeded by `tag`
/// and the bits of `words` (a case's inputs), so that a case always gets the same roundings:
/// the input rounding of [`rounding_spread`] and [`wall_spread`].
fn ulp_rounder(tag: u64, words: &[u32]) -> impl FnMut(&mut f32) {
    let seed = words.iter().fold(tag, |a, &x| a.rotate_left(5) ^ x as u64);
    let mut rng = SplitMix(seed);
    move |x: &mut f32| {
        let s = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
        *x *= 1.0 + s * 4.0 * f32::EPSILON;
    }
}

/// How far a law's twin moves under the rounding of its inputs: every float of the geometry
/// and the incoming force, and every history word that is not exact, scaled by 1 + 4 ulp or
/// 1 - 4 ulp (signs from a generator seeded by the inputs), three times; per output lane (the
/// `ContactForce`'s 16 floats, then the history words) the largest change from the twin's
/// outputs on the inputs as they are, `(f0, h0)`. A GPU whose compiler fuses multiply-adds and whose divisions and square roots round
/// to 2.5 ulp (both within WGSL's accuracy rules) differs from the twin by about this where a
/// law subtracts nearly equal terms: a dashpot cancelling most of a spring, the normal speed of
/// a nearly tangential velocity. Without it an H100 failed cases at 1.5e-5 and 5.8e-5 of the
/// force scale, from one-ulp differences; lavapipe gives the twin's bits there.
fn rounding_spread(
    law: LawKind,
    geom: &ContactGeom,
    params: &[u32],
    history: &[f32],
    force: &ContactForce,
    words: &[Word],
    (f0, h0): (&ContactForce, &[f32]),
) -> ([f32; 16], Vec<f32>) {
    let run = |g: &ContactGeom, h: &[f32], f: &ContactForce| {
        let (mut h, mut f) = (h.to_vec(), *f);
        law.apply(g, params, &mut h, &mut f);
        (f, h)
    };
    let lanes = |f: &ContactForce| -> [f32; 16] { bytemuck::cast(*f) };
    let mut bump = ulp_rounder(
        0x5EED_0003,
        bytemuck::cast_slice(std::slice::from_ref(geom)),
    );
    let (mut sf, mut sh) = ([0.0f32; 16], vec![0.0f32; h0.len()]);
    for _ in 0..3 {
        let (mut g, mut h, mut f) = (*geom, history.to_vec(), *force);
        bytemuck::cast_slice_mut::<ContactGeom, f32>(std::slice::from_mut(&mut g))
            .iter_mut()
            .for_each(&mut bump);
        bytemuck::cast_slice_mut::<ContactForce, f32>(std::slice::from_mut(&mut f))
            .iter_mut()
            .for_each(&mut bump);
        for (x, w) in h.iter_mut().zip(words) {
            if *w != Word::Exact {
                bump(x);
            }
        }
        let (f1, h1) = run(&g, &h, &f);
        for (k, (a, b)) in lanes(f0).iter().zip(lanes(&f1)).enumerate() {
            sf[k] = sf[k].max((a - b).abs());
        }
        for (k, (a, b)) in h0.iter().zip(&h1).enumerate() {
            sh[k] = sh[k].max((a - b).abs());
        }
    }
    (sf, sh)
}

/// Every law of the registry through its harness kernel, on 10,000 random cases its own module
/// generates (edge cases first), against its CPU twin, within the tolerance it declares.
/// Scales: forces and torques relative to the largest force magnitude of the case; stiffness
/// relative to itself; energies relative to the work scale `|F| |delta| + |F| |v| dt` plus their
/// own size (several are differences of terms); history words by what each measures
/// ([`Word`]): forces and energies by those scales, lengths by the record's largest length,
/// flags exactly.
#[test]
fn laws_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x5EED_0002);
    for &law in LawKind::ALL {
        let tol = law.parity_tolerance();
        let cases: Vec<_> = (0..N_RANDOM)
            .map(|i| law.parity_case(&mut rng, i))
            .collect();
        let n = cases.len();
        let words = law.history_words();
        // A law without history gets the harness's one-word placeholder.
        let hw = words.len().max(1);
        let gs: Vec<ContactGeom> = cases.iter().map(|c| c.geom).collect();
        let ps: Vec<u32> = cases.iter().flat_map(|c| c.params.clone()).collect();
        let hs: Vec<f32> = cases
            .iter()
            .flat_map(|c| {
                let mut h = c.history.clone();
                h.resize(hw, 0.0);
                h
            })
            .collect();
        let fs: Vec<ContactForce> = cases.iter().map(|c| c.force).collect();
        let name = format!("harness_law_{}", law.stem());
        let out = harness(
            &ctx,
            &name,
            &[
                ("geom", bytemuck::cast_slice(&gs)),
                ("params", bytemuck::cast_slice(&ps)),
                ("history_in", bytemuck::cast_slice(&hs)),
                ("force_in", bytemuck::cast_slice(&fs)),
                ("history_out", bytemuck::cast_slice(&hs)),
                ("force_out", bytemuck::cast_slice(&fs)),
            ],
            &["history_out", "force_out"],
            n,
        );
        let gh: Vec<f32> = bytemuck::pod_collect_to_vec(&out[0]);
        let gf: Vec<ContactForce> = bytemuck::pod_collect_to_vec(&out[1]);
        let mut worst = 0.0f32;
        for (i, c) in cases.iter().enumerate() {
            let (mut h, mut f) = (c.history.clone(), c.force);
            law.apply(&c.geom, &c.params, &mut h, &mut f);
            let fscale = norm(f.force).max(f.normal_force).max(norm(c.force.force));
            let (sf, sh) = rounding_spread(
                law,
                &c.geom,
                &c.params,
                &c.history,
                &c.force,
                words,
                (&f, &h),
            );
            // Each field's bound adds 4 times the twin's own spread under input rounding.
            let sl = |lanes: std::ops::Range<usize>| {
                4.0 * sf[lanes].iter().fold(0.0f32, |a, &x| a.max(x))
            };
            let escale = fscale * (c.geom.delta.abs() + norm(c.geom.vrel) * c.geom.dt)
                + f.elastic.abs()
                + f.damping_dissipated.abs()
                + f.friction_dissipated.abs()
                + 1e-30;
            // The largest word of a kind, in the record before and after the law.
            let largest = |kind: Word| {
                words
                    .iter()
                    .zip(h.iter().zip(&c.history))
                    .filter(|(w, _)| **w == kind)
                    .map(|(_, (x, y))| x.abs().max(y.abs()))
                    .fold(1e-30f32, f32::max)
            };
            // A length the law stores (a spring's rest length, a tangential displacement) is kept
            // to an ulp, and a GPU that fuses `d - s e` into one rounding keeps it an ulp away
            // from the twin: the energies then differ by the force across that ulp, whatever
            // their own size. An H200 gave 1.5e-9 J (7 %) on a serial dashpot's relaxation of
            // 2.1e-8 J, a 12 N spring 7.5 mm long: 1 ulp of the rest length is 4.7e-10 m.
            let longest = largest(Word::Length).max(c.geom.lengths[0] + c.geom.lengths[1]);
            let eslack = 2.0 * fscale * f32::EPSILON * longest;
            let g = &gf[i];
            // ContactForce's lanes: force 0..3, normal_force 3, torque1 4..7, stiffness 7,
            // torque2 8..11, elastic 11, damping 12, friction 13.
            check_slack(&name, i, "force", &f.force, &g.force, tol, fscale, sl(0..3));
            let nf = (&[f.normal_force], &[g.normal_force]);
            check_slack(&name, i, "normal_force", nf.0, nf.1, tol, fscale, sl(3..4));
            let k = (&[f.stiffness], &[g.stiffness]);
            check_slack(
                &name,
                i,
                "stiffness",
                k.0,
                k.1,
                tol,
                f.stiffness.abs(),
                sl(7..8),
            );
            let t1 = norm(f.torque1).max(1e-30);
            check_slack(
                &name,
                i,
                "torque1",
                &f.torque1,
                &g.torque1,
                tol,
                t1,
                sl(4..7),
            );
            let t2 = norm(f.torque2).max(1e-30);
            check_slack(
                &name,
                i,
                "torque2",
                &f.torque2,
                &g.torque2,
                tol,
                t2,
                sl(8..11),
            );
            let e = (&[f.elastic], &[g.elastic]);
            check_slack(
                &name,
                i,
                "elastic",
                e.0,
                e.1,
                tol,
                escale,
                sl(11..12) + eslack,
            );
            let d = (&[f.damping_dissipated], &[g.damping_dissipated]);
            check_slack(
                &name,
                i,
                "damping_dissipated",
                d.0,
                d.1,
                tol,
                escale,
                sl(12..13) + eslack,
            );
            let d = (&[f.friction_dissipated], &[g.friction_dissipated]);
            check_slack(
                &name,
                i,
                "friction_dissipated",
                d.0,
                d.1,
                tol,
                escale,
                sl(13..14) + eslack,
            );
            let lscale = largest(Word::Length);
            let ascale = largest(Word::Angle);
            let mscale = largest(Word::Moment).max(t1).max(t2);
            for (w, kind) in words.iter().enumerate() {
                let (a, b) = (h[w], gh[i * hw + w]);
                let field = format!("history word {w} ({kind:?})");
                let scale = match kind {
                    Word::Exact => {
                        assert_eq!(a, b, "{name} #{i} {field}");
                        continue;
                    }
                    Word::Force => a.abs().max(fscale),
                    Word::Energy => a.abs().max(escale),
                    Word::Length => lscale,
                    Word::Angle => ascale,
                    Word::Moment => mscale,
                    Word::Own => a.abs(),
                };
                check_slack(&name, i, &field, &[a], &[b], tol, scale, 4.0 * sh[w]);
            }
            for k in 0..3 {
                if fscale > 0.0 {
                    worst = worst.max((f.force[k] - g.force[k]).abs() / fscale);
                }
            }
        }
        eprintln!(
            "{name}: {n} inputs, worst force difference {worst:e} of scale (tolerance {tol})"
        );
    }
}

/// The compensated drift survives the shader compiler: a particle at 0.1 m moving 1e-9 m per
/// step (under half an ulp) must advance on the GPU exactly as on the CPU. Mesa folds a plain
/// Kahan compensation to zero; `StepParams::unit` keeps it.
#[test]
fn compensated_drift_survives_the_shader_compiler() {
    let Some(ctx) = gpu_context() else { return };
    let w = slow_particle_world();
    let mut g = gpu(w, &ctx);
    g.run(2000);
    let s = g.snapshot();
    let ulp = 0.1f32.next_up() - 0.1f32;
    assert!(
        (s.pos[0][0] - (0.1 + 2e-6) as f32).abs() <= ulp,
        "x = {}",
        s.pos[0][0]
    );
    assert!(
        (s.pos[0][1] - (0.1 - 2e-6) as f32).abs() <= ulp,
        "y = {}",
        s.pos[0][1]
    );
}

/// Two materials with three different chains (and a wall material with a fourth): the
/// per-material-pair table and each chain kernel's CHAIN_ID filter must route every pair to
/// its own laws on the GPU exactly as on the CPU.
#[test]
fn scene_two_materials_several_chains() {
    use grains_core::materials::Interaction;
    let Some(ctx) = gpu_context() else { return };
    let (lo, hi) = ([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    let mut p = lattice_particles(lo, hi, 0.5e-3, 1.2e-3, 2500.0, 0.2, 20.0, 29);
    // Every third particle becomes the second material (heavier, stiffer).
    for (k, m) in p.material.iter_mut().enumerate() {
        if k % 3 == 0 {
            *m = 1;
            p.mass[k] *= 3.0;
            p.inertia[k] *= 3.0;
            p.vel[k][3] /= 3.0;
            p.omega[k][3] /= 3.0;
        }
    }
    let glass = material("glass", 1e7, 2500.0);
    let steel = material("steel", 5e7, 7500.0);
    let cs = |mu: f64| cundall_strack(mu, mu, TangentialStiffness::Mindlin);
    let interactions = vec![
        Interaction::new(0, 0, vec![hertz(), viscous(0.5), cs(0.5)]),
        Interaction::new(1, 1, vec![linear(None), viscous(0.8)]),
        Interaction::new(0, 1, vec![hertz_damped(1e-6), cs(0.3)]),
    ];
    let mut walls = box_walls([0.0; 3], [1.2e-2, 1.2e-2, 1.6e-2]);
    for w in &mut walls {
        w.material = 1;
    }
    let world = World::new(
        p,
        walls,
        vec![glass, steel],
        interactions,
        Domain {
            min: lo,
            max: hi,
            periodic: [false; 3],
        },
        [0.0, 0.0, -9.81],
        2e-6,
        1e-4,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        world.table.chains.len() >= 5,
        "expected distinct sphere and wall chains, got {:?}",
        world.table.chains
    );
    scene_parity(
        "two materials",
        world,
        &ctx,
        400,
        GpuOptions::default(),
        (1e-5, 1e-3),
    );
}

/// `grains bench --profile`'s machinery: every pass of the step is timed and its traffic
/// counted, rebuild passes at the share of steps that rebuilt.
#[test]
fn the_step_profile_covers_every_pass() {
    let Some(ctx) = gpu_context() else { return };
    let world = grains_cli::bench::settle_world(3200).expect("settle");
    let n = world.particles.len();
    let mut g = gpu(world, &ctx);
    g.run(5);
    let p = g.profile(40).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.particles, n);
    let label = |s: &str| {
        p.passes
            .iter()
            .find(|x| x.label == s)
            .unwrap_or_else(|| panic!("no {s}"))
    };
    // The settle has nothing between the gather and the second half: one fused pass.
    assert!(
        p.passes
            .iter()
            .all(|x| x.label != "gather" && x.label != "integrate_second_half"),
        "the step's gather and kick are fused"
    );
    for pass in ["integrate_first_half", "gather_kick"] {
        let x = label(pass);
        assert_eq!(x.dispatches, 1.0, "{pass}");
        assert!(x.read > 0.0 && x.written > 0.0, "{pass}: no traffic");
        if p.timestamps {
            assert!(x.seconds > 0.0, "{pass}: no time");
        }
    }
    // integrate_first_half streams the particle arrays: at least pos, vel, omega, force,
    // torque, ref_pos, pos_comp (16 B each) per particle; the settle's spheres keep no
    // orientation, so `quat` is one element.
    let first = label("integrate_first_half").read;
    assert!(first >= 7.0 * 16.0 * n as f64, "{first}");
    assert!(
        first < 8.0 * 16.0 * n as f64,
        "{first}: the orientations are read"
    );
    let chains = p
        .passes
        .iter()
        .filter(|x| x.label.starts_with("chain "))
        .count();
    assert_eq!(chains, 2, "settle has a sphere and a wall chain");
    let want = p.rebuilds as f64 / 40.0;
    assert!((label("pair_fill").dispatches - want).abs() < 1e-12);
    assert!(p.bytes_per_particle_step() > 0.0 && p.bandwidth_bound(3e12).is_finite());
}

/// The GPU backend hands its state out buffer by buffer (`stream_state`), so that a checkpoint
/// does not hold the state twice on the host: the file is byte for byte the one written from
/// its whole `state()` (a settling box with walls and friction, 300 steps, pairs in contact).
#[test]
fn streamed_gpu_checkpoints_are_the_whole_states_bytes() {
    let Some(ctx) = gpu_context() else { return };
    let mut g = gpu(settling_box_spaced(41, 1.02e-3), &ctx);
    g.run(300);
    let state = g.state();
    assert!(!state.slots.is_empty(), "pairs in contact");
    let dir = std::env::temp_dir().join(format!("grains-gpu-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let (whole, streamed) = (dir.join("whole.bin"), dir.join("streamed.bin"));
    grains_io::write_checkpoint(&whole, 3, &state).expect("write");
    grains_io::write_backend_checkpoint(&streamed, 3, &mut g).expect("write");
    let (a, s) = (
        std::fs::read(&whole).expect("read"),
        std::fs::read(&streamed).expect("read"),
    );
    let first = a.iter().zip(&s).position(|(x, y)| x != y);
    assert!(
        a.len() == s.len() && first.is_none(),
        "{} and {} bytes, first difference at {first:?}",
        a.len(),
        s.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The GPU keeps the list with each pair once, so it cannot hold a state whose list names a
/// pair from one side only (particle 2 lists 1, which does not list 2: a valid state, whose
/// entry names record `u32::MAX`, that no backend builds but a hand-made file may hold). It
/// says so instead of dropping the entry; the same state goes up on the CPU backend.
#[test]
fn a_state_naming_a_pair_from_one_side_only_is_refused_with_a_reason() {
    let Some(ctx) = gpu_context() else { return };
    let mut p = Particles::default();
    for x in [0.0, 0.01, 0.02] {
        p.push_sphere([x, 0.0, 0.0], 0.001, [0.0; 3], [0.0; 3], 0, 2500.0, false);
    }
    let world = grains_tests::worlds::world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        hertz_only(),
        open_domain(1.0),
        [0.0; 3],
        1e-5,
        0.0005,
    );
    let mut state = cpu(world.clone()).state();
    state.nbr_start = vec![0, 2, 3, 5];
    state.nbr_j = vec![1, 2, 0, 0, 1];
    state.nbr_pair = vec![0, 1, 0, 1, u32::MAX];
    state.nbr_slot = vec![0, 0];
    state.validate(&world).expect("a valid state");
    assert!(CpuBackend::from_state(world.clone(), state.clone()).is_ok());
    let e = match GpuBackend::from_state(world, &ctx, &state) {
        Ok(_) => panic!("the GPU took up a list it cannot hold"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("from one side only") && e.contains("CPU backend"),
        "{e}"
    );
}
