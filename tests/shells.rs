//! Triangulated shells: the hinge resolver's gradient, Van Gelder's sheet modulus, bending
//! energy on a cylinder, Maxwell relaxation, a closed shell bouncing on a floor, CPU/GPU parity
//! of the shell passes on random states, mesh files and the `[[shell]]` block's errors.

use glam::Vec3;
use grains_core::kernels::shell::triangle_triangle_common_edge::resolve_triangle_triangle_common_edge;
use grains_core::kernels::shell::volume_conservation::law_volume_conservation;
use grains_core::kernels::shell::{BendingLaw, DampingLaw, ShellLaws, StretchLaw, VolumeLaw};
use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::shells::{Mesh, ShellSpec, Shells};
use grains_core::{Backend, CpuBackend, Particles, World};
use grains_gpu::{AdapterRequest, GpuBackend, GpuContext};
use grains_tests::worlds::{hertz, open_domain, wall, SplitMix};
use grains_tests::{gpu_required, workspace_root};

const E: f64 = 1.0e6;
const T: f64 = 2.0e-4;
const RHO: f64 = 1000.0;

fn membrane() -> Material {
    Material {
        name: "membrane".into(),
        density: RHO,
        young: E,
        poisson: 0.3,
        drag: Default::default(),
    }
}

fn spec(mesh: Mesh, laws: ShellLaws) -> ShellSpec {
    ShellSpec {
        mesh,
        material: 0,
        thickness: T,
        contact_radius: None,
        velocity: [0.0; 3],
        laws,
        contact: None,
    }
}

/// A world of `shells` (material 0, node contacts Hertz), walls of material 0, domain of half
/// width `half`.
fn shell_world(shells: &[ShellSpec], walls: Vec<[[f32; 3]; 2]>, half: f64, gravity: f64) -> World {
    let mats = vec![membrane()];
    let mut p = Particles::default();
    let mut sh = Shells::default();
    for s in shells {
        sh.add(s, &mats, &mut p).expect("shell");
    }
    let walls = walls.into_iter().map(|[x, n]| wall(x, n)).collect();
    World::new(
        p,
        walls,
        mats,
        vec![Interaction::new(0, 0, vec![hertz()])],
        open_domain(half),
        [0.0, 0.0, -gravity],
        1e-7,
        1e-5,
    )
    .and_then(|w| w.with_shells(sh))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn stretch_only() -> ShellLaws {
    ShellLaws {
        stretch: Some(StretchLaw::ElasticShellSpring),
        ..Default::default()
    }
}

/// An equilateral sheet of `nx` bases of `a` (m) by `ny` rows at the origin.
fn equilateral_sheet(nx: u32, ny: u32, a: f64) -> Mesh {
    let dy = a * 3f64.sqrt() / 2.0;
    Mesh::sheet([0.0; 3], [nx as f64 * a, ny as f64 * dy], [nx, ny])
}

#[test]
fn hinge_gradient_is_the_angle_derivative_and_exerts_no_net_force_or_moment() {
    let mut rng = SplitMix(17);
    let mut u = || rng.uniform() * 2.0 - 1.0;
    for case in 0..200 {
        let x: Vec<[f64; 3]> = (0..4).map(|_| [u(), u(), u()]).collect();
        let f32v = |p: [f64; 3]| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32);
        let theta = |x: &[[f64; 3]]| {
            // The angle in f64, independently of the twin: atan2 of the normals.
            let s = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
            let c = |a: [f64; 3], b: [f64; 3]| {
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ]
            };
            let d = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            let e = s(x[1], x[0]);
            let n1 = c(e, s(x[2], x[0]));
            let n2 = c(s(x[0], x[1]), s(x[3], x[1]));
            (d(c(n1, n2), e) / d(e, e).sqrt()).atan2(d(n1, n2))
        };
        let h = resolve_triangle_triangle_common_edge(
            f32v(x[1]) - f32v(x[0]),
            f32v(x[2]) - f32v(x[0]),
            f32v(x[3]) - f32v(x[0]),
        );
        assert!(
            (h.theta as f64 - theta(&x)).abs() < 1e-5,
            "case {case}: angle"
        );
        // Central differences in f64 of the f64 angle; the gradient's scale is 1/h.
        let scale = h
            .grad
            .iter()
            .map(|g| Vec3::from(*g).length())
            .fold(0.0f32, f32::max) as f64;
        let step = 1e-6;
        for (k, g) in h.grad.iter().enumerate() {
            for c in 0..3 {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[k][c] += step;
                xm[k][c] -= step;
                let num = (theta(&xp) - theta(&xm)) / (2.0 * step);
                // f32 gradient against an f64 derivative: 1e-3 of the largest component.
                assert!(
                    (num - g[c] as f64).abs() < 1e-3 * scale,
                    "case {case}, node {k}, axis {c}: {num} vs {}",
                    g[c]
                );
            }
        }
        let sum = h.grad.iter().fold(Vec3::ZERO, |s, g| s + Vec3::from(*g));
        let moment = h.grad.iter().zip(&x).fold(Vec3::ZERO, |m, (g, p)| {
            m + (f32v(*p) - f32v(x[0])).cross(Vec3::from(*g))
        });
        assert!(
            sum.length() < 1e-5 * scale as f32,
            "case {case}: net force {sum}"
        );
        assert!(
            moment.length() < 1e-5 * scale as f32,
            "case {case}: net moment {moment}"
        );
    }
}

/// Force on each node of a sheet stretched affinely by `eps` along x with lateral strain
/// `lateral` (from the undeformed rest lengths), from the first force evaluation.
fn stretched_sheet(mesh: &Mesh, eps: f64, lateral: f64) -> (CpuBackend, Vec<[f64; 3]>) {
    let mut w = shell_world(&[spec(mesh.clone(), stretch_only())], vec![], 1.0, 0.0);
    for (p, v) in w.particles.pos.iter_mut().zip(&mesh.vertices) {
        p[0] = (v[0] * (1.0 + eps)) as f32;
        p[1] = (v[1] * (1.0 + lateral)) as f32;
    }
    let b = CpuBackend::new(w).expect("backend");
    (b, mesh.vertices.clone())
}

