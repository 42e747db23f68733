//! Rings (2-D deformable cells): the turning-angle resolver's gradient, the Laplace law of a
//! polygon under an area law and edge springs, bending back to the reference angle, CPU/GPU
//! parity of the shell passes on random rings, and the `[[ring]]` block's errors.

use glam::Vec3;
use grains_core::kernels::shell::linear_bending::hinge_deviation;
use grains_core::kernels::shell::segment_segment_common_node::{
    resolve_segment_segment_common_node, turning_angle,
};
use grains_core::kernels::shell::{BendingLaw, DampingLaw};
use grains_core::material::Material;
use grains_core::materials::Interaction;
use grains_core::rings::{circle, polygon_area, AreaLaw, RingLaws, RingSpec};
use grains_core::shells::Shells;
use grains_core::{Backend, CpuBackend, Particles, World};
use grains_gpu::GpuBackend;
use grains_tests::worlds::{hertz, open_domain, SplitMix};

const T: f64 = 1.0e-4;
const RHO: f64 = 1000.0;

fn cortex() -> Material {
    Material {
        name: "cortex".into(),
        density: RHO,
        young: 1.0e6,
        poisson: 0.3,
        drag: Default::default(),
    }
}

fn ring(points: Vec<[f64; 2]>, laws: RingLaws) -> RingSpec {
    RingSpec {
        points,
        material: 0,
        thickness: T,
        contact_radius: None,
        velocity: [0.0; 2],
        laws,
    }
}

