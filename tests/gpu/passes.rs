//! Pass-by-pass parity on whole scenes, orientations carried through a resume, and the scans
//! in blocks.

use super::*;

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

/// `kinematic_power` on the GPU against its twin on seeded random particles: fixed and free,
/// clump members among them, forces, torques and velocities of either sign over four decades,
/// and accumulators already holding work. Tolerance: the power is two 3-term dot products and
/// one Kahan step, which a driver may fuse or round differently by an ulp or two of each term,
/// so 1e-6 of `(|F| |v| + |T| |omega|) dt` plus 1e-6 of the accumulator; the booked work
/// (`sum - compensation`) is compared, and free particles and members must be left bit for bit.
#[test]
fn kinematic_power_matches_its_twin() {
    use grains_core::kernel_types::StepParams;
    use grains_core::kernels::passes::kinematic_power;
    use grains_core::parity::SplitMix;
    use grains_core::shapes::ShapeRecord;
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x4B1E);
    let n = 1000usize;
    let step = StepParams {
        dt: 1e-6,
        kick: 5e-7,
        n_particles: n as u32,
        unit: 1.0,
        ..bytemuck::Zeroable::zeroed()
    };
    let mut vec4 = |w: f32| -> [f32; 4] {
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        let mut c = || (rng.range(-1.0, 1.0) * scale) as f32;
        [c(), c(), c(), w]
    };
    let vel: Vec<[f32; 4]> = (0..n)
        .map(|i| vec4(if i % 3 == 0 { 2.5 } else { 0.0 }))
        .collect();
    let omega: Vec<[f32; 4]> = (0..n).map(|_| vec4(0.0)).collect();
    let force: Vec<[f32; 4]> = (0..n).map(|_| vec4(0.0)).collect();
    let torque: Vec<[f32; 4]> = (0..n).map(|_| vec4(0.0)).collect();
    let shapes = vec![
        ShapeRecord::sphere(),
        ShapeRecord::member([1e-3, 0.0, 0.0], 1),
    ];
    let shape: Vec<u32> = (0..n).map(|i| (i % 7 == 0) as u32).collect();
    let work0: Vec<[f32; 2]> = (0..n)
        .map(|_| {
            let a = rng.range(-1e-6, 1e-6) as f32;
            [a, a * 1e-8]
        })
        .collect();
    let src = grains_shaders::compose_pass("kinematic_power").unwrap_or_else(|e| panic!("{e}"));
    let bytes = |v: &[[f32; 4]]| bytemuck::cast_slice::<_, u8>(v).to_vec();
    let out = grains_gpu::kernel::run_once(
        &ctx,
        "kinematic_power",
        &src,
        "kinematic_power",
        &[
            ("step", bytemuck::bytes_of(&step)),
            ("vel", &bytes(&vel)),
            ("omega", &bytes(&omega)),
            ("force", &bytes(&force)),
            ("torque", &bytes(&torque)),
            ("shape", bytemuck::cast_slice(&shape)),
            ("shapes", bytemuck::cast_slice(&shapes)),
            ("kinematic_work", bytemuck::cast_slice(&work0)),
        ],
        &["kinematic_work"],
        n.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let gpu: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(&out[0]);
    let norm = |a: [f32; 4]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt() as f64;
    let mut booked = 0;
    for i in 0..n {
        let mut twin = work0[i];
        kinematic_power(
            i, &step, &vel, &omega, &force, &torque, &shape, &shapes, &mut twin,
        );
        if twin == work0[i] {
            assert_eq!(gpu[i], work0[i], "particle {i}: the twin books nothing");
            continue;
        }
        booked += 1;
        let scale =
            (norm(force[i]) * norm(vel[i]) + norm(torque[i]) * norm(omega[i])) * step.dt as f64;
        let tol = 1e-6 * (scale + work0[i][0].abs() as f64);
        let (g, c) = (
            gpu[i][0] as f64 - gpu[i][1] as f64,
            twin[0] as f64 - twin[1] as f64,
        );
        assert!(
            (g - c).abs() <= tol,
            "particle {i}: gpu {g:e}, twin {c:e}, tolerance {tol:e}"
        );
    }
    assert!(booked > n / 2, "only {booked} particles booked work");
}

// ---------------------------------------------------------------------------------------------
// Whole scenes
