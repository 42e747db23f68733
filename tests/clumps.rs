//! Clumps: rigid bodies of overlapping spheres. A free clump keeps its angular momentum, a
//! dimer comes to rest on the floor carrying its weight on both spheres, members of one clump
//! never meet, a pour closes its ledger, CPU/GPU parity, and the `shape = "clump"` keys' errors.

use std::path::Path;

use glam::{DVec3, Vec3};
use grains_core::shapes::{quat_rotate, quat_rotate_inv};
use grains_core::{Backend, CpuBackend};
use grains_tests::{gpu_context, run_scene_file, test_world as scene_world};

const HEAD: &str = r#"
[[material]]
name = "rock"
density = 2000.0
young = 1.0e7
poisson = 0.3

[[material]]
name = "steel"
density = 7800.0
young = 1.0e7
poisson = 0.3

[[interaction]]
between = ["rock", "rock"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
tangential = { law = "cundall_strack", friction = 0.4 }

[[interaction]]
between = ["rock", "steel"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
tangential = { law = "cundall_strack", friction = 0.4 }
"#;

/// An L-shaped clump of three spheres (no symmetry axis: three different principal moments).
const TRIMER: &str = "members = [{ offset = [0.0, 0.0, 0.0], radius = 0.002 }, { offset = [0.003, 0.0, 0.0], radius = 0.0015 }, { offset = [0.0, 0.0025, 0.0], radius = 0.0012 }]";

/// A free asymmetric clump spinning about no principal axis keeps its angular momentum (to the
/// f32 floor measured for capsules, 1e-3 over 4000 steps) and its members stay rigidly placed.
#[test]
fn a_free_clump_keeps_its_angular_momentum_and_shape() {
    let w = scene_world(&format!(
        r#"{HEAD}
[simulation]
steps = 1
dt = 1e-5
gravity = [0.0, 0.0, 0.0]

[domain]
min = [-0.1, -0.1, -0.1]
max = [0.1, 0.1, 0.1]

[[particles]]
material = "rock"
shape = "clump"
{TRIMER}
positions = [[0.0, 0.0, 0.0]]
velocities = [[0.01, 0.0, 0.0]]
angular_velocities = [[20.0, 35.0, -10.0]]
"#
    ));
    assert_eq!(w.particles.len(), 4, "a body and three members");
    let k = w
        .particles
        .shape_of(0)
        .inertia_per_mass()
        .expect("a rigid body");
    let m = w.particles.mass[0] as f64;
    let inertia = DVec3::new(k[0] as f64, k[1] as f64, k[2] as f64) * m;
    let mut b = CpuBackend::new(w).expect("backend");
    let momentum = |b: &CpuBackend| {
        let q = b.quat[0];
        let wb = quat_rotate_inv(q, Vec3::new(b.omega[0][0], b.omega[0][1], b.omega[0][2]));
        quat_rotate(q, (inertia * wb.as_dvec3()).as_vec3()).as_dvec3()
    };
    let gaps = |b: &CpuBackend| {
        let d = |i: usize, j: usize| {
            (Vec3::from_slice(&b.pos[i][..3]) - Vec3::from_slice(&b.pos[j][..3])).length()
        };
        [d(1, 2), d(1, 3), d(2, 3)]
    };
    let (l0, g0, e0) = (momentum(&b), gaps(&b), b.energy().rotational);
    b.run(4000);
    let (l1, g1, e1) = (momentum(&b), gaps(&b), b.energy().rotational);
    let dl = (l1 - l0).length() / l0.length();
    let de = (e1 - e0).abs() / e0;
    let dg = (0..3).map(|i| (g1[i] - g0[i]).abs()).fold(0.0f32, f32::max);
    let turned = 2.0 * (b.quat[0][3] as f64).acos();
    eprintln!(
        "free clump: k = {k:?} m^2, |dL|/L {dl:.2e}, dE/E {de:.2e}, member spacing within {dg:e} m, turned {turned:.2} rad"
    );
    assert!(
        k[0] != k[1] && k[1] != k[2],
        "expected three distinct moments: {k:?}"
    );
    assert!(dl < 1e-3, "angular momentum drifted by {dl:e}");
    assert!(de < 1e-3, "rotational energy drifted by {de:e}");
    // Rigid: the members' spacings hold to f32 rounding of millimetre distances.
    assert!(dg < 1e-8, "members moved apart by {dg} m");
}

/// A dimer dropped on the floor comes to rest on both spheres: the floor carries its whole
/// weight (1e-3: the last of the damped bounce), split between the two members, and the body's
/// energy is the ledger's.
#[test]
fn a_dimer_comes_to_rest_on_both_spheres() {
    let w = scene_world(&format!(
        r#"{HEAD}
[simulation]
steps = 1
dt = 5e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.04]

[[wall]]
material = "steel"
plane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}

[[particles]]
material = "rock"
shape = "clump"
members = [{{ offset = [-0.0015, 0.0, 0.0], radius = 0.002 }}, {{ offset = [0.0015, 0.0, 0.0], radius = 0.002 }}]
positions = [[0.0, 0.0, 0.006]]
orientation = [0.9961946980917455, 0.0, 0.08715574274765817, 0.0]
"#
    ));
    let weight = 9.81 * w.particles.mass[0] as f64;
    let mut b = CpuBackend::new(w).expect("backend");
    let e0 = b.energy();
    let mut worst = 0.0f64;
    for _ in 0..60 {
        b.run(1000);
        worst = worst.max((b.energy().total - e0.total).abs());
    }
    let load: f64 = b.wall_loads().iter().map(|l| l.force[2]).sum::<f64>().abs();
    let (f1, f2) = (b.force[1][2] as f64, b.force[2][2] as f64);
    let released = e0.gravitational - b.energy().gravitational;
    eprintln!(
        "dimer at rest: floor load {load:.6e} N against weight {weight:.6e} N; members {f1:.4e} and {f2:.4e} N; ledger within {worst:.2e} of {released:.2e} J; tilt {:?}",
        b.quat[0]
    );
    assert!(
        (load - weight).abs() < 1e-3 * weight,
        "load {load} vs {weight}"
    );
    assert!(
        f1 > 0.3 * weight && f2 > 0.3 * weight,
        "one sphere carries it: {f1} and {f2} N"
    );
    assert!(worst < 2e-3 * released, "ledger {worst:e} J");
}

