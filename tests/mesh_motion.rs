//! Moving mesh walls: a paddle turning about its axis by its schedule, a table of poses, a bead
//! on a translating floor and on a conveyor (the closed form `2 V / 7`), the ledger closing
//! with the mesh's work, no contact missed against brute force, both backends, a bitwise
//! resume, the loads in `walls.csv`, and the located refusals.

use std::path::{Path, PathBuf};

use grains_core::kernels::resolvers::sphere_triangle::sphere_triangle_overlap;
use grains_core::{Backend, CpuBackend, World};
use grains_tests::{csv_rows, gpu_context, run_scene_file, scene_world};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-meshmove-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A vertical paddle in the plane y = 0: x in [-a, a], z in [z0, z0 + h], `n` by `m` cells of
/// two triangles, as OBJ.
fn write_paddle(path: &Path, a: f64, (z0, h): (f64, f64), (n, m): (usize, usize)) {
    let mut s = String::new();
    for j in 0..=m {
        for i in 0..=n {
            let x = -a + 2.0 * a * i as f64 / n as f64;
            let z = z0 + h * j as f64 / m as f64;
            s.push_str(&format!("v {x} 0 {z}\n"));
        }
    }
    let at = |i: usize, j: usize| j * (n + 1) + i + 1;
    for j in 0..m {
        for i in 0..n {
            s.push_str(&format!(
                "f {} {} {}\n",
                at(i, j),
                at(i + 1, j),
                at(i + 1, j + 1)
            ));
            s.push_str(&format!(
                "f {} {} {}\n",
                at(i, j),
                at(i + 1, j + 1),
                at(i, j + 1)
            ));
        }
    }
    std::fs::write(path, s).expect("write paddle");
}

/// A horizontal floor at z = 0 over [-b, b]^2, 8 by 8 cells, as OBJ.
fn write_floor(path: &Path, b: f64) {
    let mesh = grains_core::shells::Mesh::sheet([-b, -b, 0.0], [2.0 * b, 2.0 * b], [8, 8]);
    let mut s = String::new();
    for v in &mesh.vertices {
        s.push_str(&format!("v {} {} {}\n", v[0], v[1], v[2]));
    }
    for t in &mesh.triangles {
        s.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    std::fs::write(path, s).expect("write floor");
}

/// Glass beads of radius 1.5 mm in a 4 x 4 x 4 cm box, a steel paddle of `paddle` (its wall
/// keys) in them; `beads` a `[[particles]]` block's placement keys.
fn mixer_scene(paddle: &str, beads: &str) -> String {
    format!(
        r#"
[simulation]
steps = 1
dt = 2e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.04]

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
radius = 0.0015
{beads}

[[wall]]
material = "steel"
box = {{ min = [-0.02, -0.02, 0.0], max = [0.02, 0.02, 0.04] }}

[[wall]]
material = "steel"
{paddle}

[[interaction]]
between = ["glass", "glass"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = 0.5 }}

[[interaction]]
between = ["glass", "steel"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = 0.5 }}
"#
    )
}

const LATTICE: &str =
    "lattice = { spacing = 0.0034, count = [10, 10, 4], origin = [-0.0153, -0.0153, 0.0018], jitter = 0.02, seed = 3 }";

/// The paddle's world, turning at `w` rad/s about z from `start` to `stop`.
fn paddle_world(tag: &str, motion: &str) -> World {
    let dir = temp_dir(tag);
    write_paddle(&dir.join("paddle.obj"), 0.012, (0.001, 0.012), (6, 3));
    let paddle = format!("mesh = {{ file = \"paddle.obj\" }}\nmotion = {motion}");
    scene_world(&mixer_scene(&paddle, LATTICE), &dir.join("mixer.toml"))
}

/// The triangles' particles and their vertices in world coordinates.
fn mesh_points(b: &mut dyn Backend, w: &World) -> Vec<[f64; 3]> {
    let tris = b.triangles();
    let pos = b.snapshot().pos.to_vec();
    let first = pos.len() - w.triangles.len();
    let mut out = Vec::new();
    for (k, t) in tris.iter().enumerate() {
        let c = pos[first + k];
        for v in [t.a, t.b, t.c] {
            out.push([0, 1, 2].map(|i| (c[i] + v[i]) as f64));
        }
    }
    out
}

