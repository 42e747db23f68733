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
/// count discharged rises steadily, near Beverloo's rate. The same hopper in two stages
/// (`scenes/silo_fill.toml`, then `scenes/silo_discharge.toml` starting from its run without
/// the gate) discharges at the single run's rate, within the spread of that run's two halves
/// (or 10%, whichever is more).
#[test]
fn the_stl_hopper_discharges_at_a_steady_rate_near_beverloos() {
    let root = workspace_root();
    let stl = root.join("scenes/hopper_cone.stl");
    let shortened = |name: &str| {
        std::fs::read_to_string(root.join("scenes").join(name))
            .expect("scene")
            .replace(
                "\"hopper_cone.stl\"",
                &format!("{:?}", stl.to_string_lossy()),
            )
            .replace("count = 1500", "count = 400")
            .replace("rate = 10000.0", "rate = 20000.0")
            .replace("every = 0.01", "every = 0.005")
    };
    let text = shortened("hopper.toml")
        .replace("duration = 1.2", "duration = 0.4")
        .replace("start = 0.35, stop = 0.39", "start = 0.1, stop = 0.14");
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
    // Two stages: filled behind the gate for 0.1 s, then drained without it.
    let fill = dir.join("silo_fill.toml");
    std::fs::write(&fill, shortened("silo_fill.toml").replace("0.35", "0.1")).expect("fill");
    let filled = dir.join("filled");
    run_scene_file(&fill, "cpu", &filled);
    let discharge = dir.join("silo_discharge.toml");
    let text = shortened("silo_discharge.toml")
        .replace("duration = 0.85", "duration = 0.3")
        .replace(
            "\"out/silo_fill\"",
            &format!("{:?}", filled.to_string_lossy()),
        );
    std::fs::write(&discharge, text).expect("discharge");
    let drained = dir.join("drained");
    run_scene_file(&discharge, "cpu", &drained);
    let staged = crate::walls::discharge_rate(&drained.join("particles.csv"), 400);
    let noise = ((rate.1 - rate.2).abs() / rate.0).max(0.1);
    eprintln!(
        "two stages: {:.0} beads/s ({:.0} then {:.0}), against {:.0} in one run (noise {:.1}%)",
        staged.0,
        staged.1,
        staged.2,
        rate.0,
        100.0 * noise
    );
    assert!(
        (staged.0 / rate.0 - 1.0).abs() < noise,
        "two stages drain at {} beads/s, one run at {}",
        staged.0,
        rate.0
    );
}

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

/// Write `facets` (three corners each) as a binary STL: 80-byte header, count, 50 bytes each.
fn write_binary_stl(path: &Path, facets: &[[[f32; 3]; 3]]) {
    let mut bytes = vec![0u8; 80];
    bytes.extend((facets.len() as u32).to_le_bytes());
    for f in facets {
        bytes.extend([0u8; 12]);
        for x in f.iter().flatten() {
            bytes.extend(x.to_le_bytes());
        }
        bytes.extend([0u8; 2]);
    }
    std::fs::write(path, bytes).expect("write stl");
}

/// `mesh`'s triangles as corner triples.
fn facets_of(mesh: &Mesh) -> Vec<[[f32; 3]; 3]> {
    mesh.triangles
        .iter()
        .map(|t| t.map(|i| mesh.vertices[i as usize].map(|x| x as f32)))
        .collect()
}

/// The error of the floor scene with `mesh = { file = "<file>" }`, or a panic if it parses.
fn floor_error(dir: &Path, file: &str) -> String {
    let text = floor_scene(&format!("mesh = {{ file = \"{file}\" }}"), [0.0, 0.0], 0.0);
    match grains_scene::parse_scene(&text, &dir.join("floor.toml")) {
        Ok(s) => panic!(
            "{file} accepted, as a floor of {} triangles",
            s.world.triangles.len()
        ),
        Err(e) => e.to_string(),
    }
}

/// A binary STL whose vertex is NaN, infinite or absurd (1e30) is refused, naming the file,
/// the facet and corner and the value: such a facet used to vanish without a word (its area
/// is NaN, or a needle beside its 1e30 span).
#[test]
fn a_binary_stl_with_a_nan_or_absurd_vertex_is_refused_with_its_facet() {
    let dir = temp_dir("stl-bad-vertex");
    let mut facets = facets_of(&Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [1, 1]));
    facets.push([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]]);
    for (name, bad, shown, what) in [
        ("nan.stl", f32::NAN, "y = NaN", "is not a finite number"),
        (
            "inf.stl",
            f32::INFINITY,
            "y = inf",
            "is not a finite number",
        ),
        ("huge.stl", 1e30, "y = 1e30", "is beyond 1e15 in size"),
    ] {
        let mut f = facets.clone();
        f[2][1][1] = bad;
        write_binary_stl(&dir.join(name), &f);
        let e = floor_error(&dir, name);
        eprintln!("{e}");
        for part in [
            &format!("wall[0].mesh.file: {}: ", dir.join(name).display()),
            "facet 3 of 3 (bytes 184..234), corner 2",
            shown,
            what,
            "expected a coordinate in [-1e15, 1e15]",
        ] {
            assert!(e.contains(part), "expected {part:?} in {e}");
        }
    }
}

