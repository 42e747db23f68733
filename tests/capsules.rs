//! Capsules: the rigid-body integrator against the torque-free symmetric top, a capsule of zero
//! length against a sphere, two crossed capsules against Hertz's impact, a pour whose ledger
//! closes, CPU/GPU parity and the `shape = "capsule"` keys' errors.

use std::f64::consts::PI;
use std::path::Path;

use glam::{DVec3, Vec3};
use grains_core::shapes::{capsule_inertia, quat_rotate, quat_rotate_inv};
use grains_core::{Backend, CpuBackend};
use grains_tests::{gpu_context, test_world as scene_world};

fn scene_error(text: &str) -> String {
    match grains_scene::parse_scene(text, Path::new("<test>")) {
        Ok(_) => panic!("the scene was accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const RODS: &str = r#"
[[material]]
name = "rod"
density = 1000.0
young = 1.0e7
poisson = 0.3

[[material]]
name = "bead"
density = 1000.0
young = 1.0e7
poisson = 0.3

[[material]]
name = "steel"
density = 7800.0
young = 1.0e7
poisson = 0.3
"#;

/// Hertz between every pair of the three materials, undamped unless `damped`.
fn interactions(damped: bool) -> String {
    let mut s = String::new();
    for (a, b) in [
        ("rod", "rod"),
        ("rod", "bead"),
        ("bead", "bead"),
        ("rod", "steel"),
        ("bead", "steel"),
    ] {
        s.push_str(&format!(
            "\n[[interaction]]\nbetween = [\"{a}\", \"{b}\"]\nnormal = {{ law = \"hertz\" }}\n"
        ));
        if damped {
            s.push_str(
                "damping = { law = \"viscous\", restitution = 0.5 }\n\
                 tangential = { law = \"cundall_strack\", friction = 0.3 }\n",
            );
        }
    }
    s
}

/// A capsule alone and without gravity, spinning about an axis off its own, keeps its angular
/// momentum and energy, and the spin precesses in the body frame at Euler's rate
/// `lambda = (I_a - I_p) / I_p w_z` (a torque-free symmetric top). Tolerances: the explicit
/// half kicks err by O(dt) per step in the body frame; at 1e-4 of a precession period per step
/// the angular momentum drifts by under 1e-3 over a period.
#[test]
fn a_free_capsule_precesses_as_a_symmetric_top() {
    let (r, len) = (0.002, 0.008);
    let (wx, wz) = (30.0, 50.0);
    let (_, ip, ia) = capsule_inertia(0.5 * len, r, 1000.0);
    let lambda = (ia - ip) / ip * wz;
    let period = 2.0 * PI / lambda.abs();
    let dt = period / 10_000.0;
    let w = scene_world(&format!(
        r#"{RODS}
[simulation]
steps = 1
dt = {dt}
gravity = [0.0, 0.0, 0.0]

[domain]
min = [-0.1, -0.1, -0.1]
max = [0.1, 0.1, 0.1]

[[particles]]
material = "rod"
shape = "capsule"
radius = {r}
length = {len}
positions = [[0.0, 0.0, 0.0]]
angular_velocities = [[{wx}, 0.0, {wz}]]
{}
"#,
        interactions(false)
    ));
    let mut b = CpuBackend::new(w).expect("backend");
    let inertia = DVec3::new(ip, ip, ia);
    let momentum = |b: &CpuBackend| {
        let q = b.quat[0];
        let wb = quat_rotate_inv(q, Vec3::new(b.omega[0][0], b.omega[0][1], b.omega[0][2]));
        let lb = inertia * wb.as_dvec3();
        (
            quat_rotate(q, lb.as_vec3()).as_dvec3(),
            0.5 * wb.as_dvec3().dot(lb),
            wb,
        )
    };
    let (l0, e0, _) = momentum(&b);
    let e_ledger0 = b.energy().rotational;
    assert!((e_ledger0 - e0).abs() < 1e-6 * e0, "{e_ledger0} vs {e0}");
    let steps = 2500; // a quarter period
    b.run(steps);
    let (l1, e1, wb) = momentum(&b);
    let dl = (l1 - l0).length() / l0.length();
    let de = (e1 - e0).abs() / e0;
    // In the body frame the transverse spin turns by lambda t.
    let turned = (wb.y as f64).atan2(wb.x as f64);
    let want = lambda * steps as f64 * dt;
    eprintln!(
        "free capsule: |dL|/L {dl:.2e}, dE/E {de:.2e}, turned {turned:.5} rad, Euler {want:.5} rad, axial spin {} vs {wz}",
        wb.z
    );
    assert!(dl < 1e-3, "angular momentum drifted by {dl:e}");
    assert!(de < 1e-3, "rotational energy drifted by {de:e}");
    assert!(
        (turned - want).abs() < 2e-3 * want.abs().max(1.0),
        "precessed {turned} rad, Euler's rate gives {want} rad"
    );
    assert!(
        ((wb.z as f64) - wz).abs() < 1e-3 * wz,
        "axial spin {}",
        wb.z
    );
}

/// Drop a capsule of zero length and a sphere of the same radius and material properties side by
/// side onto the floor: they bounce, slide and roll alike.
#[test]
fn a_capsule_of_zero_length_falls_and_bounces_as_a_sphere() {
    let w = scene_world(&format!(
        r#"{RODS}
[simulation]
steps = 1
dt = 2e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.05]

[[wall]]
material = "steel"
plane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}

[[particles]]
material = "rod"
shape = "capsule"
radius = 0.002
length = 0.0
positions = [[-0.01, 0.0, 0.006]]
velocities = [[0.1, 0.0, 0.0]]
angular_velocities = [[0.0, 5.0, 0.0]]

[[particles]]
material = "bead"
radius = 0.002
positions = [[0.01, 0.0, 0.006]]
velocities = [[0.1, 0.0, 0.0]]
angular_velocities = [[0.0, 5.0, 0.0]]
{}
"#,
        interactions(true)
    ));
    let mut b = CpuBackend::new(w).expect("backend");
    let mut worst = 0.0f32;
    let mut lowest = f32::INFINITY;
    for _ in 0..60 {
        b.run(1000);
        let (c, s) = (b.pos[0], b.pos[1]);
        worst = worst
            .max((c[0] + 0.02 - s[0]).abs())
            .max((c[2] - s[2]).abs())
            .max((b.omega[0][1] - b.omega[1][1]).abs() * 0.002);
        lowest = lowest.min(c[2]);
    }
    eprintln!("zero-length capsule against sphere: worst difference {worst:e} m");
    assert!(
        lowest < 0.00205,
        "the capsule never reached the floor ({lowest} m)"
    );
    // The capsule turns through Euler's equations (a rotation into its body frame and back),
    // the sphere through its scalar inertia: the same physics, rounded differently; 1e-7 m is
    // 5e-5 of the radius after 0.12 s of bouncing, sliding and rolling.
    assert!(
        worst < 1e-7,
        "the capsule and the sphere part by {worst:e} m"
    );
}

/// Two capsules crossing at right angles meet centre to centre: the contact is that of two
/// spheres of the capsules' radius (`R* = r/2`) with the capsules' masses, so the impact lasts
/// Hertz's `2.9432 delta_max / v` (Johnson 1985, §11.4) and is elastic. Tolerance 1% as the
/// sphere test; the impact puts no torque on either capsule.
#[test]
fn crossed_capsules_collide_with_hertz_duration() {
    let (r, len, v, young) = (0.002, 0.01, 0.5, 1.0e7);
    let (m, _, _) = capsule_inertia(0.5 * len, r, 1000.0);
    let e_eff = young / (2.0 * (1.0 - 0.09));
    let (m_eff, r_eff) = (0.5 * m, 0.5 * r);
    let dmax = (15.0 * m_eff * v * v / (16.0 * e_eff * r_eff.sqrt())).powf(0.4);
    let t_c = 2.9432 * dmax / v;
    let dt = t_c / 2000.0;
    let gap = 1e-3 * r;
    let w = scene_world(&format!(
        r#"{RODS}
[simulation]
steps = 1
dt = {dt}
gravity = [0.0, 0.0, 0.0]

[domain]
min = [-0.05, -0.05, -0.05]
max = [0.05, 0.05, 0.05]

[[particles]]
material = "rod"
shape = "capsule"
radius = {r}
length = {len}
positions = [[0.0, 0.0, {z1}], [0.0, 0.0, {z2}]]
velocities = [[0.0, 0.0, {v1}], [0.0, 0.0, {v2}]]
orientations = [[0.7071067811865476, 0.0, 0.7071067811865476, 0.0], [0.7071067811865476, 0.7071067811865476, 0.0, 0.0]]
{}
"#,
        interactions(false),
        z1 = -(r + gap),
        z2 = r + gap,
        v1 = 0.5 * v,
        v2 = -0.5 * v,
    ));
    let mut b = CpuBackend::new(w).expect("backend");
    let (mut steps, mut started) = (0u64, false);
    for _ in 0..20_000 {
        b.step();
        if b.force[0][2] != 0.0 {
            started = true;
            steps += 1;
        } else if started {
            break;
        }
    }
    let dur = steps as f64 * dt;
    let e = (b.vel[1][2] - b.vel[0][2]) as f64 / v;
    let spin = b.omega[0][0].abs().max(b.omega[0][1].abs());
    eprintln!("crossed capsules: contact {dur:.6e} s, Hertz {t_c:.6e} s, restitution {e:.6}, spin {spin:e}");
    assert!((dur - t_c).abs() / t_c < 0.01, "duration {dur} vs {t_c}");
    assert!((e - 1.0).abs() < 1e-3, "elastic impact restituted {e}");
    assert!(
        spin < 1e-3,
        "a centred impact spun the capsule at {spin} rad/s"
    );
}

/// Capsules and beads poured into a box of planes: they settle on the floor, none below it, and
/// the ledger closes. Tolerance: the ledger's own f32 sums over 200 bodies, 1e-3 of the
/// potential energy released.
fn capsule_pour() -> String {
    format!(
        r#"{RODS}
[simulation]
steps = 1
dt = 5e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.08]

[[wall]]
material = "steel"
box = {{ min = [-0.02, -0.02, 0.0], max = [0.02, 0.02, 0.08] }}

[[particles]]
material = "rod"
shape = "capsule"
radius = 0.0015
length = 0.006
lattice = {{ spacing = 0.0105, count = [3, 3, 4], origin = [-0.0105, -0.0105, 0.008], jitter = 0.001, seed = 3 }}
orientation = [0.9238795325112867, 0.3826834323650898, 0.0, 0.0]

[[particles]]
material = "bead"
radius = 0.0015
lattice = {{ spacing = 0.007, count = [4, 4, 2], origin = [-0.0105, -0.0105, 0.05], jitter = 0.001, seed = 4 }}
{}
"#,
        interactions(true)
    )
}