/// Turn `x` about the z axis through `c` by `th`.
fn turn_z(x: [f64; 3], c: [f64; 3], th: f64) -> [f64; 3] {
    let (s, co) = th.sin_cos();
    let (dx, dy) = (x[0] - c[0], x[1] - c[1]);
    [c[0] + co * dx - s * dy, c[1] + s * dx + co * dy, x[2]]
}

fn far(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
        .fold(0.0, f64::max)
}

/// The backends to check: the CPU's, and lavapipe's or the GPU's where there is one.
fn backends(w: &World) -> Vec<Box<dyn Backend>> {
    let mut out: Vec<Box<dyn Backend>> = vec![Box::new(CpuBackend::new(w.clone()).expect("cpu"))];
    if let Some(ctx) = gpu_context() {
        out.push(Box::new(
            grains_gpu::GpuBackend::new(w.clone(), &ctx).expect("gpu"),
        ));
    }
    out
}

/// A paddle turning at 20 rad/s about z from about 1 ms to 3 ms (between steps, so that the
/// f32 clock's rounding cannot move a boundary) is where its schedule puts it: at rest before,
/// turned by `w dt` for every step its clock's time lay in `[start, stop)`, held after, its
/// vertices within 2e-7 m (f32 rounding of coordinates of 1 cm, through the frame's turn), on
/// both backends; the backends agree on the beads it pushed within 1e-6 m.
#[test]
fn a_turning_paddle_moves_by_its_schedule_on_both_backends() {
    let (start, stop) = (0.0010010, 0.0030010);
    let w = paddle_world(
        "turn",
        &format!(
            "{{ angular_velocity = [0.0, 0.0, 20.0], center = [0.0, 0.0, 0.0], start = {start}, stop = {stop} }}"
        ),
    );
    let dt = w.dt;
    let mut snaps = Vec::new();
    for mut b in backends(&w) {
        let p0 = mesh_points(b.as_mut(), &w);
        let mut taken = 0u64;
        for steps in [400u64, 1000, 1000] {
            b.run(steps);
            taken += steps;
            let moved = (0..taken)
                .filter(|&k| (start..stop).contains(&(k as f64 * dt)))
                .count();
            let turned = 20.0 * dt * moved as f64;
            let now = mesh_points(b.as_mut(), &w);
            let want: Vec<[f64; 3]> = p0.iter().map(|&x| turn_z(x, [0.0; 3], turned)).collect();
            let d = far(&now, &want);
            eprintln!(
                "{}: t = {:.4} s, turned {turned:.5} rad, vertices within {d:e} m",
                b.name(),
                b.time()
            );
            assert!(d < 2e-7, "{}: vertices {d} m from the schedule", b.name());
        }
        snaps.push(b.snapshot().pos.to_vec());
    }
    if snaps.len() == 2 {
        let n = snaps[0].len() - w.triangles.len();
        let d = (0..n)
            .flat_map(|i| (0..3).map(move |k| (i, k)))
            .map(|(i, k)| (snaps[0][i][k] - snaps[1][i][k]).abs())
            .fold(0.0f32, f32::max);
        eprintln!("beads on cpu and gpu within {d:e} m after 2400 steps");
        assert!(d < 1e-6, "the backends' beads differ by {d} m");
    }
}

/// No contact is missed: at every 50th step of a paddle sweeping through the beads at 40 rad/s
/// (its tip at 0.5 m/s), every bead-triangle pair that overlaps by brute force (every pair,
/// `sphere_triangle_overlap` on the backend's positions and turned triangles) is a contact of
/// the backend's records.
#[test]
fn a_moving_mesh_misses_no_contact_against_brute_force() {
    let w = paddle_world("audit", "{ angular_velocity = [0.0, 0.0, 40.0] }");
    let mut b = CpuBackend::new(w.clone()).expect("cpu");
    let domain = w.domain.params();
    let ntri = w.triangles.len();
    let mut touched = 0;
    for _ in 0..30 {
        b.run(50);
        let tris = b.triangles();
        let pos = b.snapshot().pos.to_vec();
        let first = pos.len() - ntri;
        let mut found: Vec<(u32, u32)> = b
            .contact_records()
            .iter()
            .filter(|r| r.j >= first as i64 || r.i as usize >= first)
            .map(|r| (r.i.min(r.j as u32), r.i.max(r.j as u32)))
            .collect();
        found.sort();
        for (k, t) in tris.iter().enumerate() {
            for i in 0..first {
                if sphere_triangle_overlap(pos[i], pos[first + k], t, &domain) > 0.0 {
                    touched += 1;
                    let pair = (i as u32, (first + k) as u32);
                    assert!(
                        found.binary_search(&pair).is_ok(),
                        "bead {i} overlaps triangle {k} at t = {} s without a contact",
                        b.time()
                    );
                }
            }
        }
    }
    eprintln!("{touched} overlapping bead-triangle pairs, each a contact");
    assert!(touched > 50, "the paddle should touch beads ({touched})");
}