/// ASCII STL and OBJ files refuse an absurd or non-finite vertex with the line and the facet
/// (the OBJ vertex): `1e30` used to be taken, and its triangles dropped.
#[test]
fn text_meshes_with_an_absurd_vertex_are_refused_with_line_and_facet() {
    let dir = temp_dir("text-bad-vertex");
    let stl = "solid floor\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 0.01 0 0\nvertex 0 0.01 0\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0.01 0 0\nvertex 0.01 1e30 0\nvertex 0 0.01 0\nendloop\nendfacet\nendsolid floor\n";
    std::fs::write(dir.join("floor.stl"), stl).expect("write");
    let e = floor_error(&dir, "floor.stl");
    eprintln!("{e}");
    let file = dir.join("floor.stl").display().to_string();
    for part in [
        format!("{file}:12: facet 2, corner 2: y = 1e30 is beyond 1e15 in size"),
        "expected a coordinate in [-1e15, 1e15]".to_string(),
    ] {
        assert!(e.contains(&part), "expected {part:?} in {e}");
    }
    let obj = "v 0 0 0\nv 0.01 0 0\nv 0 0.01 -1e30\nv 0 0 inf\nf 1 2 3\n";
    std::fs::write(dir.join("floor.obj"), obj).expect("write");
    let e = floor_error(&dir, "floor.obj");
    eprintln!("{e}");
    let file = dir.join("floor.obj").display().to_string();
    assert!(
        e.contains(&format!(
            "{file}:3: vertex 3: z = -1e30 is beyond 1e15 in size"
        )),
        "{e}"
    );
}

/// Degenerate triangles (corners on one line, or two at one point) are left out of a mesh
/// wall with a warning naming the file and the count, and `grains check`'s summary lists it;
/// long thin (needle) triangles are valid triangles: kept, all of their area, and reported.
/// A mesh of which more than 10% is degenerate is refused.
#[test]
fn degenerate_triangles_are_counted_and_needles_kept() {
    let dir = temp_dir("degenerate");
    let sheet = Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [8, 8]);
    let mut facets = facets_of(&sheet);
    let n_sheet = facets.len();
    // Two degenerate facets below the floor: three corners on one line, and two corners at
    // one point.
    facets.push([
        [0.0, 0.01, -0.008],
        [0.01, 0.01, -0.008],
        [0.015, 0.01, -0.008],
    ]);
    facets.push([
        [0.0, 0.01, -0.008],
        [0.0, 0.01, -0.008],
        [0.015, 0.01, -0.008],
    ]);
    // Three needles below the floor, 40 mm long and 10 nm wide (2.5e-7 of their length).
    for k in 0..3 {
        let y = 0.01 + 1e-3 * k as f32;
        facets.push([
            [-0.02, y, -0.005],
            [0.02, y, -0.005],
            [0.02, y + 1e-8, -0.005],
        ]);
    }
    write_binary_stl(&dir.join("floor.stl"), &facets);
    let scene = dir.join("floor.toml");
    let text = floor_scene("mesh = { file = \"floor.stl\" }", [0.0, 0.0], 0.0);
    let s = grains_scene::parse_scene(&text, &scene).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("floor.stl").display().to_string();
    let total = n_sheet + 5;
    eprintln!("{}", s.warnings.join("\n"));
    assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
    for (w, want) in s.warnings.iter().zip([
        format!(
            "wall[0].mesh.file: {file}: 2 of its {total} triangles are degenerate (corners on one \
             line or coincident: no area to touch) and left out: facet {}, facet {}",
            n_sheet + 1,
            n_sheet + 2
        ),
        format!("wall[0].mesh.file: {file}: 3 of its {total} triangles are needles"),
    ]) {
        assert!(w.contains(&want), "expected {want:?} in {w}");
    }
    assert!(
        s.summary().contains(&format!("warning: {}", s.warnings[0])),
        "{}",
        s.summary()
    );
    // The needles are kept whole: the wall's triangles cover the sheet and the needles.
    let area = |t: &grains_core::kernel_types::Triangle| {
        let (a, b, c) = (t.a.map(f64::from), t.b.map(f64::from), t.c.map(f64::from));
        let (u, v) = (
            [0, 1, 2].map(|k| b[k] - a[k]),
            [0, 1, 2].map(|k| c[k] - a[k]),
        );
        0.5 * (u[0] * v[1] - u[1] * v[0]).abs()
    };
    let covered: f64 = s.world.triangles.iter().map(area).sum();
    let written = |f: &[[f32; 3]; 3]| {
        let [a, b, c] = f.map(|p| p.map(f64::from));
        let (u, v) = (
            [0, 1, 2].map(|k| b[k] - a[k]),
            [0, 1, 2].map(|k| c[k] - a[k]),
        );
        0.5 * (u[0] * v[1] - u[1] * v[0]).abs()
    };
    let expected: f64 = facets.iter().map(written).sum();
    assert!(
        (covered / expected - 1.0).abs() < 1e-6,
        "the wall covers {covered} m^2 against {expected}"
    );
    // A coarse sheet of 8 triangles with one degenerate facet: 1 of 9 is more than 10%.
    let mut coarse = facets_of(&Mesh::sheet([-0.02, -0.02, 0.0], [0.04, 0.04], [2, 2]));
    coarse.push([
        [0.0, 0.01, -0.008],
        [0.01, 0.01, -0.008],
        [0.015, 0.01, -0.008],
    ]);
    write_binary_stl(&dir.join("coarse.stl"), &coarse);
    let e = floor_error(&dir, "coarse.stl");
    eprintln!("{e}");
    assert!(
        e.contains("1 of its 9 triangles (11.1%) is degenerate") && e.contains("facet 9"),
        "{e}"
    );
    assert!(e.contains("at most 10% may be"), "{e}");
}