/// A pour of clumps: the neighbour list never pairs two members of one clump, the bed settles,
/// and the ledger closes as a sphere pour does (1.3e-3 of the energy released at this dt; 2e-3
/// allowed).
fn clump_pour() -> String {
    format!(
        r#"{HEAD}
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
material = "rock"
shape = "clump"
{TRIMER}
lattice = {{ spacing = 0.009, count = [3, 3, 3], origin = [-0.009, -0.009, 0.006], jitter = 0.0005, seed = 7 }}
orientation = "random"
"#
    )
}

#[test]
fn poured_clumps_settle_with_the_ledger_closed() {
    let w = scene_world(&clump_pour());
    let body: Vec<Option<usize>> = (0..w.particles.len())
        .map(|i| {
            let r = w.particles.shape_of(i);
            (r.kind == grains_core::shapes::KIND_MEMBER).then(|| i - r.data[3].to_bits() as usize)
        })
        .collect();
    let mut b = CpuBackend::new(w).expect("backend");
    let e0 = b.energy();
    let mut worst = 0.0f64;
    let mut pairs = 0;
    for _ in 0..40 {
        b.run(1000);
        worst = worst.max((b.energy().total - e0.total).abs());
        for (i, j) in b.candidate_pairs() {
            let (bi, bj) = (body[i as usize], body[j as usize]);
            assert!(
                bi.is_none() || bi != bj,
                "members {i} and {j} of one clump are paired"
            );
        }
        pairs = pairs.max(b.contacts().pairs);
    }
    let e = b.energy();
    let released = e0.gravitational - e.gravitational;
    eprintln!(
        "clump pour: released {released:.4e} J, ledger within {worst:.3e} J ({:.2e}), up to {pairs} contacts, kinetic now {:.2e} J",
        worst / released,
        e.kinetic
    );
    assert!(pairs > 0 && released > 0.0);
    assert!(worst < 2e-3 * released, "ledger drift {worst:e} J");
}