/// The ledger closes with the paddle's work: over 3000 steps of the paddle driving the beads,
/// the total drifts by less than 1% of the work the paddle did (booked as `wall_work`, not
/// `kinematic_work`), on both backends.
#[test]
fn the_ledger_closes_with_the_meshs_work() {
    let w = paddle_world("ledger", "{ angular_velocity = [0.0, 0.0, 20.0] }");
    for mut b in backends(&w) {
        let e0 = b.energy();
        b.run(3000);
        let e = b.energy();
        let drift = (e.total - e0.total).abs();
        eprintln!(
            "{}: wall work {:.4e} J, kinematic {:.1e} J, total drift {drift:.3e} J",
            b.name(),
            e.wall_work,
            e.kinematic_work
        );
        assert!(
            e.wall_work > 1e-7,
            "the paddle should work ({:e} J)",
            e.wall_work
        );
        assert_eq!(e.kinematic_work, 0.0, "the mesh's work is the walls'");
        assert!(drift < 0.01 * e.wall_work, "{}: drift {drift} J", b.name());
    }
}

/// A checkpoint taken while the paddle turns resumes bit for bit: 600 steps, the state, 600
/// more, against 1200 uninterrupted.
#[test]
fn a_moving_mesh_resumes_bit_for_bit() {
    let w = paddle_world(
        "resume",
        "{ angular_velocity = [0.0, 0.0, 20.0], start = 0.0005 }",
    );
    let mut a = CpuBackend::new(w.clone()).expect("cpu");
    a.run(600);
    let state = a.state();
    a.run(600);
    let mut b = CpuBackend::from_state(w.clone(), state.clone()).expect("resume");
    b.run(600);
    assert_eq!(a.snapshot().pos, b.snapshot().pos, "cpu: positions");
    assert_eq!(a.triangles(), b.triangles(), "cpu: triangles");
    // The GPU resumes the CPU's state and follows the same schedule (its triangles turned as
    // the state's bodies stand), within f32 rounding of the CPU's run.
    if let Some(ctx) = gpu_context() {
        let mut g = grains_gpu::GpuBackend::from_state(w, &ctx, &state).expect("gpu resume");
        g.run(600);
        let d = g
            .snapshot()
            .pos
            .iter()
            .zip(a.snapshot().pos.iter())
            .flat_map(|(p, q)| (0..3).map(move |k| (p[k] - q[k]).abs()))
            .fold(0.0f32, f32::max);
        eprintln!("gpu resumed: within {d:e} m of the cpu's run");
        assert!(d < 1e-6, "gpu resumed {d} m from the cpu's run");
    }
}

/// A bead at rest placed on a floor moving at V (a translating mesh), or on a resting floor
/// whose conveyor moves its surface at V, slides until it rolls, and then moves at `2 V / 7`
/// (its angular momentum about the contact point is conserved and zero), on both backends:
/// its mean velocity from 4 to 7 ms within 1% (the slip ends at `2 V / (7 mu g)` = 2.9 ms; the
/// tangential spring then rings about the rolling speed, which the mean takes out).
#[test]
fn a_bead_on_a_moving_floor_or_conveyor_ends_at_two_sevenths_of_its_speed() {
    let dir = temp_dir("floor");
    write_floor(&dir.join("floor.obj"), 0.02);
    let v = 0.05;
    for floor in [
        format!("mesh = {{ file = \"floor.obj\" }}\nmotion = {{ velocity = [{v}, 0.0, 0.0] }}"),
        format!("mesh = {{ file = \"floor.obj\" }}\nconveyor = [{v}, 0.0, 0.0]"),
    ] {
        let beads = "positions = [[0.0013, 0.0007, 0.0014998]]";
        // The box's floor and the domain's below the mesh's: the bead rests on the mesh alone.
        let text = mixer_scene(&floor, beads).replace("-0.02, -0.02, 0.0]", "-0.02, -0.02, -0.01]");
        let w = scene_world(&text, &dir.join("floor.toml"));
        for mut b in backends(&w) {
            // The mean over 3 ms once rolling: the tangential spring rings about it.
            b.run(2000);
            let x0 = b.snapshot().pos[0][0] as f64;
            b.run(1500);
            let vx = (b.snapshot().pos[0][0] as f64 - x0) / (1500.0 * w.dt);
            eprintln!(
                "{}: {floor:?}: bead at {vx:.5} m/s, 2V/7 = {:.5}",
                b.name(),
                2.0 * v / 7.0
            );
            assert!(
                (vx - 2.0 * v / 7.0).abs() < 0.01 * 2.0 * v / 7.0,
                "{}: {vx}",
                b.name()
            );
        }
    }
}

