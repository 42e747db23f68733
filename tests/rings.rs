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
    world_of(rings, vec![Interaction::new(0, 0, vec![hertz()])])
}

/// A planar world of `rings` (material 0) with `interactions`, at the automatic step.
fn world_of(rings: &[RingSpec], interactions: Vec<Interaction>) -> World {
    let mats = vec![cortex()];
    let mut p = Particles::default();
    let mut sh = Shells::default();
    for r in rings {
        sh.add_ring(r, &mats, &mut p)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut w = World::new_with_shells(
        (p, vec![], mats, interactions),
        open_domain(0.02),
        [0.0; 3],
        1e-7,
        1e-5,
        sh,
    )
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
                contact: None,
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
                contact: None,
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
    let bow = "points = [[0.0, 0.0], [0.002, 0.002], [0.002, 0.0], [0.0, 0.002]]";
    let e = scene_error(true, bow, stretch);
    assert!(
        e.contains("ring[0].points")
            && e.contains("crosses itself: its segments 0 (nodes 0-1) and 2 (nodes 2-3) intersect"),
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
    let e = scene_error(true, circle, "contact = { law = \"node_to_segment\" }");
    assert!(
        e.contains("ring[0].contact.stiffness") && e.contains("required"),
        "{e}"
    );
    let e = scene_error(
        true,
        circle,
        "contact = { law = \"node_to_segment\", stiffness = 1.0, self_contact = 1 }",
    );
    assert!(e.contains("ring[0].contact.self_contact"), "{e}");
    let with_contact =
        format!("{stretch}\ncontact = {{ law = \"node_to_segment\", stiffness = 1.0 }}");
    assert_eq!(
        scene_error(true, circle, &with_contact),
        "",
        "a ring with contact"
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
    assert_eq!(scene.world.shells.shells.len(), 2);
    assert_eq!(scene.world.particles.len(), 2 * 32);
    assert!(scene.world.planar);
}

use grains_core::kernels::passes::surface_contact::{MASTERS, SURFACE_RECORDS};
use grains_core::kernels::shell::node_to_segment::resolve_node_to_segment;
use grains_core::shells::SurfaceContact;
use grains_core::shells::NO_NODE;

fn contact(k: f64, self_contact: bool) -> RingLaws {
    RingLaws {
        contact: Some(SurfaceContact {
            stiffness: k,
            self_contact,
        }),
        ..Default::default()
    }
}

#[test]
fn node_to_segment_resolver_takes_the_three_cases_of_the_projection() {
    // Segment (0, 0) -> (1, 0) of a ring whose interior is on the left: outward is -y.
    // Its nodes' pseudonormals as on a straight run of segments: -y too.
    let (x0, x1, m) = (Vec3::ZERO, Vec3::X, -Vec3::Y);
    let at = |x: f32, y: f32| {
        let a = Vec3::new(x, y, 0.0);
        resolve_node_to_segment(x0 - a, x1 - a, m, m)
    };
    let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
    let c = at(0.3, 0.1);
    assert!(
        close(c.s, 0.3) && close(c.d, -0.1) && c.g == [0.0, -1.0, 0.0],
        "{c:?}"
    );
    let c = at(0.3, -0.2);
    assert!(close(c.s, 0.3) && close(c.d, 0.2), "a gap: {c:?}");
    // Beyond node 0: the distance to it, signed by the side; g from node 0 to the slave.
    let c = at(-0.3, 0.4);
    assert!(c.s < 0.0 && close(c.d, -0.5), "{c:?}");
    assert!(close(c.g[0], 0.6) && close(c.g[1], -0.8), "{c:?}");
    let c = at(1.3, 0.4);
    assert!(c.s > 1.0 && close(c.d, -0.5), "{c:?}");
    assert!(close(c.g[0], -0.6) && close(c.g[1], -0.8), "{c:?}");
    // At a convex corner (node 1 turning left towards (1, 1)) a point beyond it on the
    // outside of the next segment but inside this one's line is outside: the pseudonormal
    // (0, -1) + (1, 0) says so where this segment's normal alone would not.
    let corner = Vec3::new(1.0, -1.0, 0.0);
    let a = Vec3::new(1.3, 0.1, 0.0);
    let c = resolve_node_to_segment(x0 - a, x1 - a, m, corner);
    assert!(c.s > 1.0 && c.d > 0.0, "outside a convex corner: {c:?}");
}

/// A square ring A and a triangle ring B whose apex is 0.1 mm inside A's bottom edge, a
/// quarter of the way along it; `k` each.
fn apex_in_square(k: f64) -> World {
    let mm = 1e-3;
    let a = vec![
        [0.0, 0.0],
        [4.0 * mm, 0.0],
        [4.0 * mm, 4.0 * mm],
        [0.0, 4.0 * mm],
    ];
    let b = vec![
        [0.0, -2.0 * mm],
        [2.0 * mm, -2.0 * mm],
        [1.0 * mm, 0.1 * mm],
    ];
    world_of(
        &[ring(a, contact(k, false)), ring(b, contact(k, false))],
        vec![],
    )
}

#[test]
fn a_node_inside_a_segment_is_pushed_out_with_its_reaction_split_one_minus_s_and_s() {
    let k = 50.0;
    let b = CpuBackend::new(apex_in_square(k)).expect("cpu");
    let (d, s) = (-1.0e-4f64, 0.25f64);
    // Force on the apex (node 6): -k d n with n = (0, -1); on A's nodes 0 and 1 the reaction
    // -(1 - s) F and -s F; nothing else acts (no other interference, no interaction).
    let want: [(usize, f64); 3] = [(6, k * d), (0, -(1.0 - s) * k * d), (1, -s * k * d)];
    for (p, fy) in want {
        let f = b.force[p];
        assert!(f[0].abs() < 1e-9, "node {p}: fx {}", f[0]);
        assert!(
            ((f[1] as f64) / fy - 1.0).abs() < 1e-5,
            "node {p}: fy {} vs {fy}",
            f[1]
        );
    }
    let others: f32 = (0..7)
        .filter(|p| ![0, 1, 6].contains(p))
        .map(|p| b.force[p][1].abs())
        .sum();
    assert_eq!(others, 0.0);
    let r = b.surface_records[SURFACE_RECORDS * 6];
    assert_eq!(
        r[0].to_bits(),
        0,
        "master segment: A's first, from its node 0"
    );
    assert!((r[2] as f64 - s).abs() < 1e-5 && (r[1] as f64 - (1.0 - s)).abs() < 1e-5);
    // The penalty's energy k d^2 / 2 in the ledger's elastic energy.
    let mut b = b;
    let e = b.energy().elastic;
    assert!((e / (0.5 * k * d * d) - 1.0).abs() < 1e-4, "elastic {e}");
}

/// The surfaces' tables of a world, with its element index.
fn surfaces_of(w: &World, n: usize) -> (Vec<u32>, Vec<u32>) {
    w.shells.surface_index(n)
}

/// Brute force: of every ring or shell with contact, over all its elements, the one closest to
/// slave `i` within reach (its `d`), by the same rules the pass follows; those with `d < 0`.
pub(crate) fn brute_masters(w: &World, pos: &[[f32; 4]], i: usize) -> Vec<(u32, f32)> {
    use grains_core::kernels::passes::surface_contact::{resolve_element, touches, Surfaces};
    let sh = &w.shells;
    let (start, elems) = surfaces_of(w, pos.len());
    let s = Surfaces {
        shells: &sh.shells,
        shell_tris: &sh.triangles,
        surface_start: &start,
        surface_elems: &elems,
    };
    let own = &elems[start[i] as usize..start[i + 1] as usize];
    let own_shell = sh.triangles[own[0] as usize][3];
    let xa = Vec3::new(pos[i][0], pos[i][1], pos[i][2]);
    let rel = |q: u32| Vec3::new(pos[q as usize][0], pos[q as usize][1], pos[q as usize][2]) - xa;
    let mut out = Vec::new();
    for (shell, p) in sh.shells.iter().enumerate() {
        if p.contact_stiffness <= 0.0 {
            continue;
        }
        let mut best: Option<f32> = None;
        for t in p.tri_start..p.tri_start + p.tri_count {
            if shell as u32 == own_shell && (p.self_contact == 0 || touches(&s, t, own)) {
                continue;
            }
            let (_, d, _) = resolve_element(&s, t, &rel);
            if d.abs() <= p.contact_reach && best.is_none_or(|b| d.abs() < b.abs()) {
                best = Some(d);
            }
        }
        if let Some(d) = best.filter(|d| *d < 0.0) {
            out.push((shell as u32, d));
        }
    }
    out
}

/// Every slave's masters against brute force (the same rings or shells, `|F| / k = |d|` to
/// 1e-5), for the state `b` holds; how many contacts were checked.
pub(crate) fn check_masters(w: &World, b: &mut CpuBackend, label: &str) -> usize {
    let pos = b.snapshot().pos.to_vec();
    let (start, _) = surfaces_of(w, pos.len());
    let mut checked = 0;
    for i in (0..pos.len()).filter(|&i| start[i] < start[i + 1]) {
        let want = brute_masters(w, &pos, i);
        assert!(
            want.len() <= MASTERS,
            "{label}: node {i} has {} masters",
            want.len()
        );
        let rec = &b.surface_records[SURFACE_RECORDS * i..][..SURFACE_RECORDS];
        let got: Vec<(u32, f32)> = (0..MASTERS)
            .filter(|&k| rec[2 * k][0].to_bits() != NO_NODE)
            .map(|k| {
                let t = rec[2 * k][0].to_bits();
                let shell = w.shells.triangles[t as usize][3];
                let f = Vec3::new(rec[2 * k + 1][0], rec[2 * k + 1][1], rec[2 * k + 1][2]);
                (
                    shell,
                    f.length() / w.shells.shells[shell as usize].contact_stiffness,
                )
            })
            .collect();
        let mut want_shells: Vec<u32> = want.iter().map(|m| m.0).collect();
        let mut got_shells: Vec<u32> = got.iter().map(|m| m.0).collect();
        want_shells.sort();
        got_shells.sort();
        assert_eq!(got_shells, want_shells, "{label}: node {i}");
        for (shell, depth) in &got {
            let d = want
                .iter()
                .find(|m| m.0 == *shell)
                .map(|m| m.1)
                .unwrap_or(0.0);
            assert!(
                (depth + d).abs() <= 1e-5 * d.abs(),
                "{label}: node {i} in {shell}: |F|/k {depth} vs {d}"
            );
            checked += 1;
        }
        assert_eq!(
            rec[2 * MASTERS][2].to_bits(),
            0,
            "no ring or shell past SEEN"
        );
    }
    checked
}

/// Six rings of 24 nodes with contact, crowded so that they overlap, nodes jittered.
fn crowded_rings(seed: u64, self_contact: bool) -> World {
    let mut rng = SplitMix(seed);
    let mut rings = Vec::new();
    for k in 0..6 {
        let c = [(k % 3) as f64 * 3.4e-3, (k / 3) as f64 * 3.4e-3];
        let mut pts = circle(c, 2e-3, 24);
        for p in &mut pts {
            p[0] += (rng.uniform() - 0.5) * 1e-4;
            p[1] += (rng.uniform() - 0.5) * 1e-4;
        }
        let mut laws = contact(20.0 + k as f64, self_contact);
        laws.stretch = Some(10.0);
        laws.damping = Some(DampingLaw::ShellViscosity { viscosity: 0.5 });
        rings.push(ring(pts, laws));
    }
    let mut w = world_of(&rings, vec![]);
    for v in w.particles.vel.iter_mut() {
        v[0] = (rng.uniform() * 2.0 - 1.0) as f32 * 0.02;
        v[1] = (rng.uniform() * 2.0 - 1.0) as f32 * 0.02;
    }
    w
}

#[test]
fn every_master_segment_within_reach_is_found_as_brute_force_finds_it() {
    for seed in [1u64, 2] {
        let w = crowded_rings(seed, seed == 2);
        let mut b = CpuBackend::new(w.clone()).expect("cpu");
        let mut checked = 0;
        for round in 0..3 {
            checked += check_masters(&w, &mut b, &format!("seed {seed} round {round}"));
            b.run(300);
        }
        assert!(checked > 20, "seed {seed}: only {checked} contacts checked");
    }
}

#[test]
fn colliding_rings_bounce_apart_keeping_momentum_and_their_ledger() {
    // Two rings of 32 nodes, springs and penalty, no damping: B flies into A at 0.5 m/s.
    let laws = |k| {
        let mut l = contact(k, false);
        l.stretch = Some(20.0);
        l.area = Some(AreaLaw {
            stiffness: 2.0,
            rest_area: None,
        });
        l
    };
    let mut b_ring = ring(circle([4.3e-3, 0.3e-3], 2e-3, 32), laws(200.0));
    b_ring.velocity = [-0.5, 0.0];
    let w = world_of(
        &[ring(circle([0.0, 0.0], 2e-3, 32), laws(200.0)), b_ring],
        vec![],
    );
    let mut b = CpuBackend::new(w).expect("cpu");
    let momentum = |b: &mut CpuBackend| {
        let vel = b.snapshot().vel.to_vec();
        let m = &b.world.particles.mass;
        let px: f64 = vel
            .iter()
            .zip(m)
            .map(|(v, &m)| v[0] as f64 * m as f64)
            .sum();
        let py: f64 = vel
            .iter()
            .zip(m)
            .map(|(v, &m)| v[1] as f64 * m as f64)
            .sum();
        (px, py)
    };
    let centre = |b: &mut CpuBackend, r: usize| {
        let s = b.snapshot();
        let xs = &s.pos[32 * r..32 * (r + 1)];
        xs.iter().map(|p| p[0] as f64).sum::<f64>() / 32.0
    };
    let (p0, e0) = (momentum(&mut b), b.energy().total);
    let mut deepest = 0.0f64;
    for _ in 0..60 {
        b.run(500);
        let e = b.energy();
        deepest = deepest.max(e.elastic);
        // B never passes into A: their centres stay more than a radius apart.
        let (xa, xb) = (centre(&mut b, 0), centre(&mut b, 1));
        assert!(xb - xa > 2e-3, "centres {xa} {xb}");
    }
    let (p1, e1) = (momentum(&mut b), b.energy().total);
    let scale = 0.5 * p0.0.abs();
    assert!(
        (p1.0 - p0.0).abs() < 1e-5 * scale && p1.1.abs() < 1e-5 * scale,
        "momentum {p0:?} -> {p1:?}"
    );
    assert!(deepest > 0.0, "the rings never touched");
    // Conservative penalty, springs and area laws under velocity Verlet: the ledger to 1e-3.
    assert!(((e1 - e0) / e0).abs() < 1e-3, "energy {e0} -> {e1}");
    // Bounced: apart again and separating (equal masses: A takes most of B's speed).
    let (xa, xb) = (centre(&mut b, 0), centre(&mut b, 1));
    let s = b.snapshot();
    let mean_vx =
        |r: std::ops::Range<usize>| s.vel[r].iter().map(|v| v[0] as f64).sum::<f64>() / 32.0;
    let (va, vb) = (mean_vx(0..32), mean_vx(32..64));
    assert!(
        xb - xa > 4e-3 && vb > va,
        "centres {xa} {xb}, speeds {va} {vb}"
    );
}

#[test]
fn self_contact_is_off_unless_asked() {
    // A ring whose top dips to 0.2 mm above its bottom edge: its node 7 meets its own bottom
    // segments (at node 2, five nodes along the ring) only with self_contact.
    let mm = 1e-3;
    let pts = vec![
        [0.0, 0.0],
        [1.0 * mm, 0.0],
        [2.0 * mm, 0.0],
        [3.0 * mm, 0.0],
        [4.0 * mm, 0.0],
        [4.0 * mm, 1.0 * mm],
        [3.0 * mm, 1.0 * mm],
        [2.0 * mm, 0.2 * mm],
        [1.0 * mm, 1.0 * mm],
        [0.0, 1.0 * mm],
    ];
    for on in [false, true] {
        let b = CpuBackend::new(world_of(&[ring(pts.clone(), contact(10.0, on))], vec![]))
            .expect("cpu");
        let kept = b.surface_records[SURFACE_RECORDS * 7 + 2 * MASTERS][1].to_bits();
        assert_eq!(kept, on as u32, "self_contact {on}");
        if on {
            // Pushed out of the bottom edge: along -y, k |d| with d = -0.2 mm (at node 2).
            let f = b.surface_records[SURFACE_RECORDS * 7 + 1];
            assert!(
                (f[1] as f64 / (-10.0 * 0.2 * mm) - 1.0).abs() < 1e-5,
                "{f:?}"
            );
        }
    }
}

#[test]
fn segment_passes_match_their_twins_on_random_states_and_over_200_steps() {
    let Some(ctx) = grains_tests::gpu_context() else {
        return;
    };
    for seed in [3u64, 4] {
        let w = crowded_rings(seed, seed == 4);
        let mut c = CpuBackend::new(w.clone()).expect("cpu");
        let mut g = GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
        let n = c.force.len();
        let gr: Vec<[f32; 4]> = g
            .read_buffer("surface_records", SURFACE_RECORDS * n)
            .expect("read");
        // The same masters in the same slots (element bits equal); weights, forces and energies
        // to 1e-5 of the largest (the closest approach's few f32 operations in another order).
        let summary = 2 * MASTERS;
        for (k, (a, b)) in c.surface_records.iter().zip(&gr).enumerate() {
            let at = k % SURFACE_RECORDS;
            if at == summary {
                assert_eq!(
                    a[1].to_bits(),
                    b[1].to_bits(),
                    "seed {seed}: kept, record {k}"
                );
            } else if at.is_multiple_of(2) {
                assert_eq!(
                    a[0].to_bits(),
                    b[0].to_bits(),
                    "seed {seed}: master, record {k}"
                );
            }
        }
        let kept: u32 = c
            .surface_records
            .iter()
            .skip(summary)
            .step_by(SURFACE_RECORDS)
            .map(|r| r[1].to_bits())
            .sum();
        assert!(kept > 10, "seed {seed}: {kept} contacts");
        let pick = |v: &[[f32; 4]], odd: bool| -> Vec<[f32; 4]> {
            v.iter()
                .enumerate()
                .filter(|(k, _)| k % SURFACE_RECORDS < summary && (k % 2 == 1) == odd)
                .map(|(_, r)| *r)
                .collect()
        };
        let (d, s) = max_diff(&pick(&c.surface_records, false), &pick(&gr, false), 1..4);
        assert!(d <= 1e-5 * s, "seed {seed}: weights {d} of {s}");
        let (d, s) = max_diff(&pick(&c.surface_records, true), &pick(&gr, true), 0..4);
        assert!(d <= 1e-5 * s, "seed {seed}: forces {d} of {s}");
        let gforce: Vec<[f32; 4]> = g.read_buffer("force", n).expect("read");
        let (d, s) = max_diff(&c.force, &gforce, 0..3);
        assert!(d <= 1e-5 * s, "seed {seed}: node forces {d} of {s}");
        if seed == 3 {
            c.run(200);
            g.run(200);
            let (cs, gs) = (c.snapshot(), g.snapshot());
            let (d, _) = max_diff(&cs.pos, &gs.pos, 0..3);
            assert!(d < 1e-8, "positions after 200 steps differ by {d} m");
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

#[test]
fn the_penalty_force_is_minus_the_gradient_of_its_energy_and_exerts_no_net_moment() {
    // Segment (0, 0) -> (1, 0) with the straight-run pseudonormals; slaves inside it in each
    // of the three cases of s.
    let (x0, x1, m) = (Vec3::ZERO, Vec3::X, -Vec3::Y);
    let k = 7.0f64;
    let energy = |a: Vec3| {
        let c = resolve_node_to_segment(x0 - a, x1 - a, m, m);
        if c.d < 0.0 {
            0.5 * k * (c.d as f64).powi(2)
        } else {
            0.0
        }
    };
    for p in [[0.4f32, 0.1], [-0.3, 0.2], [1.2, 0.15]] {
        let a = Vec3::new(p[0], p[1], 0.0);
        let c = resolve_node_to_segment(x0 - a, x1 - a, m, m);
        let f = Vec3::from(c.g) * (-(k as f32) * c.d);
        // Central differences of k d^2 / 2 in f64 on f32 positions: 1e-3 of |F|.
        for axis in 0..2 {
            let h = 1e-3f32;
            let mut e = [a, a];
            e[0][axis] += h;
            e[1][axis] -= h;
            let fd = -(energy(e[0]) - energy(e[1])) / (2.0 * h as f64);
            assert!(
                (f[axis] as f64 - fd).abs() < 1e-3 * f.length() as f64,
                "{p:?} axis {axis}: {} vs {fd}",
                f[axis]
            );
        }
        // The reaction -(1 - s) F, -s F on the nodes: no net force, and no net moment about
        // any point (here the origin).
        let s = c.s.clamp(0.0, 1.0);
        let (f0, f1) = (-(1.0 - s) * f, -s * f);
        let net = f + f0 + f1;
        let moment = a.cross(f) + x0.cross(f0) + x1.cross(f1);
        assert!(net.length() < 1e-6 * f.length(), "{p:?}: net {net}");
        assert!(
            moment.length() < 1e-6 * f.length(),
            "{p:?}: moment {moment}"
        );
    }
    // A gap: no force.
    let c = resolve_node_to_segment(x0 - Vec3::new(0.5, -0.1, 0.0), x1, m, m);
    assert!(c.d > 0.0);
    assert_eq!(
        grains_core::kernels::shell::penalty::law_penalty(c.d, 7.0),
        [0.0, 0.0]
    );
}

#[test]
fn a_node_sliding_inside_a_ring_changes_master_segment_smoothly() {
    // Ring A (24 nodes, radius 2 mm); a single slave, the tip of a thin triangle ring B,
    // moved along a circle about 0.1 mm inside A's boundary: the force on it from its master,
    // sampled at angles a fifth of a segment apart, changes by a few percent step to step.
    let a = circle([0.0, 0.0], 2e-3, 24);
    let k = 40.0;
    let (mut worst, mut turn) = (0.0f64, 0.0f64);
    let mut prev: Option<glam::DVec2> = None;
    for step in 0..=60 {
        let phi = step as f64 * (std::f64::consts::TAU / 24.0 / 5.0);
        let r = 1.9e-3 * (std::f64::consts::PI / 24.0).cos();
        let tip = [r * phi.cos(), r * phi.sin()];
        let out = [tip[0] * 2.0, tip[1] * 2.0];
        let side = [-tip[1] * 0.2, tip[0] * 0.2];
        let b = vec![
            tip,
            [out[0] + side[0], out[1] + side[1]],
            [out[0] - side[0], out[1] - side[1]],
        ];
        let b = if polygon_area(&b) > 0.0 {
            b
        } else {
            vec![b[0], b[2], b[1]]
        };
        let first_b = 24;
        let w = world_of(
            &[
                ring(a.clone(), contact(k, false)),
                ring(b.clone(), contact(k, false)),
            ],
            vec![],
        );
        let c = CpuBackend::new(w).expect("cpu");
        let slave = first_b + b.iter().position(|p| *p == tip).unwrap_or(0);
        // The force on it from its master segment of A (its own records: A's nodes that B's
        // long sides straddle push back on B's sides too, which is another contact).
        let kept = c.surface_records[SURFACE_RECORDS * slave + 2 * MASTERS][1].to_bits();
        assert_eq!(kept, 1, "phi {phi}: one master");
        let rec = c.surface_records[SURFACE_RECORDS * slave + 1];
        let f = glam::DVec2::new(rec[0] as f64, rec[1] as f64);
        assert!(f.length() > 0.0, "phi {phi}: no force");
        // Closed form: the depth below the nearest side, whose normal is at (j + 1/2) 15
        // degrees, at the apothem R cos(7.5 degrees).
        let side = std::f64::consts::TAU / 24.0;
        let j = (phi / side - 0.5).round();
        let depth = 2e-3 * (side / 2.0).cos() - r * (phi - (j + 0.5) * side).cos();
        worst = worst.max((f.length() / (k * depth) - 1.0).abs());
        if let Some(p) = prev {
            turn = turn.max(p.angle_to(f).abs());
        }
        prev = Some(f);
    }
    // Its size is k times the depth below the nearest side at every sample (to 1e-4: f32
    // positions of a 2 mm ring, a 0.1 mm depth), continuous along the path. Its direction is
    // the master segment's normal, which turns by the ring's 15 degrees where the master
    // changes (on the bisector of two sides, both equally close: the reference's closest
    // segment rule), and no more.
    assert!(
        worst < 1e-4,
        "the force is off k depth by {worst} of itself"
    );
    let corner = std::f64::consts::TAU / 24.0;
    assert!(
        turn <= corner + 1e-3,
        "the force turns by {turn} rad at once"
    );
}

#[test]
fn colliding_rings_keep_their_ledger_better_at_a_smaller_dt() {
    let laws = || {
        let mut l = contact(200.0, false);
        l.stretch = Some(20.0);
        l.area = Some(AreaLaw {
            stiffness: 2.0,
            rest_area: None,
        });
        l
    };
    let drift = |scale: f64| {
        let mut b_ring = ring(circle([4.3e-3, 0.3e-3], 2e-3, 32), laws());
        b_ring.velocity = [-0.5, 0.0];
        let mut w = world_of(
            &[ring(circle([0.0, 0.0], 2e-3, 32), laws()), b_ring],
            vec![],
        );
        w.dt *= scale;
        let steps = (6e-3 / w.dt).round() as u64;
        let mut b = CpuBackend::new(w).expect("cpu");
        let e0 = b.energy().total;
        let mut worst = 0.0f64;
        // The excursion's largest value, sampled every 16 steps at dt (every 32 at dt/2: the
        // same instants), so that the oscillation's phase does not pick the samples.
        let every = (16.0 / scale).round() as u64;
        for _ in 0..steps / every {
            b.run(every);
            worst = worst.max((b.energy().total - e0).abs() / e0);
        }
        worst
    };
    let (coarse, fine) = (drift(1.0), drift(0.5));
    // Velocity Verlet on conservative forces would halve the excursion twice per halving of
    // dt. The penalty is conservative but its force turns at once where a slave's master
    // changes (on the bisector of two segments: the reference's closest-segment rule), an
    // O(dt) error per switch: the ratio measured here is 5.4 from dt to dt/2 and 2.0 from dt/2
    // to dt/4. Checked: small, and falling with dt.
    let ratio = coarse / fine;
    assert!(
        coarse < 1e-3 && (1.5..8.0).contains(&ratio),
        "drift {coarse:e} at dt, {fine:e} at dt/2: ratio {ratio}"
    );
}

#[test]
fn the_cells_2d_scene_checks() {
    let scene =
        grains_scene::load_scene(&grains_tests::workspace_root().join("scenes/cells_2d.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
    // 20 x 15 copies of a ring of 16 nodes, shifted by 2.2 mm.
    assert_eq!(scene.world.shells.shells.len(), 300);
    assert_eq!(scene.world.particles.len(), 300 * 16);
    let first = |r: usize| scene.world.particles.pos[16 * r];
    assert_eq!(first(1)[0] - first(0)[0], 2.2e-3);
    assert_eq!(first(20)[1] - first(0)[1], 2.2e-3);
}