/// A planar world of `rings` (material 0, node contacts Hertz) at the automatic step.
fn ring_world(rings: &[RingSpec]) -> World {
    let mats = vec![cortex()];
    let mut p = Particles::default();
    let mut sh = Shells::default();
    for r in rings {
        sh.add_ring(r, &mats, &mut p)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut w = World::new(
        p,
        vec![],
        mats,
        vec![Interaction::new(0, 0, vec![hertz()])],
        open_domain(0.02),
        [0.0; 3],
        1e-7,
        1e-5,
    )
    .and_then(|w| w.with_shells(sh))
    .unwrap_or_else(|e| panic!("{e}"));
    w.planar = true;
    w.dt = grains_core::timestep::timestep_report(&w).auto_dt;
    w
}

#[test]
fn turning_angle_gradient_is_the_angle_derivative_and_exerts_no_net_force_or_moment() {
    let mut rng = SplitMix(7);
    for _ in 0..50 {
        let mut x = [[0.0f32; 3]; 3];
        for p in &mut x {
            for c in 0..2 {
                p[c] = (rng.uniform() * 2.0 - 1.0) as f32;
            }
        }
        let v = |k: usize| Vec3::from(x[k]);
        let g = resolve_segment_segment_common_node(v(1) - v(0), v(2) - v(1));
        assert!((g.theta - turning_angle(x[0], x[1], x[2])).abs() < 1e-6);
        // Central differences in f64 of the same angle; the gradient to 1e-3 of its size (f32
        // nodes, steps of 1e-4 of the unit lengths).
        let angle = |y: [[f64; 3]; 3]| {
            let e1 = [y[1][0] - y[0][0], y[1][1] - y[0][1]];
            let e2 = [y[2][0] - y[1][0], y[2][1] - y[1][1]];
            (e1[0] * e2[1] - e1[1] * e2[0]).atan2(e1[0] * e2[0] + e1[1] * e2[1])
        };
        let base = x.map(|p| p.map(|c| c as f64));
        let (mut net, mut moment) = (Vec3::ZERO, 0.0f32);
        for k in 0..3 {
            let gk = Vec3::from(g.grad[k]);
            for c in 0..2 {
                let h = 1e-6;
                let (mut a, mut b) = (base, base);
                a[k][c] += h;
                b[k][c] -= h;
                let fd = (angle(a) - angle(b)) / (2.0 * h);
                let scale = gk.length().max(1.0);
                assert!(
                    (gk[c] as f64 - fd).abs() < 1e-3 * scale as f64,
                    "node {k} axis {c}: {} vs {fd}",
                    gk[c]
                );
            }
            net += gk;
            moment += x[k][0] * gk.y - x[k][1] * gk.x;
        }
        let size = g
            .grad
            .iter()
            .map(|q| Vec3::from(*q).length())
            .fold(0.0, f32::max);
        assert!(net.length() < 1e-5 * size, "net {net}");
        assert!(moment.abs() < 1e-5 * size, "moment {moment}");
    }
}

/// The radius at which a regular `n`-gon ring balances its area law's pressure against its
/// segment springs: `-p(R) R cos(pi/n) = k (2 R sin(pi/n) - l0)` (the pressure pushes out
/// while the area is below its rest value) with
/// `p = k_a (A(R) - A0) / A0`, `A(R) = n R^2 sin(2 pi/n) / 2` (bisection).
fn laplace_radius(n: f64, k: f64, l0: f64, ka: f64, a0: f64) -> f64 {
    let s = std::f64::consts::PI / n;
    let excess = |r: f64| {
        let a = n * r * r * (2.0 * s).sin() / 2.0;
        -ka * (a - a0) / a0 * r * s.cos() - k * (2.0 * r * s.sin() - l0)
    };
    let (mut lo, mut hi) = (l0 / (2.0 * s.sin()), 10.0 * l0 / (2.0 * s.sin()));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if excess(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn a_ring_under_its_area_law_settles_at_the_laplace_radius_of_its_polygon() {
    let (n, r0, k, ka) = (32u32, 1.0e-3, 10.0, 2.0);
    let points = circle([0.0, 0.0], r0, n);
    let a_init = polygon_area(&points);
    let a0 = 1.5 * a_init;
    let laws = RingLaws {
        stretch: Some(k),
        damping: Some(DampingLaw::ShellViscosity { viscosity: 5.0 }),
        area: Some(AreaLaw {
            stiffness: ka,
            rest_area: Some(a0),
        }),
        ..Default::default()
    };
    let mut b = CpuBackend::new(ring_world(&[ring(points.clone(), laws)])).expect("cpu");
    let l0 = 2.0 * r0 * (std::f64::consts::PI / n as f64).sin();
    let want = laplace_radius(n as f64, k, l0, ka, a0);
    assert!(
        want > 1.05 * r0,
        "the law inflates the ring: {want} against {r0}"
    );
    let radii = |b: &mut CpuBackend| -> Vec<f64> {
        let s = b.snapshot();
        s.pos
            .iter()
            .map(|p| (p[0] as f64).hypot(p[1] as f64))
            .collect()
    };
    for _ in 0..40 {
        b.run(1000);
    }
    let r = radii(&mut b);
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let spread = r.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max);
    // Settled to 1e-4 of the radius (the breathing mode is critically damped within a few of
    // its periods of ~0.1 ms; 40,000 steps are ~4 ms), round to f32 rounding.
    assert!(
        (mean / want - 1.0).abs() < 1e-4,
        "radius {mean} against the Laplace radius {want}"
    );
    assert!(spread < 1e-5 * mean, "not round: spread {spread}");
    let area = b.shell_volumes[0][0] as f64;
    let exact = n as f64 * mean * mean * (2.0 * std::f64::consts::PI / n as f64).sin() / 2.0;
    assert!((area / exact - 1.0).abs() < 1e-5, "area {area} vs {exact}");
}

#[test]
fn bending_returns_a_dented_ring_to_its_reference_angle() {
    let n = 12u32;
    let mut points = circle([0.0, 0.0], 1.0e-3, n);
    points[5] = [0.8 * points[5][0], 0.8 * points[5][1]];
    let theta0 = std::f64::consts::TAU / n as f64;
    let laws = RingLaws {
        bending: Some(BendingLaw::Linear {
            stiffness: 1e-6,
            theta0: Some(theta0),
        }),
        damping: Some(DampingLaw::ShellViscosity { viscosity: 1.0 }),
        ..Default::default()
    };
    let mut b = CpuBackend::new(ring_world(&[ring(points, laws)])).expect("cpu");
    let angles = |b: &mut CpuBackend| -> Vec<f64> {
        let s = b.snapshot();
        let x = |k: usize| {
            let p = s.pos[k % n as usize];
            [p[0], p[1], 0.0]
        };
        (0..n as usize)
            .map(|k| turning_angle(x(k + n as usize - 1), x(k), x(k + 1)) as f64)
            .collect()
    };
    let worst = |a: &[f64]| {
        a.iter()
            .map(|t| hinge_deviation(*t as f32, theta0 as f32).abs() as f64)
            .fold(0.0, f64::max)
    };
    let dented = worst(&angles(&mut b));
    assert!(dented > 0.1, "the dent turns a node by {dented} rad");
    for _ in 0..100 {
        b.run(1000);
    }
    let settled = worst(&angles(&mut b));
    // Bending alone (no springs, whose rest lengths would keep the dent's two short segments)
    // turns every node back to theta0, to 1e-4 rad: the polygon is equiangular again.
    assert!(
        settled < 1e-4,
        "worst angle off by {settled} rad (dented {dented})"
    );
}

/// Three rings covering every ring law, nodes moved and set moving at random in the plane.
fn random_rings(seed: u64) -> World {
    let mut rng = SplitMix(seed);
    let bend = BendingLaw::Linear {
        stiffness: 1e-7,
        theta0: None,
    };
    let rings = vec![
        ring(
            circle([-0.006, 0.0], 2e-3, 40),
            RingLaws {
                stretch: Some(20.0),
                bending: Some(bend),
                damping: Some(DampingLaw::ShellViscosity { viscosity: 0.5 }),
                area: Some(AreaLaw {
                    stiffness: 3.0,
                    rest_area: None,
                }),
            },
        ),
        ring(
            circle([0.0, 0.0], 2e-3, 33),
            RingLaws {
                stretch: Some(20.0),
                bending: Some(BendingLaw::Elastic {
                    stiffness: 1e-7,
                    theta0: Some(0.1),
                }),
                damping: Some(DampingLaw::MaxwellShell {
                    relaxation_time: 1e-4,
                }),
                area: Some(AreaLaw {
                    stiffness: 1.0,
                    rest_area: Some(2e-5),
                }),
            },
        ),
        ring(
            vec![
                [0.004, -0.002],
                [0.008, -0.002],
                [0.008, 0.003],
                [0.004, 0.003],
            ],
            RingLaws {
                bending: Some(bend),
                ..Default::default()
            },
        ),
    ];
    let mut w = ring_world(&rings);
    for (p, v) in w.particles.pos.iter_mut().zip(w.particles.vel.iter_mut()) {
        for k in 0..2 {
            p[k] += (rng.uniform() * 2.0 - 1.0) as f32 * 5e-5;
            v[k] = (rng.uniform() * 2.0 - 1.0) as f32 * 0.05;
        }
    }
    w
}

fn max_diff(a: &[[f32; 4]], b: &[[f32; 4]], lanes: std::ops::Range<usize>) -> (f32, f32) {
    let (mut d, mut s) = (0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        for k in lanes.clone() {
            d = d.max((x[k] - y[k]).abs());
            s = s.max(x[k].abs());
        }
    }
    (d, s)
}

#[test]
fn ring_elements_match_their_twins_on_random_states_and_over_200_steps() {
    let Some(ctx) = grains_tests::gpu_context() else {
        return;
    };
    for seed in [1u64, 2, 3] {
        let w = random_rings(seed);
        let mut c = CpuBackend::new(w.clone()).expect("cpu");
        let mut g = GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
        let edges = c.shell_rest.len();
        let gf: Vec<[f32; 4]> = g.read_buffer("shell_forces", 4 * edges).expect("read");
        let gv: Vec<[f32; 4]> = g.read_buffer("shell_volumes", 3).expect("read");
        // Element records to 1e-4 of the largest (as the shells' test: the angle's atan2 and
        // the gradient's 1/|e|^2), the areas to 1e-5.
        for lane in 0..4 {
            let (d, s) = max_diff(&c.shell_forces, &gf, lane..lane + 1);
            assert!(
                d <= 1e-4 * s,
                "seed {seed}: shell_forces lane {lane}: {d} of {s}"
            );
        }
        let (d, s) = max_diff(&c.shell_volumes, &gv, 0..1);
        assert!(d <= 1e-5 * s && s > 0.0, "seed {seed}: areas {d} of {s}");
        let gforce: Vec<[f32; 4]> = g.read_buffer("force", c.force.len()).expect("read");
        let (d, s) = max_diff(&c.force, &gforce, 0..3);
        assert!(d <= 1e-4 * s, "seed {seed}: node forces {d} of {s}");
        if seed == 1 {
            c.run(200);
            g.run(200);
            let (cs, gs) = (c.snapshot(), g.snapshot());
            let (d, _) = max_diff(&cs.pos, &gs.pos, 0..3);
            // 200 steps of stiff rings: 1e-6 of the 4 cm domain; every node still in z = 0.
            assert!(d < 4e-8, "positions after 200 steps differ by {d} m");
            assert!(gs.pos.iter().all(|p| p[2] == 0.0), "a node left the plane");
        }
    }
}

const SCENE: &str = r#"
[simulation]
duration = 1e-4
dt = "auto"
[domain]
min = [-0.01, -0.01, -0.001]
max = [0.01, 0.01, 0.001]
DIMENSIONS
[[material]]
name = "cortex"
density = 1000.0
young = 1.0e6
poisson = 0.3
[[ring]]
material = "cortex"
thickness = 1.0e-4
NODES
LAWS
[[interaction]]
between = ["cortex", "cortex"]
normal = { law = "hertz" }
"#;

fn scene_error(planar: bool, nodes: &str, laws: &str) -> String {
    let dir = std::env::temp_dir().join(format!("grains-ring-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("square.csv"),
        "# x y\n0.0 0.0\n0.002,0.0\n0.002 0.002\n\n0.0 0.002\n",
    )
    .expect("write");
    std::fs::write(dir.join("bad.csv"), "0.0 0.0\n0.002 zero\n").expect("write");
    let path = dir.join("ring.toml");
    let text = SCENE
        .replace("DIMENSIONS", if planar { "dimensions = 2" } else { "" })
        .replace("NODES", nodes)
        .replace("LAWS", laws);
    std::fs::write(&path, text).expect("write");
    match grains_scene::load_scene(&path) {
        Ok(s) => {
            assert_eq!(s.world.shells.shells.len(), 1);
            String::new()
        }
        Err(e) => e.to_string(),
    }
}

#[test]
fn ring_blocks_refuse_bad_input_with_its_place() {
    let circle = "circle = { center = [0.0, 0.0], radius = 0.002, nodes = 24 }";
    let stretch = "stretch = { law = \"spring\", stiffness = 10.0 }";
    assert_eq!(scene_error(true, circle, stretch), "", "a valid ring");
    assert_eq!(
        scene_error(true, "file = \"square.csv\"", stretch),
        "",
        "a file"
    );
    let e = scene_error(false, circle, stretch);
    assert!(
        e.contains("ring.toml:14:") && e.contains("add `dimensions = 2` to [domain]"),
        "{e}"
    );
    let cw = "points = [[0.0, 0.0], [0.0, 0.002], [0.002, 0.002], [0.002, 0.0]]";
    let e = scene_error(true, cw, stretch);
    assert!(
        e.contains("ring[0].points") && e.contains("run clockwise") && e.contains("anticlockwise"),
        "{e}"
    );
    let e = scene_error(true, "file = \"bad.csv\"", stretch);
    assert!(
        e.contains("bad.csv:2: expected two numbers \"x y\" (m), found \"0.002 zero\""),
        "{e}"
    );
    let e = scene_error(true, circle, "stretch = { law = \"elastic_shell_spring\" }");
    assert!(
        e.contains("unknown ring stretch law \"elastic_shell_spring\"; accepted: \"spring\""),
        "{e}"
    );
    let e = scene_error(
        true,
        circle,
        "bending = { law = \"elastic_shell_bending\" }",
    );
    assert!(
        e.contains("unknown ring bending law \"elastic_shell_bending\""),
        "{e}"
    );
    let e = scene_error(
        true,
        "points = [[0.0, 0.0, 0.001], [0.002, 0.0], [0.0, 0.002]]",
        stretch,
    );
    assert!(
        e.contains("ring[0].points[0]: a ring lies in the plane z = 0"),
        "{e}"
    );
    let e = scene_error(
        true,
        "circle = { center = [0.0, 0.0], radius = 0.002, nodes = 2 }",
        stretch,
    );
    assert!(e.contains("ring[0].circle.nodes"), "{e}");
    let e = scene_error(
        true,
        circle,
        "damping = { law = \"maxwell_shell\", relaxation_time = 1e-3 }",
    );
    assert!(
        e.contains("ring[0].damping: \"maxwell_shell\" relaxes the segment springs"),
        "{e}"
    );
    let e = scene_error(true, circle, "area = { law = \"area_conservation\" }");
    assert!(
        e.contains("ring[0].area.stiffness") && e.contains("required"),
        "{e}"
    );
    let e = scene_error(
        true,
        "circle = { center = [0.0, 0.0], radius = 0.02, nodes = 24 }",
        stretch,
    );
    assert!(e.contains("lies outside the domain on x"), "{e}");
}

#[test]
fn the_rings_scene_checks() {
    let scene = grains_scene::load_scene(&grains_tests::workspace_root().join("scenes/rings.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.world.shells.shells.len(), 6);
    assert_eq!(scene.world.particles.len(), 6 * 32);
    assert!(scene.world.planar);
}
