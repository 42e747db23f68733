//! Triangle meshes as walls: a sphere rolling over a triangulated floor feels the analytic
//! plane's force (the contact fraction), a bead at rest on a vertex, CPU/GPU parity, the STL
//! hopper's discharge, and the `mesh` wall's errors.

use std::path::{Path, PathBuf};

use grains_core::shells::Mesh;
use grains_core::{Backend, CpuBackend, World};
use grains_tests::{gpu_context, run_scene_file, scene_world, workspace_root};

/// A temporary directory for this test's files.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-mesh-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Write `mesh` as a Wavefront OBJ file.
fn write_obj(path: &Path, mesh: &Mesh) {
    let mut s = String::new();
    for v in &mesh.vertices {
        s.push_str(&format!("v {} {} {}\n", v[0], v[1], v[2]));
    }
    for t in &mesh.triangles {
        s.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(path, s).expect("write obj");
}

/// A glass bead of radius 2 mm on a steel floor at z = 0, given as `floor` (a `[[wall]]`
/// body), starting at `x0` with velocity `vx` and the spin of rolling.
fn floor_scene(floor: &str, x0: [f64; 2], vx: f64) -> String {
    let r = 0.002;
    format!(
        r#"
[simulation]
steps = 1
dt = 2e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, -0.01]
max = [0.02, 0.02, 0.02]

[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[material]]
name = "steel"
density = 7800.0
young = 5.0e6
poisson = 0.3

[[particles]]
material = "glass"
radius = {r}
positions = [[{x}, {y}, {z}]]
velocities = [[{vx}, 0.0, 0.0]]
angular_velocities = [[0.0, {w}, 0.0]]

[[wall]]
material = "steel"
{floor}

[[interaction]]
between = ["glass", "steel"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = 0.5 }}
"#,
        x = x0[0],
        y = x0[1],
        z = r - 2.0e-7,
        w = vx / r,
    )
}

/// The normal force on the bead every 10 steps over `steps`, and where it ends.
fn roll(w: World, steps: u64) -> (Vec<f32>, [f32; 4]) {
    let mut b = CpuBackend::new(w).expect("backend");
    let mut fz = Vec::new();
    for _ in 0..steps / 10 {
        b.run(10);
        fz.push(b.force[0][2]);
    }
    (fz, b.pos[0])
}

/// A bead rolling over a floor of triangles about 2 to 3 mm across (a bead of radius 2 mm
/// touches up to six at once, and crosses edges and vertices) feels the force of one surface:
/// its normal force stays within 1% of the weight of the analytic plane's at every sample, and
/// it rolls the same way. Without the contact fraction, each triangle would push with the whole
/// plane's force and the bead would jump at every edge.
#[test]
fn a_bead_rolls_over_a_triangulated_floor_as_over_a_plane() {
    let dir = temp_dir("floor");
    let obj = dir.join("floor.obj");
    write_obj(
        &obj,
        &Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [8, 8]),
    );
    let scene = dir.join("floor.toml");
    let (x0, vx, steps) = ([-0.006, 0.0013], 0.3, 20_000);
    let plane = scene_world(
        &floor_scene(
            "plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
            x0,
            vx,
        ),
        &scene,
    );
    let mesh = scene_world(
        &floor_scene("mesh = { file = \"floor.obj\" }", x0, vx),
        &scene,
    );
    let tris = mesh.triangles.len();
    let weight = 9.81 * mesh.particles.mass[0];
    let (fa, xa) = roll(plane, steps);
    let (fb, xb) = roll(mesh, steps);
    let worst = fa
        .iter()
        .zip(&fb)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    let travelled = xb[0] - x0[0] as f32;
    eprintln!(
        "rolling over {tris} triangles: {travelled:.4} m travelled; normal force within {:.2e} of the weight of the plane's; end x {} against {}, z {} against {}",
        worst / weight,
        xb[0],
        xa[0],
        xb[2],
        xa[2]
    );
    assert!(tris > 100, "only {tris} triangles");
    assert!(travelled > 0.008, "the bead rolled only {travelled} m");
    assert!(
        worst < 0.01 * weight,
        "normal force off by {worst} N (weight {weight} N)"
    );
    assert!(
        (xa[0] - xb[0]).abs() < 1e-5,
        "ends at {} against {}",
        xb[0],
        xa[0]
    );
    assert!(
        (xa[2] - xb[2]).abs() < 1e-7,
        "rests at {} against {}",
        xb[2],
        xa[2]
    );
}