#[test]
fn stretched_sheet_has_van_gelders_modulus_and_poisson_ratio_one_third() {
    let (nx, ny, a) = (12, 12, 1e-3);
    let mesh = equilateral_sheet(nx, ny, a);
    let eps = 2e-3;
    let (b, x0) = stretched_sheet(&mesh, eps, -eps / 3.0);
    let h = ny as f64 * a * 3f64.sqrt() / 2.0;
    // Uniaxial stress: the pull on the right edge is the 2-D modulus E t times eps times the
    // height, and nothing else carries load.
    let want = E * T * eps * h;
    let right: f64 = (0..=ny)
        .map(|r| (r * (nx + 1) + nx) as usize)
        .map(|k| b.force[k][0] as f64)
        .sum();
    let rel = (right / -want - 1.0).abs();
    eprintln!("van gelder: pull {right:e} N, E t eps H = {want:e} N, relative error {rel:e}");
    // 0.5%: the diagonals' second-order stretch (eps^2) and f32 lengths (1e-7 / 2e-6 of a).
    assert!(
        rel < 5e-3,
        "pull {right} N against E t eps H = {want} N ({rel:e})"
    );
    let interior = (0..x0.len())
        .filter(|&k| {
            let (r, c) = (k as u32 / (nx + 1), k as u32 % (nx + 1));
            r > 0 && r < ny && c > 0 && c < nx
        })
        .map(|k| Vec3::from_slice(&b.force[k][..3]).length() as f64)
        .fold(0.0, f64::max);
    let per_node = want / (ny + 1) as f64;
    assert!(
        interior < 1e-2 * per_node,
        "interior imbalance {interior} N against {per_node} N"
    );
    // Poisson 1/3: with the lateral contraction eps/3 the top and bottom rows feel no pull
    // along y; with none, they do (by about a third of the axial pull per node).
    let top_y = |b: &CpuBackend| -> f64 {
        (0..=nx)
            .map(|c| b.force[(ny * (nx + 1) + c) as usize][1].abs() as f64)
            .sum()
    };
    assert!(
        top_y(&b) < 1e-2 * want,
        "lateral pull {} N with nu = 1/3",
        top_y(&b)
    );
    let (clamped, _) = stretched_sheet(&mesh, eps, 0.0);
    assert!(
        top_y(&clamped) > 0.1 * want,
        "a laterally clamped sheet must pull sideways"
    );
}

#[test]
fn bending_energy_on_a_cylinder_converges_to_the_continuum() {
    let kb = 1e-6;
    let radius = 0.5;
    let mut errors = Vec::new();
    for n in [8u32, 16, 32] {
        let a = 1.0 / n as f64;
        let ny = (n as f64 * 2.0 / 3f64.sqrt()) as u32;
        let mesh = equilateral_sheet(n, ny, a);
        let laws = ShellLaws {
            bending: Some(BendingLaw::Elastic {
                stiffness: kb,
                theta0: None,
            }),
            ..Default::default()
        };
        let mut w = shell_world(&[spec(mesh.clone(), laws)], vec![], 2.0, 0.0);
        for (p, v) in w.particles.pos.iter_mut().zip(&mesh.vertices) {
            let phi = v[0] / radius;
            p[0] = (radius * phi.sin()) as f32;
            p[2] = (radius * (1.0 - phi.cos())) as f32;
        }
        // Hinge area: a third of each hinge's two triangles (the area the hinges sample).
        let hinge_area: f64 = grains_core::shells::mesh_edges(&mesh)
            .expect("edges")
            .0
            .iter()
            .filter(|e| e.t2 != u32::MAX)
            .map(|e| (mesh.area(e.t1 as usize) + mesh.area(e.t2 as usize)) / 3.0)
            .sum();
        let mut b = CpuBackend::new(w).expect("backend");
        let energy = b.energy().elastic;
        // Continuum: k_c / (2 R^2) per area with k_c = sqrt(3)/2 k_b on equilateral triangles.
        let want = 3f64.sqrt() / 2.0 * kb * hinge_area / (2.0 * radius * radius);
        errors.push((energy / want - 1.0).abs());
    }
    eprintln!("cylinder bending: relative errors at 8, 16, 32 bases: {errors:?}");
    // The discretisation error falls about linearly with the edge length (the boundary
    // strip's share of the hinge area); 1% at 32 bases.
    assert!(errors[2] < 1e-2, "errors {errors:?}");
    assert!(
        errors[0] > 1.6 * errors[1] && errors[1] > 1.6 * errors[2],
        "no convergence: {errors:?}"
    );
}

#[test]
fn maxwell_shell_rest_length_relaxes_with_its_time_constant() {
    let (nx, ny, a) = (6, 6, 1e-3);
    let mesh = equilateral_sheet(nx, ny, a);
    let tau = 1e-3;
    let laws = ShellLaws {
        stretch: Some(StretchLaw::ElasticShellSpring),
        damping: Some(DampingLaw::MaxwellShell {
            relaxation_time: tau,
        }),
        ..Default::default()
    };
    let mut w = shell_world(&[spec(mesh.clone(), laws)], vec![], 1.0, 0.0);
    let eps = 0.01;
    for (p, v) in w.particles.vel.iter_mut().zip(&mesh.vertices) {
        p[3] = 0.0;
        let _ = v;
    }
    for (p, v) in w.particles.pos.iter_mut().zip(&mesh.vertices) {
        p[0] = (v[0] * (1.0 + eps)) as f32;
    }
    w.dt = 1e-6;
    // An interior horizontal edge (row 3, bases 2-3): k = sqrt(3)/2 E t, c = tau t E / sqrt(3),
    // so its rest length relaxes with c / k = 2 tau / 3.
    let (i, j) = (3 * (nx + 1) + 2, 3 * (nx + 1) + 3);
    let edge = w
        .shells
        .edges
        .iter()
        .position(|e| e[0] == i && e[1] == j)
        .expect("edge");
    let tau_e = 2.0 * tau / 3.0;
    let mut b = CpuBackend::new(w).expect("backend");
    let l = a * (1.0 + eps);
    for steps in [500u64, 1000, 2000] {
        b.run(steps - b.counters().steps);
        let t = steps as f64 * 1e-6;
        // The first force evaluation (step 0) already relaxed once.
        let want = l + (a - l) * (-(t + 1e-6) / tau_e).exp();
        let got = b.shell_rest[edge] as f64;
        assert!(
            ((got - l) / (want - l) - 1.0).abs() < 2e-3,
            "t = {t}: stretch {} against {}",
            got - l,
            want - l
        );
    }
}