/// Run a pour for 40,000 steps: the largest ledger excursion (J) and the potential energy
/// released (J), printing the ledger every 5000 steps.
fn ledger_of(text: &str, what: &str) -> (f64, f64, CpuBackend) {
    let mut b = CpuBackend::new(scene_world(text)).expect("backend");
    let e0 = b.energy();
    let mut worst = 0.0f64;
    for k in 0..40 {
        b.run(1000);
        let e = b.energy();
        worst = worst.max((e.total - e0.total).abs());
        if k % 10 == 9 {
            eprintln!(
                "  {what} step {}: ledger {:+.3e} J, rotational {:.3e} J",
                (k + 1) * 1000,
                e.total - e0.total,
                e.rotational
            );
        }
    }
    let released = e0.gravitational - b.energy().gravitational;
    (worst, released, b)
}

/// The ledger of a capsule pour closes as well as that of the same pour with spheres in place
/// of the capsules (measured alike, 1.3e-3 of the energy released at this dt; the leapfrog's
/// half step in the ledger and f32 sums set that floor): within 1.5 times its relative drift.
/// No capsule's lowest point ends up more than a fifth of its radius inside the floor
/// (rest overlaps are microns; a capsule that tunnelled would be millimetres down).
#[test]
fn poured_capsules_settle_with_the_ledger_closed() {
    let text = capsule_pour();
    let (worst, released, mut b) = ledger_of(&text, "capsules");
    let spheres = text
        .replace("shape = \"capsule\"\n", "")
        .replace("length = 0.006\n", "")
        .replace(
            "orientation = [0.9238795325112867, 0.3826834323650898, 0.0, 0.0]\n",
            "",
        );
    let (worst_s, released_s, _) = ledger_of(&spheres, "spheres");
    let lowest = (0..36)
        .map(|i| {
            let a = quat_rotate(b.quat[i], Vec3::Z) * 0.003;
            b.pos[i][2] - a.z.abs() - 0.0015
        })
        .fold(f32::INFINITY, f32::min);
    let c = b.contacts();
    let (rel, rel_s) = (worst / released, worst_s / released_s);
    eprintln!(
        "capsule pour: released {released:.4e} J, ledger within {worst:.3e} J ({rel:.2e}); spheres {rel_s:.2e}; lowest surface {lowest:e} m, {c:?}"
    );
    assert!(released > 0.0 && c.pairs > 0 && c.walls > 0);
    assert!(
        rel < 1.5 * rel_s,
        "capsule ledger {rel:e} against spheres' {rel_s:e}"
    );
    assert!(lowest > -3e-4, "a capsule sank {lowest:e} m into the floor");
}