/// A table of poses moves the paddle by its rows: along x by 2 mm over 1 ms while turning by
/// 0.1 rad about z, then back over 1 ms; at 0.5 ms it is halfway through the first segment,
/// and after the table it rests at the last row's pose.
#[test]
fn a_table_of_poses_moves_a_mesh_by_its_rows() {
    let dir = temp_dir("table");
    write_paddle(&dir.join("paddle.obj"), 0.012, (0.001, 0.012), (6, 3));
    std::fs::write(
        dir.join("poses.csv"),
        "t,x,y,z,rx,ry,rz\n0,0,0,0,0,0,0\n0.001,0.002,0,0,0,0,0.1\n0.002,0.001,0,0,0,0,0.05\n",
    )
    .expect("table");
    let paddle = "mesh = { file = \"paddle.obj\" }\nmotion = { table = \"poses.csv\", center = [0.0, 0.0, 0.0] }";
    let w = scene_world(&mixer_scene(paddle, LATTICE), &dir.join("table.toml"));
    for mut b in backends(&w) {
        let p0 = mesh_points(b.as_mut(), &w);
        for (steps, shift, th) in [
            (250u64, 0.001, 0.05),
            (1000, 0.001, 0.05),
            (1000, 0.001, 0.05),
        ] {
            b.run(steps);
            let now = mesh_points(b.as_mut(), &w);
            let want: Vec<[f64; 3]> = p0
                .iter()
                .map(|&x| {
                    let r = turn_z(x, [0.0; 3], th);
                    [r[0] + shift, r[1], r[2]]
                })
                .collect();
            let d = far(&now, &want);
            eprintln!(
                "{}: t = {:.4} s, vertices within {d:e} m of the table",
                b.name(),
                b.time()
            );
            assert!(d < 3e-7, "{}: {d} m from the table's pose", b.name());
        }
    }
}

/// The mixer's run writes the paddle's load in `walls.csv`: the six box planes' rows, then the
/// mesh's (wall 6), whose torque about z opposes its turn once it drives the beads.
#[test]
fn a_meshs_load_is_in_walls_csv() {
    let dir = temp_dir("csv");
    write_paddle(&dir.join("paddle.obj"), 0.012, (0.001, 0.012), (6, 3));
    let paddle =
        "mesh = { file = \"paddle.obj\" }\nmotion = { angular_velocity = [0.0, 0.0, 20.0] }";
    let text = mixer_scene(paddle, LATTICE).replace("steps = 1", "steps = 2000")
        + "\n[output]\nevery_steps = 500\nformats = [\"csv\"]\n";
    let scene = dir.join("mixer.toml");
    std::fs::write(&scene, text).expect("scene");
    let out = dir.join("out");
    run_scene_file(&scene, "cpu", &out);
    let rows = csv_rows(&out.join("walls.csv"));
    let mesh: Vec<&Vec<f64>> = rows.iter().filter(|r| r[2] == 6.0).collect();
    assert!(!mesh.is_empty(), "walls.csv holds the mesh's rows");
    assert!(rows.iter().all(|r| r[2] <= 6.0));
    let tz = mesh.last().expect("a row")[8];
    eprintln!("paddle's torque about z at the end: {tz:e} N m");
    assert!(tz < 0.0, "the beads resist the paddle's turn: {tz}");
}