/// A closed icosphere shell over a floor (z = 0), falling at `speed`.
fn capsule(subdivisions: u32, laws: ShellLaws, speed: f64) -> World {
    let r = 5e-3;
    let mut s = spec(Mesh::icosphere([0.0, 0.0, r + 8e-4], r, subdivisions), laws);
    s.velocity = [0.0, 0.0, -speed];
    let mut w = shell_world(&[s], vec![[[0.0; 3], [0.0, 0.0, 1.0]]], 0.05, 9.81);
    w.dt = grains_core::timestep::timestep_report(&w).auto_dt;
    w
}

fn elastic_capsule_laws() -> ShellLaws {
    ShellLaws {
        stretch: Some(StretchLaw::ElasticShellSpring),
        bending: Some(BendingLaw::ElasticShell { theta0: None }),
        damping: None,
        volume: Some(VolumeLaw { stiffness: 1e5 }),
    }
}

fn mean_vz(b: &mut CpuBackend) -> f64 {
    let s = b.snapshot();
    s.vel.iter().map(|v| v[2] as f64).sum::<f64>() / s.vel.len() as f64
}

#[test]
fn closed_shell_bounces_on_a_floor_keeping_its_volume_and_its_ledger() {
    let w = capsule(2, elastic_capsule_laws(), 0.5);
    let dt = w.dt;
    let mut b = CpuBackend::new(w).expect("backend");
    let v0 = b.shell_volumes[0][0] as f64;
    let e0 = b.energy().total;
    let mut worst_volume = 0.0f64;
    let mut worst_energy = 0.0f64;
    let mut bounced = false;
    let mut touched = false;
    for _ in 0..400 {
        b.run(25);
        let v = b.shell_volumes[0][0] as f64;
        worst_volume = worst_volume.max((v / v0 - 1.0).abs());
        worst_energy = worst_energy.max((b.energy().total / e0 - 1.0).abs());
        touched |= b.contacts().walls > 0;
        if touched && b.contacts().walls == 0 && mean_vz(&mut b) > 0.0 {
            bounced = true;
            break;
        }
    }
    let t = b.counters().steps as f64 * dt;
    eprintln!(
        "bounce: t = {t:e} s, rebound {} m/s, volume within {worst_volume:e}, ledger within {worst_energy:e}",
        mean_vz(&mut b)
    );
    assert!(bounced, "no bounce by t = {t} s");
    let up = mean_vz(&mut b);
    // An undamped shell keeps most of its momentum in the rebound; some goes into its modes.
    assert!(up > 0.2 * 0.5, "rebound speed {up} m/s");
    // The volume law holds the enclosed volume within 2% through the impact.
    assert!(worst_volume < 2e-2, "volume deviated by {worst_volume:e}");
    // No damping law: the ledger (kinetic, gravitational, springs, hinges, volume, contacts)
    // closes to 1e-4 of its total.
    assert!(worst_energy < 1e-4, "energy drift {worst_energy:e}");
}