#[test]
fn a_capsule_pour_matches_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    // The pour started just above the floor, thrown down, so that 1000 steps hold impacts on
    // the floor and between capsules and beads.
    let text = capsule_pour()
        .replace(
            "origin = [-0.0105, -0.0105, 0.008]",
            "origin = [-0.0105, -0.0105, 0.0037]",
        )
        .replace("count = [3, 3, 4]", "count = [3, 3, 1]")
        .replace("jitter = 0.001, seed = 3", "jitter = 0.0, seed = 3")
        .replace("jitter = 0.001, seed = 4", "jitter = 0.0, seed = 4")
        .replace("count = [4, 4, 2]", "count = [4, 4, 1]")
        .replace(
            "origin = [-0.0105, -0.0105, 0.05]",
            "origin = [-0.0105, -0.0105, 0.009]",
        )
        .replace("seed = 4 }", "seed = 4 }\nvelocity = [0.0, 0.0, -0.3]")
        .replace("seed = 3 }", "seed = 3 }\nvelocity = [0.0, 0.0, -0.3]");
    let w = scene_world(&text);
    let mut cpu = CpuBackend::new(w.clone()).expect("cpu");
    let mut gpu = grains_gpu::GpuBackend::new(w, &ctx).expect("gpu");
    let steps = 1000;
    let (mut pairs, mut walls) = (0, 0);
    for _ in 0..steps / 100 {
        cpu.run(100);
        let c = cpu.contacts();
        pairs = pairs.max(c.pairs);
        walls = walls.max(c.walls);
    }
    gpu.run(steps);
    let (a, g) = (cpu.snapshot(), gpu.snapshot());
    let mut worst = 0.0f32;
    let mut worst_q = 0.0f32;
    for i in 0..a.pos.len() {
        for k in 0..3 {
            worst = worst.max((a.pos[i][k] - g.pos[i][k]).abs());
        }
        for k in 0..4 {
            worst_q = worst_q.max((a.quat[i][k] - g.quat[i][k]).abs());
        }
    }
    assert!(
        pairs > 0 && walls > 0,
        "no impacts: {pairs} pairs, {walls} wall contacts"
    );
    let spin = a
        .omega
        .iter()
        .map(|w| Vec3::new(w[0], w[1], w[2]).length())
        .fold(0.0, f32::max);
    assert!(spin > 1.0, "the capsules hardly turned ({spin} rad/s)");
    eprintln!(
        "capsule pour after {steps} steps: positions within {worst:e} m, orientations within {worst_q:e}; up to {pairs} pair and {walls} wall contacts, spin up to {spin} rad/s"
    );
    // f32 on both sides with fused multiply-adds on the GPU, through a few hundred contacts:
    // differences grow from ulps; 1e-6 m is a thousandth of the radius.
    assert!(worst < 1e-6, "positions differ by {worst:e} m");
    assert!(worst_q < 1e-4, "orientations differ by {worst_q:e}");
}