/// Bad motions of meshes are refused at their key: a table with unsorted times or a NaN (the
/// file's line named), a table on a plane, a table with a velocity, a conveyor on a plane.
#[test]
fn bad_mesh_motions_are_refused_at_their_key() {
    let dir = temp_dir("bad");
    write_paddle(&dir.join("paddle.obj"), 0.012, (0.001, 0.012), (2, 1));
    std::fs::write(
        dir.join("unsorted.csv"),
        "t,x,y,z\n0,0,0,0\n0.002,1,0,0\n0.001,2,0,0\n",
    )
    .unwrap();
    std::fs::write(dir.join("nan.csv"), "t,x,y,z\n0,0,0,0\n0.001,nan,0,0\n").unwrap();
    let scene = dir.join("bad.toml");
    for (wall, want) in [
        ("mesh = { file = \"paddle.obj\" }\nmotion = { table = \"unsorted.csv\" }", "unsorted.csv:4: time 0.001 s does not come after"),
        ("mesh = { file = \"paddle.obj\" }\nmotion = { table = \"nan.csv\" }", "nan.csv:3: x is nan"),
        ("mesh = { file = \"paddle.obj\" }\nmotion = { table = \"none.csv\" }", "none.csv: cannot read"),
        ("plane = { point = [0.0, 0.0, 0.001], normal = [0.0, 0.0, 1.0] }\nmotion = { table = \"nan.csv\" }", "a table of poses moves a mesh wall"),
        ("mesh = { file = \"paddle.obj\" }\nmotion = { table = \"nan.csv\", velocity = [1.0, 0.0, 0.0] }", "give `table` and `center` only"),
        ("plane = { point = [0.0, 0.0, 0.001], normal = [0.0, 0.0, 1.0] }\nconveyor = [1.0, 0.0, 0.0]", "a conveyor is a mesh wall's"),
    ] {
        let e = match grains_scene::parse_scene(&mixer_scene(wall, LATTICE), &scene) {
            Ok(_) => panic!("accepted: {wall}"),
            Err(e) => e.to_string(),
        };
        eprintln!("{e}");
        assert!(e.contains(want), "{wall}: {e}");
        assert!(e.contains("bad.toml:"), "located: {e}");
    }
}

/// `mesh_motion` and `wall_motion` on the GPU match their twins on seeded random motions: four
/// paddles' velocities, spins and centres drawn at random, 300 steps of the mixer on both
/// backends: the triangles' particles' positions within 1e-6 m and velocities within 1e-5 of
/// the fastest (f32 rotations of 1 cm arms, where the schedule test holds 2e-7 m), and their
/// vertices within 1e-6 m.
#[test]
fn mesh_motion_matches_its_twin_on_random_motions() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = grains_core::parity::SplitMix(41);
    for case in 0..4 {
        let (v, w, c) = (rng.vec3(0.05), rng.vec3(30.0), rng.vec3(0.005));
        let motion = format!(
            "{{ velocity = [{}, {}, {}], angular_velocity = [{}, {}, {}], center = [{}, {}, {}] }}",
            v[0], v[1], v[2], w[0], w[1], w[2], c[0], c[1], c[2]
        );
        let world = paddle_world(&format!("parity{case}"), &motion);
        let mut cpu = CpuBackend::new(world.clone()).expect("cpu");
        let mut gpu = grains_gpu::GpuBackend::new(world.clone(), &ctx).expect("gpu");
        cpu.run(300);
        gpu.run(300);
        let (a, b) = (cpu.snapshot(), gpu.snapshot());
        let first = a.pos.len() - world.triangles.len();
        let (mut dx, mut dv, mut vmax) = (0.0f32, 0.0f32, 0.0f32);
        for i in first..a.pos.len() {
            for k in 0..3 {
                dx = dx.max((a.pos[i][k] - b.pos[i][k]).abs());
                dv = dv.max((a.vel[i][k] - b.vel[i][k]).abs());
                vmax = vmax.max(a.vel[i][k].abs());
            }
        }
        let (ta, tb) = (cpu.triangles(), gpu.triangles());
        let dt = ta
            .iter()
            .zip(&tb)
            .flat_map(|(p, q)| {
                (0..3).map(move |k| (p.a[k] - q.a[k]).abs().max((p.c[k] - q.c[k]).abs()))
            })
            .fold(0.0f32, f32::max);
        eprintln!("case {case}: {motion}: positions {dx:e} m, velocities {dv:e} m/s of {vmax}, vertices {dt:e} m");
        assert!(
            dx < 1e-6 && dt < 1e-6,
            "case {case}: positions {dx}, vertices {dt}"
        );
        assert!(dv <= 1e-5 * vmax.max(1e-3), "case {case}: velocities {dv}");
    }
}