fn gpu_context() -> Option<GpuContext> {
    match GpuContext::new(AdapterRequest::Any) {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(!gpu_required(), "a GPU adapter is required: {e}");
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// Four shells covering every shell law, nodes moved and set moving at random.
fn random_shells(seed: u64) -> World {
    let mut rng = SplitMix(seed);
    let r = 2e-3;
    let bend = |theta0| BendingLaw::Linear {
        stiffness: 1e-7,
        theta0,
    };
    let shells = vec![
        spec(
            Mesh::icosphere([-0.006, 0.0, 0.004], r, 2),
            ShellLaws {
                stretch: Some(StretchLaw::ElasticShellSpring),
                bending: Some(bend(None)),
                damping: Some(DampingLaw::ShellViscosity { viscosity: 0.5 }),
                volume: Some(VolumeLaw { stiffness: 1e5 }),
            },
        ),
        spec(
            Mesh::icosphere([0.0, 0.0, 0.004], r, 2),
            ShellLaws {
                stretch: Some(StretchLaw::ElasticShellSpring),
                bending: Some(BendingLaw::ElasticShell { theta0: None }),
                damping: Some(DampingLaw::MaxwellShell {
                    relaxation_time: 1e-4,
                }),
                volume: Some(VolumeLaw { stiffness: 3e4 }),
            },
        ),
        spec(
            Mesh::sheet([0.004, -0.003, 0.003], [0.006, 0.006], [8, 8]),
            ShellLaws {
                stretch: Some(StretchLaw::ElasticShellSpring),
                bending: Some(BendingLaw::Elastic {
                    stiffness: 1e-7,
                    theta0: Some(0.1),
                }),
                damping: Some(DampingLaw::ShellViscosity { viscosity: 0.2 }),
                volume: None,
            },
        ),
        spec(
            Mesh::icosphere([0.0, 0.006, 0.004], r, 1),
            ShellLaws {
                bending: Some(bend(Some(0.3))),
                ..Default::default()
            },
        ),
    ];
    let mut w = shell_world(&shells, vec![[[0.0; 3], [0.0, 0.0, 1.0]]], 0.02, 9.81);
    for (p, v) in w.particles.pos.iter_mut().zip(w.particles.vel.iter_mut()) {
        for k in 0..3 {
            p[k] += (rng.uniform() * 2.0 - 1.0) as f32 * 5e-5;
            v[k] = (rng.uniform() * 2.0 - 1.0) as f32 * 0.05;
        }
    }
    w.dt = grains_core::timestep::timestep_report(&w).auto_dt;
    w
}

fn max_diff(a: &[[f32; 4]], b: &[[f32; 4]], lanes: usize) -> (f32, f32) {
    let mut d = 0.0f32;
    let mut s = 0.0f32;
    for (x, y) in a.iter().zip(b) {
        for k in 0..lanes {
            d = d.max((x[k] - y[k]).abs());
            s = s.max(x[k].abs());
        }
    }
    (d, s)
}

#[test]
fn shell_passes_match_their_twins_on_random_states_and_over_200_steps() {
    let Some(ctx) = gpu_context() else {
        return;
    };
    for seed in [1u64, 2, 3] {
        let w = random_shells(seed);
        let mut c = CpuBackend::new(w.clone()).expect("cpu");
        let mut g = GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
        let edges = c.shell_rest.len();
        let gf: Vec<[f32; 4]> = g.read_buffer("shell_forces", 4 * edges).expect("read");
        let gv: Vec<[f32; 4]> = g.read_buffer("shell_volumes", 4).expect("read");
        let gr: Vec<f32> = g.read_buffer("shell_rest", edges).expect("read");
        // Element records: forces and energies to 1e-4 of the largest (hinge angles near flat
        // lose digits in atan2 and the gradient's 1/|n|^2), volumes to 1e-5.
        for lane in 0..4 {
            let pick = |v: &[[f32; 4]]| -> Vec<[f32; 4]> {
                v.iter().map(|r| [r[lane], 0.0, 0.0, 0.0]).collect()
            };
            let (d, s) = max_diff(&pick(&c.shell_forces), &pick(&gf), 1);
            assert!(
                d <= 1e-4 * s,
                "seed {seed}: shell_forces lane {lane}: {d} of {s}"
            );
        }
        // Volumes to 1e-5 of the largest. The pressure and energy are a law of the volume's
        // small departure from rest, which multiplies the volume's rounding by V / (V - V0)
        // (an H100 gave 1.1e-5 of the largest pressure from an ulp of volume): they are checked
        // as the law of the GPU's own volume, to 1e-5.
        let (d, s) = max_diff(&c.shell_volumes, &gv, 1);
        assert!(d <= 1e-5 * s, "seed {seed}: volumes {d} of {s}");
        let of_gpu_volume: Vec<[f32; 4]> = c
            .world
            .shells
            .shells
            .iter()
            .zip(&gv)
            .map(|(sh, r)| {
                let law = law_volume_conservation(r[0], sh.rest_volume, sh.volume_stiffness);
                [r[0], law[0], law[1], 0.0]
            })
            .collect();
        assert!(of_gpu_volume.len() == gv.len() && !gv.is_empty());
        for lane in 1..3 {
            let pick = |v: &[[f32; 4]]| -> Vec<[f32; 4]> {
                v.iter().map(|r| [r[lane], 0.0, 0.0, 0.0]).collect()
            };
            let (d, s) = max_diff(&pick(&of_gpu_volume), &pick(&gv), 1);
            assert!(
                d <= 1e-5 * s,
                "seed {seed}: shell_volumes lane {lane} against the law of the GPU's volume: {d} of {s}"
            );
        }
        let rest_err = c
            .shell_rest
            .iter()
            .zip(&gr)
            .map(|(a, b)| (a - b).abs() / a.abs())
            .fold(0.0f32, f32::max);
        assert!(rest_err < 1e-6, "seed {seed}: rest lengths {rest_err:e}");
        let gforce: Vec<[f32; 4]> = g.read_buffer("force", c.force.len()).expect("read");
        let (d, s) = max_diff(&c.force, &gforce, 3);
        assert!(d <= 1e-4 * s, "seed {seed}: node forces {d} of {s}");
        if seed == 1 {
            c.run(200);
            g.run(200);
            let (cs, gs) = (c.snapshot(), g.snapshot());
            let (d, _) = max_diff(&cs.pos, &gs.pos, 3);
            // 200 steps of a stiff, contact-free and floor-touching system: 1e-6 of the
            // 4 cm domain.
            assert!(d < 4e-8, "positions after 200 steps differ by {d} m");
            let (ec, eg) = (c.energy(), g.energy());
            assert!(
                (ec.total / eg.total - 1.0).abs() < 1e-5,
                "ledgers {} vs {}",
                ec.total,
                eg.total
            );
        }
    }
}

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

#[test]
fn obj_and_stl_meshes_read_as_the_same_closed_shell() {
    let dir = std::env::temp_dir().join(format!("grains-meshes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let m = Mesh::icosphere([0.0; 3], 1.0, 1);
    let mut obj = String::from("# icosphere\n");
    for v in &m.vertices {
        obj += &format!("v {} {} {}\n", v[0], v[1], v[2]);
    }
    for t in &m.triangles {
        obj += &format!("f {}/1 {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    let mut ascii = String::from("solid ico\n");
    let mut binary = vec![0u8; 80];
    binary.extend((m.triangles.len() as u32).to_le_bytes());
    for t in &m.triangles {
        ascii += "facet normal 0 0 0\nouter loop\n";
        binary.extend([0u8; 12]);
        for &v in t {
            let p = m.vertices[v as usize];
            ascii += &format!("vertex {} {} {}\n", p[0], p[1], p[2]);
            for x in p {
                binary.extend((x as f32).to_le_bytes());
            }
        }
        ascii += "endloop\nendfacet\n";
        binary.extend([0u8; 2]);
    }
    ascii += "endsolid ico\n";
    let files = [
        write(&dir, "ico.obj", obj.as_bytes()),
        write(&dir, "ico.stl", ascii.as_bytes()),
        write(&dir, "ico_bin.stl", &binary),
    ];
    for f in &files {
        let r = grains_scene::mesh_file::read_mesh(f)
            .unwrap_or_else(|e| panic!("{}: {}", f.display(), e.message));
        assert_eq!(r.vertices.len(), m.vertices.len(), "{}", f.display());
        assert_eq!(r.triangles.len(), m.triangles.len(), "{}", f.display());
        let (edges, closed) = grains_core::shells::mesh_edges(&r).expect("manifold");
        assert!(closed, "{}: not closed", f.display());
        assert_eq!(edges.len(), 120);
        assert!(
            (r.volume() / m.volume() - 1.0).abs() < 1e-6,
            "{}",
            f.display()
        );
    }
    let bad = write(&dir, "bad.obj", b"v 0 0 0\nv 1 0 0\nf 1 2 7\n");
    let e = grains_scene::mesh_file::read_mesh(&bad).expect_err("out of range");
    assert_eq!(e.line, 3);
    assert!(
        e.message.contains("vertex index 7 is out of range"),
        "{}",
        e.message
    );
    std::fs::remove_dir_all(&dir).ok();
}

const CELL: &str = r#"
[simulation]
duration = 1e-4
dt = "auto"
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.04]
[[material]]
name = "membrane"
density = 1000.0
young = 1.0e6
poisson = 0.3
[[shell]]
material = "membrane"
thickness = 2.0e-4
MESH
LAWS
[[interaction]]
between = ["membrane", "membrane"]
normal = { law = "hertz" }
"#;

fn scene_error(mesh: &str, laws: &str) -> String {
    let dir = std::env::temp_dir().join(format!("grains-shell-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("cell.toml");
    std::fs::write(&path, CELL.replace("MESH", mesh).replace("LAWS", laws)).expect("write");
    match grains_scene::load_scene(&path) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn shell_blocks_refuse_bad_input_with_its_place() {
    let ico = "icosphere = { center = [0.0, 0.0, 0.01], radius = 0.005, subdivisions = 2 }";
    let stretch = "stretch = { law = \"elastic_shell_spring\" }";
    assert_eq!(scene_error(ico, stretch), "", "a valid cell");
    let e = scene_error(ico, "stretch = { law = \"hertz\" }");
    assert!(e.contains("cell.toml:18:") && e.contains("shell[0].stretch.law: unknown stretch law \"hertz\"; accepted: \"elastic_shell_spring\""), "{e}");
    let e = scene_error(
        ico,
        "damping = { law = \"maxwell_shell\", relaxation_time = 1e-3 }",
    );
    assert!(
        e.contains("shell[0].damping: \"maxwell_shell\" relaxes the edge springs"),
        "{e}"
    );
    let e = scene_error(
        "sheet = { corner = [0.0, 0.0, 0.01], size = [0.01, 0.01], divisions = [4, 4] }",
        "volume = { law = \"volume_conservation\", stiffness = 1e4 }",
    );
    assert!(
        e.contains("shell[0].sheet: shell mesh: a volume law needs a closed shell"),
        "{e}"
    );
    let e = scene_error(ico, "bending = { law = \"linear_bending\" }");
    assert!(
        e.contains("shell[0].bending.stiffness") && e.contains("required"),
        "{e}"
    );
    let e = scene_error(&format!("{ico}\nfile = \"x.obj\""), stretch);
    assert!(e.contains("expected exactly one mesh"), "{e}");
    let e = scene_error(
        "icosphere = { center = [0.0, 0.0, 0.001], radius = 0.005, subdivisions = 2 }",
        stretch,
    );
    assert!(e.contains("lies outside the domain on z"), "{e}");
    let e = scene_error(
        ico,
        &format!("{stretch}\n[[particles]]\nmaterial = \"membrane\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.03]]"),
    );
    assert!(
        e.contains("shell[0].material: material \"membrane\" is also a [[particles]] block's"),
        "{e}"
    );
    let e = scene_error(
        ico,
        "stretch = { law = \"elastic_shell_spring\", stiffness = 3.0 }",
    );
    assert!(e.contains("unknown key `stiffness`"), "{e}");
    let e = scene_error(
        ico,
        &format!("{stretch}\ncontact = {{ law = \"node_to_segment\", stiffness = 1.0 }}"),
    );
    assert!(
        e.contains("shell[0].contact.law: unknown shell contact law \"node_to_segment\"; accepted: \"node_to_triangle\""),
        "{e}"
    );
    let e = scene_error(
        ico,
        &format!("{stretch}\ncontact = {{ law = \"node_to_triangle\" }}"),
    );
    assert!(
        e.contains("shell[0].contact.stiffness") && e.contains("required"),
        "{e}"
    );
    let ok = format!("{stretch}\ncontact = {{ law = \"node_to_triangle\", stiffness = 1.0, self_contact = true }}");
    assert_eq!(scene_error(ico, &ok), "", "a shell with contact");
}

#[test]
fn cell_on_floor_scene_checks() {
    let scene = grains_scene::load_scene(&workspace_root().join("scenes/cell_on_floor.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.world.shells.shells.len(), 2);
    assert_eq!(scene.world.particles.len(), 2 * 642);
}

#[test]
fn shell_records_have_the_same_layout_in_rust_and_wgsl() {
    use grains_core::pod_layout;
    use grains_core::shells::{ShellCounts, ShellEdgeParams, ShellParams};
    let src = grains_shaders::compose_file("lib/shell.wgsl").unwrap_or_else(|e| panic!("{e}"));
    let module = grains_shaders::validate(&src, "lib/shell.wgsl").unwrap_or_else(|e| panic!("{e}"));
    let rust = [
        pod_layout!(ShellEdgeParams {
            stretch,
            relax_time,
            viscosity,
            bend_law,
            bend,
            theta0,
            shell,
            _pad
        }),
        pod_layout!(ShellParams {
            volume_stiffness,
            rest_volume,
            tri_start,
            tri_count,
            ref_node,
            contact_stiffness,
            self_contact,
            contact_reach
        }),
        pod_layout!(ShellCounts {
            n_edges,
            n_shells,
            _pad0,
            _pad1
        }),
    ];
    for (name, size, fields) in rust {
        let (wsize, wfields) = grains_shaders::struct_layout(&module, name)
            .unwrap_or_else(|| panic!("{name}: not in lib/shell.wgsl"));
        assert_eq!((wsize, &wfields), (size, &fields), "{name}");
    }
}

#[test]
fn a_shell_scene_runs_on_every_backend_and_writes_its_shells() {
    let dir = std::env::temp_dir().join(format!("grains-shell-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let scene = dir.join("cell.toml");
    let text = CELL
        .replace(
            "MESH",
            "icosphere = { center = [0.0, 0.0, 0.0060], radius = 0.005, subdivisions = 2 }\nvelocity = [0.0, 0.0, -0.5]",
        )
        .replace(
            "LAWS",
            "stretch = { law = \"elastic_shell_spring\" }\nbending = { law = \"elastic_shell_bending\" }\ndamping = { law = \"shell_viscosity\", viscosity = 1.0 }\nvolume = { law = \"volume_conservation\", stiffness = 1e5 }\n[[wall]]\nmaterial = \"membrane\"\nplane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
        )
        .replace("duration = 1e-4", "duration = 1.5e-3")
        // A second cell, faster, lands on the first: shell against shell through their nodes.
        + "[[shell]]\nmaterial = \"membrane\"\nthickness = 2.0e-4\nicosphere = { center = [0.0, 0.0, 0.0178], radius = 0.005, subdivisions = 2 }\nvelocity = [0.0, 0.0, -1.0]\nstretch = { law = \"elastic_shell_spring\" }\nvolume = { law = \"volume_conservation\", stiffness = 1e5 }\n"
        + "[output]\nevery = 5e-4\nformats = [\"vtk\", \"contacts\"]\n";
    std::fs::write(&scene, text).expect("write");
    let mut ends = Vec::new();
    for backend in grains_tests::scene_backends() {
        let out = dir.join(backend);
        let args = [
            "grains",
            "run",
            &scene.to_string_lossy(),
            "--backend",
            backend,
            "--out",
            &out.to_string_lossy(),
            "-q",
        ]
        .map(String::from);
        grains_cli::main_with_args(args.to_vec()).unwrap_or_else(|e| panic!("{backend}: {e:#}"));
        let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
        let shells: Vec<&str> = pvd.lines().filter(|l| l.contains("shells_")).collect();
        assert!(shells.len() >= 4, "{backend}: {pvd}");
        assert!(shells.iter().all(|l| l.contains("part=\"2\"")), "{pvd}");
        let name = shells[shells.len() - 1]
            .split("file=\"")
            .nth(1)
            .and_then(|x| x.split('"').next())
            .expect("file");
        let last = std::fs::read_to_string(out.join(name)).expect("last shells frame");
        assert!(
            last.contains("NumberOfPoints=\"324\" NumberOfLines=\"960\" NumberOfPolys=\"640\""),
            "{backend}"
        );
        // Node contacts between the two cells (nodes 0-161 and 162-323), pushing them apart.
        let contacts = grains_tests::csv_rows(&out.join("contacts.csv"));
        let between: Vec<&Vec<f64>> = contacts
            .iter()
            .filter(|r| r[3] >= 0.0 && (r[2] < 162.0) != (r[3] < 162.0))
            .collect();
        assert!(!between.is_empty(), "{backend}: the cells never touched");
        assert!(
            between.iter().all(|r| r[5] > 0.0),
            "{backend}: a cell-cell contact pulls"
        );
        let energy = grains_tests::csv_rows(&out.join("energy.csv"));
        let e = energy.last().expect("energy rows").clone();
        let e0 = &energy[0];
        assert!(
            (e[8] / e0[8] - 1.0).abs() < 1e-4,
            "{backend}: ledger {} -> {}",
            e0[8],
            e[8]
        );
        assert!(
            e[6] > 0.0,
            "{backend}: the shell viscosity dissipated nothing"
        );
        ends.push(e);
    }
    if ends.len() == 2 {
        for c in [2, 4, 5, 6, 8] {
            let (a, b) = (ends[0][c], ends[1][c]);
            assert!(
                (a - b).abs() <= 1e-3 * ends[0][8].abs(),
                "column {c}: cpu {a}, gpu {b}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_sphere_on_a_node_is_hertz_with_the_spheres_curvature() {
    let glass = Material {
        name: "glass".into(),
        density: 2500.0,
        young: 1e7,
        poisson: 0.3,
        drag: Default::default(),
    };
    let mats = vec![glass.clone(), membrane()];
    let a = 1e-3;
    let mesh = equilateral_sheet(6, 6, a);
    let mut p = Particles::default();
    let (r, delta) = (2e-3, 1e-5);
    // The sphere over node 24 (row 3, base 3), overlapping it by delta.
    let node = mesh.vertices[3 * 7 + 3];
    let contact_radius = 0.45 * a;
    let z = node[2] + r + contact_radius - delta;
    p.push_sphere(
        [node[0], node[1], z],
        r,
        [0.0; 3],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let mut sh = Shells::default();
    let mut s = spec(mesh, stretch_only());
    s.material = 1;
    s.contact_radius = Some(contact_radius);
    sh.add(&s, &mats, &mut p).expect("sheet");
    let inter = |a, b| Interaction::new(a, b, vec![hertz()]);
    let w = World::new(
        p,
        vec![],
        mats.clone(),
        vec![inter(0, 0), inter(0, 1), inter(1, 1)],
        open_domain(0.05),
        [0.0; 3],
        1e-7,
        1e-4,
    )
    .and_then(|w| w.with_shells(sh))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        w.table
            .chains
            .iter()
            .any(|c| c.resolver == grains_core::ResolverKind::SpherePoint),
        "no sphere_point chain"
    );
    let b = CpuBackend::new(w).expect("backend");
    let e_star = 1.0 / ((1.0 - 0.09) / glass.young + (1.0 - 0.09) / E);
    let want = 4.0 / 3.0 * e_star * r.sqrt() * delta.powf(1.5);
    let got = b.force[0][2] as f64;
    // f32 overlap of 1e-5 m from centres 2.4e-3 m apart: about 3e-5 relative per ulp of the
    // distance, 1.5 times that in the force.
    assert!(
        (got / want - 1.0).abs() < 2e-3,
        "force {got} N against Hertz {want} N"
    );
}

#[test]
fn a_resumed_shell_run_continues_bitwise_on_the_cpu_and_closely_on_the_gpu() {
    let w = random_shells(7);
    let mut whole = CpuBackend::new(w.clone()).expect("cpu");
    whole.run(100);
    let mut first = CpuBackend::new(w.clone()).expect("cpu");
    first.run(60);
    let state = first.state();
    let mut resumed = CpuBackend::from_state(w.clone(), state.clone()).expect("resume");
    resumed.run(40);
    let (a, b) = (
        whole.snapshot().into_owned(),
        resumed.snapshot().into_owned(),
    );
    assert_eq!(a.pos, b.pos, "positions after resuming");
    assert_eq!(
        whole.shell_rest, resumed.shell_rest,
        "Maxwell rest lengths after resuming"
    );
    assert_eq!(whole.energy().total, resumed.energy().total);
    if let Some(ctx) = gpu_context() {
        let mut g = GpuBackend::from_state(w, &ctx, &state).unwrap_or_else(|e| panic!("{e}"));
        g.run(40);
        let (d, _) = max_diff(&a.pos, &g.snapshot().pos, 3);
        assert!(
            d < 1e-8,
            "GPU resumed from a CPU state differs by {d} m after 40 steps"
        );
    }
}

use grains_core::kernels::passes::surface_contact::{MASTERS, SURFACE_RECORDS};
use grains_core::kernels::shell::node_to_triangle::{closest_on_triangle, EDGE, FACE, VERTEX};
use grains_core::shells::SurfaceContact;

#[test]
fn the_closest_point_on_a_triangle_takes_each_voronoi_region() {
    let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
    let at = |p: [f32; 3]| {
        let p = Vec3::from(p);
        closest_on_triangle(a - p, b - p, c - p)
    };
    let near = |w: [f32; 3], want: [f32; 3]| (0..3).all(|k| (w[k] - want[k]).abs() < 1e-6);
    let cases: [([f32; 3], [f32; 3], u32); 7] = [
        ([0.2, 0.2, 0.5], [0.6, 0.2, 0.2], FACE),
        ([-1.0, -1.0, 0.3], [1.0, 0.0, 0.0], VERTEX),
        ([2.0, -0.5, 0.0], [0.0, 1.0, 0.0], VERTEX + 1),
        ([-0.5, 2.0, -0.2], [0.0, 0.0, 1.0], VERTEX + 2),
        ([0.5, -1.0, 0.0], [0.5, 0.5, 0.0], EDGE),
        ([1.0, 1.0, 0.4], [0.0, 0.5, 0.5], EDGE + 1),
        ([-1.0, 0.5, 0.0], [0.5, 0.0, 0.5], EDGE + 2),
    ];
    for (p, want, region) in cases {
        let (w, r) = at(p);
        assert!(near(w, want) && r == region, "{p:?}: {w:?} in {r}");
    }
}

fn contact_spec(mesh: Mesh, k: f64, self_contact: bool) -> ShellSpec {
    let mut s = spec(mesh, ShellLaws::default());
    s.contact = Some(SurfaceContact {
        stiffness: k,
        self_contact,
    });
    s
}

/// A world of `shells` meeting only through node-to-triangle contact (no interaction).
fn contact_world(shells: &[ShellSpec]) -> World {
    let mats = vec![membrane()];
    let mut p = Particles::default();
    let mut sh = Shells::default();
    for s in shells {
        sh.add(s, &mats, &mut p).expect("shell");
    }
    let mut w = World::new_with_shells(
        (p, vec![], mats, vec![]),
        open_domain(0.02),
        [0.0; 3],
        1e-7,
        1e-5,
        sh,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    w.dt = grains_core::timestep::timestep_report(&w).auto_dt;
    w
}

/// The rotation (w, x, y, z) that turns unit `a` onto unit `b`.
fn turn(a: Vec3, b: Vec3) -> [f64; 4] {
    let q = glam::Quat::from_rotation_arc(a, b);
    [q.w as f64, q.x as f64, q.y as f64, q.z as f64]
}

#[test]
fn a_node_inside_a_face_is_pushed_out_with_the_barycentric_reaction() {
    // Shell A (an icosphere of 4 mm); shell B (an icosahedron of 0.5 mm) outside it with its
    // node 0 turned to poke 20 um into the middle of A's face 0.
    let (k, depth) = (80.0f64, 2.0e-5f64);
    let a = Mesh::icosphere([0.0; 3], 4e-3, 1);
    let face = a.triangles[0].map(|v| Vec3::from(a.vertices[v as usize].map(|x| x as f32)));
    let n = (face[1] - face[0]).cross(face[2] - face[0]).normalize();
    let centroid = (face[0] + face[1] + face[2]) / 3.0;
    let mut b = Mesh::icosphere([0.0; 3], 1.0, 0);
    let v0 = Vec3::from(b.vertices[0].map(|x| x as f32)).normalize();
    let tip = centroid - n * depth as f32;
    let centre = tip + n * 5e-4;
    b.transform(5e-4, turn(v0, -n), centre.to_array().map(|x| x as f64));
    let w = contact_world(&[contact_spec(a.clone(), k, false), contact_spec(b, k, false)]);
    let first_b = a.vertices.len();
    let c = CpuBackend::new(w).expect("cpu");
    // On B's node 0: k depth along n (out of A); on the face's nodes: a third of it back each.
    let f_slave = n.as_dvec3() * (k * depth);
    let mut want = vec![(first_b, f_slave)];
    for &v in &a.triangles[0] {
        want.push((v as usize, -f_slave / 3.0));
    }
    for (p, f) in &want {
        let got = c.force[*p];
        for axis in 0..3 {
            let err = (got[axis] as f64 - f[axis]).abs();
            assert!(err < 2e-3 * f.length(), "node {p}: {got:?} vs {f:?}");
        }
    }
    let listed: Vec<usize> = want.iter().map(|w| w.0).collect();
    let stray = (0..c.force.len())
        .filter(|p| !listed.contains(p))
        .map(|p| Vec3::from_slice(&c.force[p][..3]).length())
        .fold(0.0f32, f32::max);
    assert_eq!(stray, 0.0, "no other node feels it");
    let r = c.surface_records[SURFACE_RECORDS * first_b];
    assert_eq!(r[0].to_bits(), 0, "A's face 0 is the master");
    assert!(
        (1..4).all(|k| (r[k] - 1.0 / 3.0).abs() < 2e-3),
        "weights {r:?}"
    );
}

/// Four icospheres of 2 mm crowded so that they overlap, nodes jittered and set moving.
fn crowded_shells(seed: u64, self_contact: bool) -> World {
    let mut rng = SplitMix(seed);
    let shells: Vec<ShellSpec> = (0..4)
        .map(|k| {
            let c = [(k % 2) as f64 * 3.6e-3, (k / 2) as f64 * 3.6e-3, 0.0];
            let mut m = Mesh::icosphere(c, 2e-3, 2);
            for v in &mut m.vertices {
                for x in v.iter_mut() {
                    *x += (rng.uniform() - 0.5) * 6e-5;
                }
            }
            let mut s = contact_spec(m, 30.0 + k as f64, self_contact);
            // Springs keep the elements near their size, as the list's reach assumes.
            s.laws.stretch = Some(StretchLaw::ElasticShellSpring);
            s
        })
        .collect();
    let mut w = contact_world(&shells);
    for v in w.particles.vel.iter_mut() {
        for x in v.iter_mut().take(3) {
            *x = (rng.uniform() * 2.0 - 1.0) as f32 * 0.02;
        }
    }
    w
}

#[test]
fn every_master_triangle_within_reach_is_found_as_brute_force_finds_it() {
    for seed in [5u64, 6] {
        let w = crowded_shells(seed, seed == 6);
        let mut b = CpuBackend::new(w.clone()).expect("cpu");
        let mut checked = 0;
        for round in 0..2 {
            let label = format!("seed {seed} round {round}");
            checked += crate::rings::check_masters(&w, &mut b, &label);
            b.run(200);
        }
        assert!(checked > 20, "seed {seed}: only {checked} contacts checked");
    }
}

/// The signed closest approach of node `p` to ring or shell `shell`, over all its elements
/// (no reach): negative inside it.
fn depth_in(w: &World, pos: &[[f32; 4]], p: usize, shell: usize) -> f32 {
    use grains_core::kernels::passes::surface_contact::{resolve_element, Surfaces};
    let sh = &w.shells;
    let (start, elems) = sh.surface_index(pos.len());
    let s = Surfaces {
        shells: &sh.shells,
        shell_tris: &sh.triangles,
        surface_start: &start,
        surface_elems: &elems,
    };
    let xa = Vec3::from_slice(&pos[p][..3]);
    let rel = |q: u32| Vec3::from_slice(&pos[q as usize][..3]) - xa;
    let params = sh.shells[shell];
    (params.tri_start..params.tri_start + params.tri_count)
        .map(|t| resolve_element(&s, t, &rel).1)
        .fold(f32::INFINITY, |a, d| if d.abs() < a.abs() { d } else { a })
}

#[test]
fn colliding_shells_meet_through_their_triangles_keeping_momentum_and_their_ledger() {
    // Two closed shells of 42 nodes, B flying into A at 0.3 m/s, meeting only through
    // node-to-triangle contact; no damping.
    let laws = ShellLaws {
        stretch: Some(StretchLaw::ElasticShellSpring),
        volume: Some(VolumeLaw { stiffness: 2e4 }),
        ..Default::default()
    };
    let k = 5e3;
    let mut a = contact_spec(Mesh::icosphere([0.0; 3], 2e-3, 1), k, false);
    let mut b = contact_spec(Mesh::icosphere([4.3e-3, 0.4e-3, 0.2e-3], 2e-3, 1), k, false);
    a.laws = laws;
    b.laws = laws;
    b.velocity = [-0.3, 0.0, 0.0];
    let n = 42;
    let w = contact_world(&[a, b]);
    let reach = w.shells.shells[0].contact_reach;
    let mut c = CpuBackend::new(w.clone()).expect("cpu");
    let momentum = |c: &mut CpuBackend| {
        let vel = c.snapshot().vel.to_vec();
        let m = &c.world.particles.mass;
        (vel.iter().zip(m))
            .map(|(v, &m)| glam::DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64) * m as f64)
            .sum::<glam::DVec3>()
    };
    let (p0, e0) = (momentum(&mut c), c.energy().total);
    let (mut touched, mut deepest) = (false, 0.0f32);
    // 4 ms: B reaches A after 1 ms.
    let chunk = (4e-3 / 40.0 / c.world.dt).ceil() as u64;
    for _ in 0..40 {
        c.run(chunk);
        touched |= c.energy().elastic > 1e-12;
        let pos = c.snapshot().pos.to_vec();
        for p in 0..2 * n {
            let other = if p < n { 1 } else { 0 };
            deepest = deepest.min(depth_in(&w, &pos, p, other));
        }
    }
    let (p1, e1) = (momentum(&mut c), c.energy().total);
    assert!(touched, "the shells never touched");
    assert!(
        (p1 - p0).length() < 1e-5 * p0.length(),
        "momentum {p0} -> {p1}"
    );
    assert!(((e1 - e0) / e0).abs() < 1e-3, "energy {e0} -> {e1}");
    // The membranes hold: no node ever more than a third of the reach inside the other shell.
    assert!(
        deepest > -reach / 3.0,
        "a node went {deepest} m deep (reach {reach} m)"
    );
}

#[test]
fn surface_passes_match_their_twins_on_shells() {
    let Some(ctx) = gpu_context() else {
        return;
    };
    let w = crowded_shells(7, true);
    let mut c = CpuBackend::new(w.clone()).expect("cpu");
    let mut g = GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
    let n = c.force.len();
    let gr: Vec<[f32; 4]> = g
        .read_buffer("surface_records", SURFACE_RECORDS * n)
        .expect("read");
    // The same masters in the same slots; weights, forces and energies to 1e-5 of the largest.
    let summary = 2 * MASTERS;
    let (mut worst, mut largest, mut kept) = (0.0f32, 0.0f32, 0u32);
    for (k, (a, b)) in c.surface_records.iter().zip(&gr).enumerate() {
        let at = k % SURFACE_RECORDS;
        if at == summary {
            assert_eq!(a[1].to_bits(), b[1].to_bits(), "kept, record {k}");
            kept += a[1].to_bits();
            continue;
        }
        let lanes = if at.is_multiple_of(2) {
            assert_eq!(a[0].to_bits(), b[0].to_bits(), "master, record {k}");
            1..4
        } else {
            0..4
        };
        for l in lanes {
            worst = worst.max((a[l] - b[l]).abs());
            largest = largest.max(a[l].abs());
        }
    }
    assert!(kept > 10, "{kept} contacts");
    assert!(worst <= 1e-5 * largest, "records {worst} of {largest}");
    let gforce: Vec<[f32; 4]> = g.read_buffer("force", n).expect("read");
    let (d, s) = max_diff(&c.force, &gforce, 3);
    assert!(d <= 1e-5 * s, "node forces {d} of {s}");
    c.run(100);
    g.run(100);
    let (cs, gs) = (c.snapshot(), g.snapshot());
    let (d, _) = max_diff(&cs.pos, &gs.pos, 3);
    assert!(d < 1e-8, "positions after 100 steps differ by {d} m");
}