#[test]
fn capsule_keys_refuse_bad_input_with_its_place() {
    let base = |particles: &str, walls: &str| {
        format!(
            r#"{RODS}
[simulation]
steps = 1
dt = 1e-5

[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.08]
{walls}
{particles}
{}
"#,
            interactions(false)
        )
    };
    let cases = [
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nradius = 0.001\nlength = 0.004\npositions = [[0.0, 0.0, 0.01]]",
                "",
            ),
            "`length` is a capsule's",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"capsule\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.01]]",
                "",
            ),
            "missing required key `length`",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"cube\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.01]]",
                "",
            ),
            "unknown shape \"cube\"",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"capsule\"\nradius = 0.001\nlength = -1.0\npositions = [[0.0, 0.0, 0.01]]",
                "",
            ),
            "segment length must be >= 0",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"capsule\"\nradius = 0.001\nlength = 0.004\npositions = [[0.0, 0.0, 0.01]]\norientations = [[0.0, 0.0, 0.0, 0.0]]",
                "",
            ),
            "must not be zero",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"capsule\"\nradius = 0.001\nlength = 0.004\npositions = [[0.0, 0.0, 0.01]]\n\n[[particles]]\nmaterial = \"rod\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.03]]",
                "",
            ),
            "material \"rod\" is used by a capsule (particle 0) and by a sphere",
        ),
        (
            base(
                "[[particles]]\nmaterial = \"rod\"\nshape = \"capsule\"\nradius = 0.001\nlength = 0.004\npositions = [[0.0, 0.0, 0.01]]",
                "[[wall]]\nmaterial = \"steel\"\ncylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.015, hollow = true }",
            ),
            "capsules of \"rod\" meet a cylinder wall",
        ),
    ];
    for (text, want) in cases {
        let e = scene_error(&text);
        assert!(e.contains(want), "expected `{want}` in:\n{e}");
        eprintln!("{e}\n");
    }
}