#[test]
fn a_clump_pour_matches_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    // Started on the floor and thrown down, so that 1000 steps hold impacts.
    let text = clump_pour()
        .replace(
            "origin = [-0.009, -0.009, 0.006]",
            "origin = [-0.009, -0.009, 0.0042]",
        )
        .replace("count = [3, 3, 3]", "count = [3, 3, 1]")
        .replace("jitter = 0.0005", "jitter = 0.0")
        .replace("seed = 7 }", "seed = 7 }\nvelocity = [0.0, 0.0, -0.3]");
    let w = scene_world(&text);
    let mut cpu = CpuBackend::new(w.clone()).expect("cpu");
    let mut gpu = grains_gpu::GpuBackend::new(w, &ctx).expect("gpu");
    let mut walls = 0;
    for _ in 0..10 {
        cpu.run(100);
        walls = walls.max(cpu.contacts().walls);
    }
    gpu.run(1000);
    let (a, g) = (cpu.snapshot(), gpu.snapshot());
    let mut worst = 0.0f32;
    for i in 0..a.pos.len() {
        for k in 0..3 {
            worst = worst.max((a.pos[i][k] - g.pos[i][k]).abs());
        }
    }
    let spin = a
        .omega
        .iter()
        .map(|w| Vec3::new(w[0], w[1], w[2]).length())
        .fold(0.0, f32::max);
    eprintln!(
        "clump pour after 1000 steps: positions within {worst:e} m; up to {walls} wall contacts, spin up to {spin} rad/s"
    );
    assert!(walls > 0 && spin > 1.0, "no impact");
    // f32 on both sides through impacts: 1e-5 m is a two-hundredth of a member's radius
    // (measured: under 1e-6 m on lavapipe, 1.2e-6 m on an H100 under Vulkan, whose divisions
    // and square roots round to a few ulp and whose compiler fuses multiply-adds).
    assert!(worst < 1e-5, "positions differ by {worst:e} m");
}

#[test]
fn clump_keys_refuse_bad_input_with_its_place() {
    let scene = |p: &str| {
        format!(
            "{HEAD}\n[simulation]\nsteps = 1\ndt = 1e-5\n\n[domain]\nmin = [-0.02, -0.02, 0.0]\nmax = [0.02, 0.02, 0.04]\n\n[[particles]]\nmaterial = \"rock\"\npositions = [[0.0, 0.0, 0.01]]\n{p}\n"
        )
    };
    for (p, want) in [
        ("shape = \"clump\"", "missing required key `members`"),
        ("radius = 0.001\nmembers = [{ offset = [0.0, 0.0, 0.0], radius = 0.001 }]", "`members` is a clump's"),
        ("shape = \"clump\"\nmembers = []", "at least one"),
        ("shape = \"clump\"\nradius = 0.001\nmembers = [{ offset = [0.0, 0.0, 0.0], radius = 0.001 }]", "a clump's spheres give its size"),
        ("shape = \"clump\"\nmembers = [{ offset = [0.0, 0.0], radius = 0.001 }]", "members[0].offset"),
        ("shape = \"clump\"\nmembers = [{ offset = [0.0, 0.0, 0.0], radius = -0.001 }]", "members[0].radius"),
        ("shape = \"clump\"\nmembers = [{ offset = [0.0, 0.0, 0.0], size = 0.001 }]", "size"),
    ] {
        let e = match grains_scene::parse_scene(&scene(p), Path::new("<test>")) {
            Ok(_) => panic!("accepted: {p}"),
            Err(e) => e.to_string(),
        };
        eprintln!("{e}");
        assert!(e.contains(want), "expected `{want}` in {e}");
    }
}

