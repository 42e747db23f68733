//! Every resolver and law against its CPU twin through the harness kernels, on seeded random
//! inputs.

use super::*;

// ---------------------------------------------------------------------------------------------
// Elements through their harness kernels

use grains_core::kernel_types::{ContactForce, ContactGeom, Triangle};
use grains_core::parity::{resolver_domain, ulp_rounder, RESOLVER_DT};
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

/// Resolver outputs: directions to `tol` absolute (unit vectors), lengths to `tol` of the
/// pair's size (the overlap is a difference of nearly equal lengths, so relative to itself
/// it would be ill-conditioned), velocities to `tol` of the pair's largest surface speed,
/// masses, radii and pass-through values relative to themselves.
///
/// `spread` is the twin's own movement under input rounding
/// ([`grains_core::kernels::resolvers::Resolver::rounding_spread`]: normal, overlap, arms,
/// point; zero where not measured), four times of which each bound adds.
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
    // Capsule pairs' cos sin of their axes (at most 1/2), zero at the caps.
    check(what, i, "alignment", &a.alignment, &b.alignment, tol, 0.5);
}

/// Every resolver of the registry through its harness kernel, on 10,000 random cases its own
/// module generates (edge cases first), against its CPU twin, within the tolerance it declares;
/// lengths, speeds and positions at the scales of its case ([`compare_geom`]).
#[test]
fn resolvers_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x5EED_0001);
    let (domain, dt) = (resolver_domain(), RESOLVER_DT);
    for &r in ResolverKind::ALL {
        let tol = r.parity_tolerance();
        let cases: Vec<_> = (0..N_RANDOM).map(|i| r.parity_case(&mut rng, i)).collect();
        let n = cases.len();
        let b1: Vec<u32> = cases.iter().flat_map(|c| c.b1.clone()).collect();
        let b2: Vec<u32> = cases.iter().flat_map(|c| c.b2.clone()).collect();
        let tris: Vec<Triangle> = cases.iter().map(|c| c.triangle).collect();
        let zero_geom = vec![ContactGeom::default(); n];
        let name = r.harness();
        let out = harness(
            &ctx,
            name,
            &[
                ("b1", bytemuck::cast_slice(&b1)),
                ("b2", bytemuck::cast_slice(&b2)),
                ("t", bytemuck::cast_slice(&tris)),
                ("domain", bytemuck::bytes_of(&domain)),
                ("dt", bytemuck::bytes_of(&dt)),
                ("geom", bytemuck::cast_slice(&zero_geom)),
            ],
            &["geom"],
            n,
        );
        let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
        for (i, c) in cases.iter().enumerate() {
            let a = r.parity_twin(c, &domain, dt);
            let spread = r.rounding_spread(c, &domain, dt);
            compare_geom(
                name,
                i,
                &a,
                &gpu[i],
                tol,
                c.size,
                c.speed,
                c.pos_scale,
                spread,
            );
        }
        eprintln!("{name}: {n} inputs within {tol}");
    }
}

/// How far a law's twin moves under the rounding of its inputs: every float of the geometry
/// and the incoming force, and every history word that is not exact, scaled by 1 + 4 ulp or
/// 1 - 4 ulp (signs from a generator seeded by the inputs, [`ulp_rounder`]), three times; per output lane (the
/// `ContactForce`'s 20 floats, then the history words) the largest change from the twin's
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
) -> ([f32; 20], Vec<f32>) {
    let run = |g: &ContactGeom, h: &[f32], f: &ContactForce| {
        let (mut h, mut f) = (h.to_vec(), *f);
        law.apply(g, params, &mut h, &mut f);
        (f, h)
    };
    let lanes = |f: &ContactForce| -> [f32; 20] { bytemuck::cast(*f) };
    let mut bump = ulp_rounder(
        0x5EED_0003,
        bytemuck::cast_slice(std::slice::from_ref(geom)),
    );
    let (mut sf, mut sh) = ([0.0f32; 20], vec![0.0f32; h0.len()]);
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
            // torque2 8..11, elastic 11, damping 12, friction 13, gamma_n 14, gamma_t 15,
            // stiffness_t 16, area 17.
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
            // The declared blocks and area, each against its own size.
            for (lane, what, a, b) in [
                (14, "gamma_n", f.gamma_n, g.gamma_n),
                (15, "gamma_t", f.gamma_t, g.gamma_t),
                (16, "stiffness_t", f.stiffness_t, g.stiffness_t),
                (17, "area", f.area, g.area),
            ] {
                let scale = a.abs().max(1e-30);
                check_slack(&name, i, what, &[a], &[b], tol, scale, sl(lane..lane + 1));
            }
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

/// Each wall kind's distance bound (the broad phase's test of which walls a particle may touch)
/// against its CPU twin, on walls of every kind placed about random spheres as the resolvers'
/// parity cases place them. Tolerance: 1e-5 of the distances involved (the point's distance
/// from the wall's point plus the wall's radius), a few ulps of the lengths, squares and square
/// root the bound takes.
#[test]
fn wall_distance_bounds_match_their_twins() {
    use grains_core::kernel_types::{SphereBody, Wall};
    use grains_core::kernels::walls::{wall_distance_bound, WallKind};
    use grains_core::parity::{random_wall, SplitMix};
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x3A11);
    let n = 4000usize;
    let (mut walls, mut points) = (Vec::<Wall>::new(), Vec::<[f32; 4]>::new());
    for i in 0..n {
        let kind = WallKind::ALL[i % WallKind::ALL.len()];
        let b = SphereBody {
            pos: rng.vec3(0.05),
            radius: rng.log_uniform(1e-4, 1e-2),
            ..Default::default()
        };
        walls.push(random_wall(kind.id(), &b, &mut rng, i));
        points.push([b.pos[0], b.pos[1], b.pos[2], 0.0]);
    }
    let lib = grains_shaders::compose_file("lib/wall.wgsl").unwrap_or_else(|e| panic!("{e}"));
    let src = format!(
        "{lib}
@group(0) @binding(0) var<storage, read> walls: array<Wall>;
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> bound: array<f32>;
@compute @workgroup_size(64)
fn wall_bounds(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i < arrayLength(&bound)) {{
        bound[i] = wall_distance_bound(walls[i], points[i].xyz);
    }}
}}
"
    );
    let out = grains_gpu::kernel::run_once(
        &ctx,
        "wall_bounds",
        &src,
        "wall_bounds",
        &[
            ("walls", bytemuck::cast_slice(&walls)),
            ("points", bytemuck::cast_slice(&points)),
            ("bound", &vec![0u8; 4 * n]),
        ],
        &["bound"],
        n.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let gpu: Vec<f32> = bytemuck::pod_collect_to_vec(&out[0]);
    for i in 0..n {
        let (w, x) = (&walls[i], points[i]);
        let cpu = wall_distance_bound(w, [x[0], x[1], x[2]]);
        let d: f32 = (0..3)
            .map(|k| (x[k] - w.point[k]).powi(2))
            .sum::<f32>()
            .sqrt();
        let tol = 1e-5 * (d + w.radius);
        assert!(
            (gpu[i] - cpu).abs() <= tol,
            "wall {i} ({:?}): gpu {:e}, cpu {cpu:e}, tolerance {tol:e}",
            WallKind::of(w.kind),
            gpu[i]
        );
    }
}