/// Two capsules of half length `h` and radius `r` crossing at `theta` (rad) about the z axis,
/// body 2 above body 1 by `2 r - delta` at `offset` along body 1's axis.
fn crossed_pair(theta: f32, offset: f32, delta: f32) -> grains_core::kernel_types::ContactGeom {
    use grains_core::kernel_types::{CapsuleBody, DomainParams};
    let (h, r) = (2e-3f32, 5e-4f32);
    let body = |pos: [f32; 3], axis: [f32; 3]| CapsuleBody {
        pos,
        radius: r,
        inv_mass: 1.0,
        half_length: h,
        axis,
        ..Default::default()
    };
    let b1 = body([0.0; 3], [1.0, 0.0, 0.0]);
    let b2 = body(
        [offset, 0.0, 2.0 * r - delta],
        [theta.cos(), theta.sin(), 0.0],
    );
    let domain = DomainParams {
        min: [-1.0; 3],
        max: [1.0; 3],
        length: [2.0; 3],
        ..Default::default()
    };
    grains_core::kernels::resolvers::capsule_capsule::resolve_capsule_capsule(
        &b1, &b2, &domain, 1e-6,
    )
}

#[test]
fn dmt_capsule_moment_is_the_references_and_vanishes_parallel_crossed_and_at_the_caps() {
    use grains_core::kernel_types::ContactForce;
    use grains_core::kernels::laws::dmt_capsule::{
        law_dmt_capsule, DmtCapsuleHistory, DmtCapsuleParams,
    };
    let (w, f, delta) = (0.05f32, 1.5f32, 1e-6f32);
    let params = DmtCapsuleParams {
        work: w,
        torque_factor: f,
    };
    let moment = |g: &grains_core::kernel_types::ContactGeom| {
        let mut force = ContactForce::default();
        law_dmt_capsule(g, &params, &mut DmtCapsuleHistory::default(), &mut force);
        (force.torque1, force.torque2)
    };
    for deg in [10.0f32, 30.0, 45.0, 60.0, 80.0] {
        let theta = deg.to_radians();
        let g = crossed_pair(theta, 0.0, delta);
        // The closest points are the segments' middles, the normal +z.
        assert!((g.delta - delta).abs() < 1e-9 && (g.normal[2] - 1.0).abs() < 1e-6);
        let (m1, m2) = moment(&g);
        // -2 f (2 pi R* W) (2/3 sqrt(R* delta)) cos sin about t1 x t2 = +z.
        let r_eff = 0.5 * 5e-4f64;
        let want = -2.0
            * f as f64
            * (2.0 * std::f64::consts::PI * r_eff * w as f64)
            * (2.0 / 3.0 * (r_eff * delta as f64).sqrt())
            * (theta as f64).cos()
            * (theta as f64).sin();
        assert!(
            (m1[2] as f64 / want - 1.0).abs() < 1e-4 && m1[0].abs() < 1e-12 && m1[1].abs() < 1e-12,
            "{deg} deg: {m1:?} vs {want}"
        );
        assert_eq!(m2, [-m1[0], -m1[1], -m1[2]]);
    }
    // Parallel and crossed axes: none; nor where the contact reaches a cap (body 2 shifted
    // past body 1's end), nor apart.
    let none = |g: &grains_core::kernel_types::ContactGeom| {
        let (m1, _) = moment(g);
        m1.iter().all(|x| x.abs() < 1e-15)
    };
    assert!(none(&crossed_pair(0.0, 0.0, delta)), "parallel");
    assert!(
        none(&crossed_pair(std::f32::consts::FRAC_PI_2, 0.0, delta)),
        "crossed"
    );
    // Body 2's segment crosses above a point 0.3 mm past body 1's end: body 1's closest point
    // is its end, on the cap.
    let cap = crossed_pair(0.7, 2.3e-3, 1e-4);
    assert!(cap.delta > 0.0 && none(&cap), "at a cap: {cap:?}");
    assert!(none(&crossed_pair(0.7, 0.0, -1e-5)), "apart");
}