/// A bead set down exactly on a vertex shared by six triangles rests with the plane's Hertz
/// overlap: each triangle carries its share (the fractions sum to one).
#[test]
fn a_bead_rests_on_a_vertex_with_the_planes_overlap() {
    let dir = temp_dir("vertex");
    let obj = dir.join("floor.obj");
    // A vertex of the sheet's lattice at (0, 0): rows every 5 mm, bases every 5 mm.
    write_obj(
        &obj,
        &Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [8, 8]),
    );
    let scene = dir.join("floor.toml");
    let mesh = scene_world(
        &floor_scene("mesh = { file = \"floor.obj\" }", [0.0, 0.0], 0.0),
        &scene,
    );
    let plane = scene_world(
        &floor_scene(
            "plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }",
            [0.0, 0.0],
            0.0,
        ),
        &scene,
    );
    let (_, xa) = roll(plane, 40_000);
    let mut b = CpuBackend::new(mesh).expect("backend");
    b.run(40_000);
    let touching = b.contacts().pairs;
    let (za, zb) = (xa[2] as f64, b.pos[0][2] as f64);
    let (da, db) = (0.002 - za, 0.002 - zb);
    eprintln!("bead on a vertex: overlap {db:.6e} m on {touching} triangles, plane {da:.6e} m");
    assert!(touching >= 3, "on {touching} triangles");
    assert!(
        (da - db).abs() < 0.01 * da,
        "overlap {db} against the plane's {da}"
    );
}

#[test]
fn a_mesh_floor_matches_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    let dir = temp_dir("parity");
    write_obj(
        &dir.join("floor.obj"),
        &Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [8, 8]),
    );
    let w = scene_world(
        &floor_scene("mesh = { file = \"floor.obj\" }", [-0.006, 0.0013], 0.3),
        &dir.join("floor.toml"),
    );
    let mut cpu = CpuBackend::new(w.clone()).expect("cpu");
    let mut gpu = grains_gpu::GpuBackend::new(w, &ctx).expect("gpu");
    cpu.run(3000);
    gpu.run(3000);
    let (a, g) = (cpu.snapshot(), gpu.snapshot());
    let d = (0..3)
        .map(|k| (a.pos[0][k] - g.pos[0][k]).abs())
        .fold(0.0f32, f32::max);
    let f = (0..3)
        .map(|k| (a.force[0][k] - g.force[0][k]).abs())
        .fold(0.0f32, f32::max);
    eprintln!("mesh floor, 3000 steps: position within {d:e} m, force within {f:e} N");
    // f32 on both sides; the fraction's arc areas round differently on the GPU (1e-4 of the
    // force at worst per contact).
    assert!(d < 1e-7, "positions differ by {d} m");
    assert!(f < 1e-4 * a.force[0][2].abs(), "forces differ by {f} N");
}

/// The hopper scene (an STL cone) discharging, shortened as the cone-wall hopper's test: the
/// count discharged rises steadily, near Beverloo's rate.
#[test]
fn the_stl_hopper_discharges_at_a_steady_rate_near_beverloos() {
    let root = workspace_root();
    let text = std::fs::read_to_string(root.join("scenes/hopper.toml")).expect("hopper");
    let stl = root.join("scenes/hopper_cone.stl");
    let text = text
        .replace(
            "\"hopper_cone.stl\"",
            &format!("{:?}", stl.to_string_lossy()),
        )
        .replace("duration = 1.2", "duration = 0.4")
        .replace("count = 1500", "count = 400")
        .replace("rate = 10000.0", "rate = 20000.0")
        .replace("start = 0.35, stop = 0.39", "start = 0.1, stop = 0.14")
        .replace("every = 0.01", "every = 0.005");
    assert!(text.contains("mesh = {"), "the hopper is not a mesh");
    let dir = temp_dir("hopper");
    let scene = dir.join("hopper.toml");
    std::fs::write(&scene, text).expect("write");
    let out = dir.join("out");
    run_scene_file(&scene, "cpu", &out);
    // Frames hold the beads, not the mesh's triangles.
    let rows = grains_tests::csv_rows(&out.join("particles.csv"));
    let first = rows.iter().filter(|r| r[0] == rows[0][0]).count();
    assert_eq!(first, 400, "a frame holds {first} particles");
    let rate = crate::walls::discharge_rate(&out.join("particles.csv"), 400);
    let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    let beverloo = 0.58 * 1500.0 * 9.81f64.sqrt() * (0.012 - 1.5 * 0.002f64).powf(2.5) / mass;
    eprintln!(
        "STL hopper: {:.0} beads/s ({:.0} then {:.0}); Beverloo (flat bottom) {beverloo:.0} beads/s",
        rate.0, rate.1, rate.2
    );
    assert!(
        (rate.1 / rate.2 - 1.0).abs() < 0.25,
        "rate {} then {}",
        rate.1,
        rate.2
    );
    assert!(
        (0.8..1.8).contains(&(rate.0 / beverloo)),
        "{} beads/s against {beverloo}",
        rate.0
    );
}