/// A clump thrown out of an open domain with `lost_particles = "delete"` leaves whole: its body
/// and every member are removed at once, counted as one particle, with the body's energy in the
/// ledger's `removed` column (the ledger closes to 1e-6 of it).
#[test]
fn a_lost_clump_is_deleted_whole() {
    let dir = std::env::temp_dir().join(format!("grains-clump-lost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let scene = dir.join("lost.toml");
    std::fs::write(
        &scene,
        format!(
            r#"{HEAD}
[simulation]
steps = 4000
dt = 1e-5
gravity = [0.0, 0.0, 0.0]
lost_particles = "delete"

[domain]
min = [-0.02, -0.02, -0.02]
max = [0.02, 0.02, 0.02]

[[particles]]
material = "rock"
shape = "clump"
{TRIMER}
positions = [[0.0, 0.0, 0.0], [0.0, 0.01, 0.0]]
velocities = [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
angular_velocities = [[0.0, 0.0, 30.0], [0.0, 0.0, 0.0]]

[output]
every = 0.01
formats = ["csv"]
"#
        ),
    )
    .expect("write");
    let out = dir.join("out");
    run_scene_file(&scene, "cpu", &out);
    let rows = grains_tests::csv_rows(&out.join("energy.csv"));
    let last = rows.last().expect("energy rows");
    let first = &rows[0];
    // step,time,kinetic,rotational,gravitational,elastic,damping,friction,total,removed,...
    let (removed, total0, total) = (last[9], first[8], last[8]);
    let parts = grains_tests::csv_rows(&out.join("particles.csv"));
    let end = parts.iter().map(|r| r[0] as u64).max().unwrap_or(0);
    let gone: Vec<u64> = parts
        .iter()
        .filter(|r| r[0] as u64 == end && r[18] < -5e29)
        .map(|r| r[2] as u64)
        .collect();
    eprintln!("lost clump: removed energy {removed:e} J of {total0:e} J, ledger {total:e} J; gone at the end: {gone:?}");
    // The first clump (particles 0..=3) is gone (radius -1e30), the second (4..=7) stays (its
    // body has radius -1e29, as every body).
    assert_eq!(gone, vec![0, 1, 2, 3]);
    assert!(removed > 0.9 * total0, "removed {removed} of {total0}");
    assert!(
        (total - total0).abs() < 1e-6 * total0,
        "ledger {total} vs {total0}"
    );
}

/// Capsules, clumps and a mesh floor in one world resume bitwise on the CPU from a saved state,
/// and the GPU resumed from the CPU's state follows closely (f32 on both sides, 1e-7 m after 400
/// steps of impacts).
#[test]
fn shapes_resume_bitwise_on_the_cpu_and_closely_on_the_gpu() {
    let dir = std::env::temp_dir().join(format!("grains-shapes-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mesh = grains_core::shells::Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [4, 4]);
    let mut obj = String::new();
    for v in &mesh.vertices {
        obj.push_str(&format!("v {} {} {}\n", v[0], v[1], v[2]));
    }
    for t in &mesh.triangles {
        obj.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(dir.join("floor.obj"), obj).expect("obj");
    let text = format!(
        r#"{HEAD}
[[material]]
name = "rod"
density = 1000.0
young = 1.0e7
poisson = 0.3

[[interaction]]
between = ["rod", "rod"]
normal = {{ law = "hertz" }}

[[interaction]]
between = ["rod", "rock"]
normal = {{ law = "hertz" }}
tangential = {{ law = "cundall_strack", friction = 0.3 }}

[[interaction]]
between = ["rod", "steel"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}

[simulation]
steps = 1
dt = 5e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, -0.005]
max = [0.02, 0.02, 0.04]

[[wall]]
material = "steel"
mesh = {{ file = "floor.obj" }}

[[particles]]
material = "rock"
shape = "clump"
{TRIMER}
lattice = {{ spacing = 0.009, count = [2, 2, 1], origin = [-0.0045, -0.0045, 0.0045], seed = 1 }}
orientation = "random"
velocity = [0.0, 0.0, -1.0]

[[particles]]
material = "rod"
shape = "capsule"
radius = 0.0015
length = 0.004
lattice = {{ spacing = 0.009, count = [2, 2, 1], origin = [-0.0045, -0.0045, 0.011], seed = 2 }}
orientation = "random"
velocity = [0.0, 0.0, -1.0]
"#
    );
    let w = grains_scene::parse_scene(&text, &dir.join("shapes.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
        .world;
    let mut whole = CpuBackend::new(w.clone()).expect("cpu");
    let mut touching = 0;
    for _ in 0..8 {
        whole.run(100);
        touching = touching.max(whole.contacts().pairs);
    }
    let mut first = CpuBackend::new(w.clone()).expect("cpu");
    first.run(400);
    let state = first.state();
    let mut resumed = CpuBackend::from_state(w.clone(), state.clone()).expect("resume");
    resumed.run(400);
    let (a, b) = (
        whole.snapshot().into_owned(),
        resumed.snapshot().into_owned(),
    );
    assert_eq!(a.pos, b.pos, "positions after resuming");
    assert_eq!(a.quat, b.quat, "orientations after resuming");
    assert_eq!(whole.energy().total, resumed.energy().total);
    assert!(touching > 0, "nothing touched");
    if let Some(ctx) = gpu_context() {
        let mut g =
            grains_gpu::GpuBackend::from_state(w, &ctx, &state).unwrap_or_else(|e| panic!("{e}"));
        g.run(400);
        let gp = g.snapshot().pos;
        let d = (0..a.pos.len())
            .flat_map(|i| (0..3).map(move |k| (i, k)))
            .map(|(i, k)| (a.pos[i][k] - gp[i][k]).abs())
            .fold(0.0f32, f32::max);
        eprintln!(
            "shapes resumed: up to {touching} contacts; GPU from the CPU's state within {d:e} m"
        );
        // Rounding alone: under 1e-7 m on lavapipe, 4.9e-7 m on an H100 (Vulkan); 5e-6 m is
        // a three-hundredth of the shapes' 1.5 mm radius.
        assert!(d < 5e-6, "GPU resumed from a CPU state differs by {d} m");
    }
}