#[test]
fn mesh_walls_refuse_bad_input_with_its_place() {
    let dir = temp_dir("errors");
    write_obj(
        &dir.join("floor.obj"),
        &Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [2, 2]),
    );
    let scene = dir.join("floor.toml");
    let err =
        |floor: &str| match grains_scene::parse_scene(&floor_scene(floor, [0.0, 0.0], 0.0), &scene)
        {
            Ok(_) => panic!("accepted: {floor}"),
            Err(e) => e.to_string(),
        };
    for (floor, want) in [
        (
            "mesh = { file = \"floor.obj\" }\nmotion = { velocity = [0.1, 0.0, 0.0] }",
            "mesh walls do not move yet",
        ),
        ("mesh = { file = \"nothing.stl\" }", "nothing.stl"),
        ("mesh = { scale = 2.0 }", "missing required key `file`"),
        (
            "mesh = { file = \"floor.obj\", rotate = [1.0, 1.0, 0.0, 0.0] }",
            "unit quaternion",
        ),
        ("mesh = { file = \"floor.obj\", colour = 1 }", "colour"),
    ] {
        let e = err(floor);
        eprintln!("{e}");
        assert!(e.contains(want), "expected `{want}` in {e}");
    }
    // The mesh's material cannot also be a particle's.
    let text = floor_scene("mesh = { file = \"floor.obj\" }", [0.0, 0.0], 0.0)
        .replace("material = \"steel\"\nmesh", "material = \"glass\"\nmesh")
        + "\n[[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = { law = \"hertz\" }\n";
    let e = match grains_scene::parse_scene(&text, &scene) {
        Ok(_) => panic!("accepted a shared material"),
        Err(e) => e.to_string(),
    };
    eprintln!("{e}");
    assert!(e.contains("material \"glass\" is used by a sphere"), "{e}");
}

/// A capsule lying across a triangulated floor rests as on the analytic plane: `capsule_triangle`
/// takes each triangle's share of its deeper end, so its height and the floor's load match the
/// plane's (1% of the weight; the ends' switching makes both chatter alike).
#[test]
fn a_capsule_rests_on_a_triangulated_floor_as_on_a_plane() {
    let dir = temp_dir("capsule");
    write_obj(
        &dir.join("floor.obj"),
        &Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [8, 8]),
    );
    let scene = dir.join("floor.toml");
    let text = |floor: &str| {
        floor_scene(floor, [0.0013, -0.0021], 0.0)
            .replace(
                "radius = 0.002\npositions",
                "shape = \"capsule\"\nlength = 0.006\norientation = [0.7071067811865476, 0.7071067811865476, 0.0, 0.0]\nradius = 0.002\npositions",
            )
    };
    let plane = scene_world(
        &text("plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }"),
        &scene,
    );
    let mesh = scene_world(&text("mesh = { file = \"floor.obj\" }"), &scene);
    let weight = 9.81 * mesh.particles.mass[0];
    let (fa, xa) = roll(plane, 20_000);
    let (fb, xb) = roll(mesh, 20_000);
    let tail = fa.len() / 2;
    let mean = |f: &[f32]| f[tail..].iter().sum::<f32>() / (f.len() - tail) as f32;
    let (ma, mb) = (mean(&fa), mean(&fb));
    eprintln!(
        "capsule at rest: mean load {mb:.5e} N on the mesh, {ma:.5e} N on the plane, weight {weight:.5e} N; height {} against {}",
        xb[2], xa[2]
    );
    assert!((ma - mb).abs() < 0.01 * weight, "{mb} against {ma}");
    assert!(
        (xa[2] - xb[2]).abs() < 1e-6,
        "rests at {} against {}",
        xb[2],
        xa[2]
    );
}
