//! Walls beyond planes and moving walls: the cylinder and disk resolvers against brute force,
//! a bead at rest in a drum, wall schedules, the ledger's `wall_work` with a moving piston and a
//! rotating drum, the wall load log, CPU/GPU parity of a turning drum, and the `[[wall]]`
//! block's errors.

use std::path::Path;

use glam::Vec3;
use grains_core::kernel_types::{SphereBody, Wall};
use grains_core::kernels::resolvers::{
    resolve_sphere_cone, resolve_sphere_cylinder, resolve_sphere_disk,
};
use grains_core::kernels::walls::{WALL_CONE, WALL_CYLINDER, WALL_DISK};
use grains_core::{Backend, CpuBackend, World};
use grains_tests::scenes::SceneText;
use grains_tests::worlds::SplitMix;
use grains_tests::{gpu_context, run_scene_file, test_world as scene_world, workspace_root};

fn unit(rng: &mut SplitMix) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.uniform() as f32 * 2.0 - 1.0,
            rng.uniform() as f32 * 2.0 - 1.0,
            rng.uniform() as f32 * 2.0 - 1.0,
        );
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            return v / l;
        }
    }
}

fn sphere(x: Vec3, r: f32) -> SphereBody {
    SphereBody {
        pos: x.to_array(),
        radius: r,
        inv_mass: 1.0,
        ..Default::default()
    }
}

#[test]
fn cylinder_and_disk_resolvers_match_brute_force() {
    let mut rng = SplitMix(0xD15C);
    for case in 0..500 {
        let axis = unit(&mut rng);
        let point = unit(&mut rng) * 0.01;
        let big = 0.005 + rng.uniform() as f32 * 0.02;
        let r = 0.001 + rng.uniform() as f32 * 0.002;
        let x = point + unit(&mut rng) * (rng.uniform() as f32 * 0.03);
        // Cylinder: the distance from the axis in f64.
        let mut w = Wall::plane(point.to_array(), axis.to_array(), 0);
        w.kind = WALL_CYLINDER;
        w.radius = big;
        w.hollow = (case % 2) as u32;
        let g = resolve_sphere_cylinder(&sphere(x, r), &w, 1e-6);
        let d = (x - point).as_dvec3();
        let a = axis.as_dvec3();
        let rho = (d - d.dot(a) * a).length();
        let want = if w.hollow == 1 {
            r as f64 + rho - big as f64
        } else {
            r as f64 + big as f64 - rho
        };
        // f32 positions of about 3 cm: a few 1e-9 m.
        assert!(
            (g.delta as f64 - want).abs() < 1e-8,
            "cylinder case {case}: {} vs {want}",
            g.delta
        );
        // The contact point is on the line from the centre along the normal, and the normal is
        // radial.
        let n = Vec3::from(g.normal).as_dvec3();
        assert!(
            n.dot(a).abs() < 1e-5,
            "cylinder case {case}: normal not radial"
        );
        // Disk: the nearest of 400 x 400 points of the face and 20,000 of the rim.
        w.kind = WALL_DISK;
        let g = resolve_sphere_disk(&sphere(x, r), &w, 1e-6);
        let (e1, e2) = a.any_orthonormal_pair();
        let mut best = f64::INFINITY;
        let p0 = point.as_dvec3();
        let xd = x.as_dvec3();
        for i in 0..400 {
            let s = (i as f64 + 0.5) / 400.0 * big as f64;
            for j in 0..400 {
                let phi = j as f64 / 400.0 * std::f64::consts::TAU;
                let q = p0 + s * (phi.cos() * e1 + phi.sin() * e2);
                best = best.min((q - xd).length());
            }
        }
        for j in 0..20_000 {
            let phi = j as f64 / 20_000.0 * std::f64::consts::TAU;
            let q = p0 + big as f64 * (phi.cos() * e1 + phi.sin() * e2);
            best = best.min((q - xd).length());
        }
        let got = r as f64 - g.delta as f64;
        // The sampling's spacing bounds how far the nearest sample can be from the nearest
        // point: half the largest gap between neighbours on the face, big * pi / 400.
        let slack = big as f64 * std::f64::consts::PI / 400.0;
        assert!(
            got <= best + 1e-8 && got >= best - slack,
            "disk case {case}: resolver distance {got}, brute force {best}"
        );
    }
}

#[test]
fn the_cone_resolver_matches_brute_force() {
    let mut rng = SplitMix(0xC0DE);
    for case in 0..300 {
        let axis = unit(&mut rng);
        let point = unit(&mut rng) * 0.01;
        let r0 = 0.003 + rng.uniform() as f32 * 0.01;
        let slope = 0.2 + rng.uniform() as f32 * 1.3;
        let r = 0.001 + rng.uniform() as f32 * 0.002;
        // Centres inside the cone, near its wall or its orifice.
        let (e1, e2) = axis.any_orthonormal_pair();
        let h = (rng.uniform() as f32 * 1.3 - 0.3) * 0.02;
        let phi = rng.uniform() as f32 * std::f32::consts::TAU;
        let rho = (r0 + slope * h.max(0.0)) * (rng.uniform() as f32 * 1.1);
        let x = point + axis * h + (e1 * phi.cos() + e2 * phi.sin()) * rho;
        let mut w = Wall::plane(point.to_array(), axis.to_array(), 0);
        w.kind = WALL_CONE;
        w.radius = r0;
        w.slope = slope;
        let g = resolve_sphere_cone(&sphere(x, r), &w, 1e-6);
        // The nearest of the surface's points: 2000 along the wall's line (up to 4 cm) by
        // 2000 around, in f64.
        let (a, p0, xd) = (axis.as_dvec3(), point.as_dvec3(), x.as_dvec3());
        let (f1, f2) = (e1.as_dvec3(), e2.as_dvec3());
        let (s, c) = {
            let c = 1.0 / (1.0 + (slope as f64).powi(2)).sqrt();
            (slope as f64 * c, c)
        };
        let mut best = f64::INFINITY;
        for i in 0..2000 {
            let t = i as f64 / 2000.0 * 0.04;
            let (rr, hh) = (r0 as f64 + t * s, t * c);
            for j in 0..2000 {
                let ph = j as f64 / 2000.0 * std::f64::consts::TAU;
                let q = p0 + a * hh + (f1 * ph.cos() + f2 * ph.sin()) * rr;
                best = best.min((q - xd).length());
            }
        }
        let got = r as f64 - g.delta as f64;
        // f32 centres a centimetre out: 5e-7 m. The grid's spacing bounds how far its nearest
        // point can be: half a step along the
        // line (2e-5 m) and around (pi r_max / 2000).
        let slack = 2e-5 + std::f64::consts::PI * (r0 as f64 + 0.04 * s) / 2000.0;
        assert!(
            got <= best + 5e-7 && got >= best - slack,
            "cone case {case}: resolver distance {got}, brute force {best}"
        );
    }
}

/// The glass every scene below is made of, and its first block.
fn glass() -> SceneText {
    SceneText::new().material("glass", 2500.0, 5.0e6, 0.3)
}

#[test]
fn a_bead_rests_in_a_drum_with_the_hertz_overlap_of_a_plane() {
    let w = scene_world(
        &glass()
            .simulation(&["duration = 0.5", "dt = \"auto\"", "gravity = [0.0, 0.0, -9.81]"])
            .domain([-0.06, -0.012, -0.06], [0.06, 0.012, 0.06])
            .particles("glass", 0.002, &["positions = [[0.0, 0.0, -0.0475]]"])
            .wall(
                "glass",
                "cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0], radius = 0.05, hollow = true }",
            )
            .hertz(
                "glass",
                "glass",
                &[
                    "damping = { law = \"viscous\", restitution = 0.3 }",
                    "tangential = { law = \"cundall_strack\", friction = 0.5 }",
                ],
            )
            .build(),
    );
    let mut b = CpuBackend::new(w).expect("backend");
    b.run(40_000);
    let s = b.snapshot();
    let x = s.pos[0];
    let rho = ((x[0] as f64).powi(2) + (x[2] as f64).powi(2)).sqrt();
    let delta = 0.002 + rho - 0.05;
    // At rest at the bottom: Hertz with the bead's curvature, like a plane.
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.002f64.powi(3);
    let e_star = 5.0e6 / (2.0 * (1.0 - 0.09));
    let want = (m * 9.81 / (4.0 / 3.0 * e_star * 0.002f64.sqrt())).powf(2.0 / 3.0);
    assert!(
        x[0].abs() < 1e-4,
        "the bead did not roll to the bottom: x = {}",
        x[0]
    );
    assert!(
        (delta / want - 1.0).abs() < 2e-2,
        "overlap {delta} m, Hertz {want} m"
    );
}

#[test]
fn a_wall_moves_by_its_schedule() {
    let w = scene_world(
        &glass()
            .simulation(&["duration = 0.01", "dt = 1e-5", "gravity = [0.0, 0.0, 0.0]"])
            .domain([-0.1; 3], [0.1; 3])
            .particles("glass", 0.002, &["positions = [[0.0, 0.0, 0.05]]"])
            .wall(
                "glass",
                "plane = { point = [0.0, 0.0, -0.05], normal = [0.0, 0.0, 1.0] }",
            )
            .lines(&["motion = { velocity = [0.0, 0.0, 1.0], angular_velocity = [0.0, 0.0, 100.0], center = [0.01, 0.0, -0.05], start = 0.002, stop = 0.006 }"])
            .hertz("glass", "glass", &[])
            .build(),
    );
    let mut b = CpuBackend::new(w).expect("backend");
    b.run(1000);
    let wall = b.walls[0];
    // 400 steps of 1e-5 s at 1 m/s, along z, to within the one step an f32 clock may put
    // either side of the start and the stop; the turn about z leaves a z-normal plane's normal
    // alone and carries its point around the centre by 0.4 rad (100 rad/s), as many steps.
    let moved = wall.point[2] as f64 + 0.05;
    let steps = (moved / 1e-5).round();
    assert!((moved - 0.004).abs() <= 1.2e-5, "moved {moved} m");
    assert!((wall.center[2] as f64 + 0.05 - moved).abs() < 1e-7);
    let angle = (wall.point[1] as f64).atan2(wall.point[0] as f64 - 0.01);
    let want = std::f64::consts::PI + steps * 1e-3 - std::f64::consts::TAU;
    assert!(
        (angle - want).abs() < 1e-4,
        "turned to {angle} rad, expected {want}"
    );
    assert_eq!(wall.steps, 1000);
    assert_eq!(wall.moving, 0, "stopped at t = 0.006 s");
}

/// Two beads on the floor of a box whose lid comes down 0.6 mm at 0.05 m/s and holds,
/// squeezing them, elastic and frictionless: the work the lid does is all in the ledger.
#[test]
fn a_moving_piston_closes_the_ledger() {
    let w = scene_world(
        &glass()
            .simulation(&[
                "duration = 0.04",
                "dt = 2e-6",
                "gravity = [0.0, 0.0, -9.81]",
            ])
            .domain([-0.01, -0.01, 0.0], [0.01, 0.01, 0.03])
            .particles(
                "glass",
                0.002,
                &["positions = [[-0.0021, 0.0, 0.002], [0.0021, 0.0, 0.002]]"],
            )
            .wall(
                "glass",
                "box = { min = [-0.006, -0.006, 0.0], max = [0.006, 0.006, 0.03] }",
            )
            .wall(
                "glass",
                "plane = { point = [0.0, 0.0, 0.0042], normal = [0.0, 0.0, -1.0] }",
            )
            .lines(&["motion = { velocity = [0.0, 0.0, -0.05], stop = 0.012 }"])
            .hertz("glass", "glass", &[])
            .build(),
    );
    let mut b = CpuBackend::new(w).expect("backend");
    let e0 = b.energy().total;
    let mut worst = 0.0f64;
    let mut work = 0.0f64;
    for _ in 0..200 {
        b.run(100);
        let e = b.energy();
        worst = worst.max((e.total - e0).abs());
        work = e.wall_work;
    }
    eprintln!("piston: wall work {work:e} J, ledger within {worst:e} J");
    assert!(work > 1e-5, "the lid did no work: {work:e} J");
    // Hertz contacts, undamped, dt 2e-6 s: the ledger moves by far less than the work put in.
    assert!(
        worst < 1e-3 * work,
        "ledger drift {worst:e} J against wall work {work:e} J"
    );
}

/// The drum scene shortened: settle 0.2 s, turn at 4 rad/s to 0.9 s.
fn short_drum() -> World {
    let text = std::fs::read_to_string(workspace_root().join("scenes/drum.toml")).expect("drum");
    let text = text
        .replace("duration = 2.5", "duration = 0.9")
        .replace("[0.0, 2.0, 0.0]", "[0.0, 4.0, 0.0]")
        .replace("start = 0.3", "start = 0.2");
    scene_world(&text)
}

/// The free surface's slope (degrees from horizontal) of a bed in the x-z plane: the highest
/// bead centre in 6 mm columns across the middle 5 cm (`grains post repose`'s analysis).
pub fn angle_of_repose(pos: &[[f32; 4]]) -> f64 {
    let pts: Vec<[f64; 3]> = pos.iter().map(|p| [0, 1, 2].map(|k| p[k] as f64)).collect();
    grains_core::post::angle_of_repose(&pts, (0, 2), 0.006, (-0.026, 0.022)).expect("a bed")
}

#[test]
fn a_turning_drum_tilts_its_bed_and_keeps_its_ledger() {
    let w = short_drum();
    let steps = (0.9 / w.dt).round() as u64;
    let weight: f64 = w.particles.mass.iter().map(|&m| m as f64 * 9.81).sum();
    let mut b = CpuBackend::new(w).expect("backend");
    let e0 = b.energy().total;
    let (mut worst, mut fz, mut samples) = (0.0f64, 0.0f64, 0);
    let chunk = steps / 90;
    for k in 0..90 {
        b.run(chunk);
        let e = b.energy();
        worst = worst.max((e.total - e0).abs());
        if k >= 45 {
            fz += b.wall_loads().iter().map(|l| l.force[2]).sum::<f64>();
            samples += 1;
        }
    }
    let e = b.energy();
    let angle = angle_of_repose(&b.snapshot().pos);
    let load = -fz / samples as f64;
    eprintln!(
        "drum: angle {angle:.1} deg, wall work {:e} J, ledger within {worst:e} J, mean load {load:.4} N against weight {weight:.4} N",
        e.wall_work
    );
    // Glass beads with mu = 0.5 in the rolling regime: a dynamic angle of repose between 20
    // and 45 degrees.
    assert!((20.0..45.0).contains(&angle), "angle {angle}");
    // The drive's work is the energy's main input; the ledger keeps it to 1e-3.
    assert!(e.wall_work > 0.0);
    assert!(
        worst < 1e-3 * (e.wall_work + e0.abs()),
        "ledger drift {worst:e}"
    );
    // On average the walls carry the bed's weight (avalanches make the instants differ).
    assert!(
        (load / weight - 1.0).abs() < 3e-2,
        "load {load} N, weight {weight} N"
    );
}

#[test]
fn a_turning_drum_matches_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    let mut w = short_drum();
    // Start turning at once so the 300 steps exercise the moving walls.
    for wall in &mut w.walls {
        wall.start = 0.0;
    }
    let mut c = CpuBackend::new(w.clone()).expect("cpu");
    let mut g = grains_gpu::GpuBackend::new(w, &ctx).unwrap_or_else(|e| panic!("{e}"));
    c.run(300);
    g.run(300);
    let (a, b) = (c.snapshot(), g.snapshot());
    let d = a
        .pos
        .iter()
        .zip(b.pos.iter())
        .flat_map(|(x, y)| (0..3).map(move |k| (x[k] - y[k]).abs()))
        .fold(0.0f32, f32::max);
    // 1e-6 of the 12 cm drum box.
    assert!(d < 1.2e-7, "positions differ by {d} m");
    let gs = g.state();
    for (x, y) in c.walls.iter().zip(&gs.walls) {
        let dp = (0..3)
            .map(|k| (x.point[k] - y.point[k]).abs())
            .fold(0.0f32, f32::max);
        assert!(
            dp < 1e-7 && x.steps == y.steps && x.moving == y.moving,
            "walls {x:?} vs {y:?}"
        );
    }
    let (ec, eg) = (c.energy(), g.energy());
    assert!(
        (ec.wall_work - eg.wall_work).abs() <= 1e-4 * ec.wall_work.abs(),
        "wall work {} vs {}",
        ec.wall_work,
        eg.wall_work
    );
}

fn wall_error(wall: &str) -> String {
    let text = glass()
        .simulation(&["steps = 10", "dt = 1e-5"])
        .domain([-0.06; 3], [0.06; 3])
        .particles("glass", 0.002, &["positions = [[0.0, 0.0, 0.0]]"])
        .wall("glass", wall)
        .hertz("glass", "glass", &[])
        .build();
    match grains_scene::parse_scene(&text, Path::new("w.toml")) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn wall_blocks_refuse_bad_input_with_its_place() {
    let drum = "cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0], radius = 0.05, hollow = true }";
    assert_eq!(wall_error(drum), "");
    let e = wall_error(&format!(
        "{drum}\ndisk = {{ center = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0], radius = 0.01 }}"
    ));
    assert!(
        e.contains("w.toml:") && e.contains("wall[0].disk: expected exactly one wall shape"),
        "{e}"
    );
    let e =
        wall_error("cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0], radius = 0.05 }");
    assert!(
        e.contains("particle 0 at (0, 0, 0) m lies inside solid cylinder 0"),
        "{e}"
    );
    let e = wall_error("cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 0.0], radius = 0.05, hollow = true }");
    assert!(
        e.contains("wall[0].cylinder.axis: expected a non-zero vector"),
        "{e}"
    );
    let e = wall_error(&format!(
        "{drum}\nmotion = {{ angular_velocity = [0.0, 1.0, 0.0], start = 2.0, stop = 1.0 }}"
    ));
    assert!(
        e.contains("wall[0].motion.stop: the motion stops at 1.000 s before it starts at 2.000 s"),
        "{e}"
    );
    let e = wall_error(&format!("{drum}\nmotion = {{ start = 1.0 }}"));
    assert!(e.contains("a motion needs `velocity"), "{e}");
    let e = wall_error(
        "disk = { center = [0.0, 0.0, -0.01], normal = [0.0, 0.0, 1.0], radius = -1.0 }",
    );
    assert!(e.contains("wall[0].disk.radius"), "{e}");
}

/// A small hopper: 300 beads poured into a 30° cone over a closed 12 mm orifice, the gate slid
/// away at 0.1 s; the count discharged rises at a steady rate near Beverloo's.
#[test]
fn a_hopper_discharges_at_a_steady_rate_near_beverloos() {
    let text =
        std::fs::read_to_string(workspace_root().join("scenes/hopper_cone.toml")).expect("hopper");
    let text = text
        .replace("duration = 1.2", "duration = 0.4")
        .replace("count = 1500", "count = 400")
        .replace("rate = 10000.0", "rate = 20000.0")
        .replace("start = 0.35, stop = 0.39", "start = 0.1, stop = 0.14")
        .replace("every = 0.01", "every = 0.005");
    let dir = std::env::temp_dir().join(format!("grains-hopper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let scene = dir.join("hopper.toml");
    std::fs::write(&scene, text).expect("write");
    let out = dir.join("out");
    run_scene_file(&scene, "cpu", &out);
    let (rate, first, second) = discharge_rate(&out.join("particles.csv"), 400);
    let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-9;
    let beverloo = 0.58 * 1500.0 * 9.81f64.sqrt() * (0.012 - 1.5 * 0.002f64).powf(2.5) / mass;
    eprintln!("hopper: {rate:.0} beads/s ({first:.0} then {second:.0}); Beverloo (flat bottom) {beverloo:.0} beads/s");
    // Steady: the two halves of the discharge within 25% of each other (frames every 5 ms).
    assert!(
        (first / second - 1.0).abs() < 0.25,
        "rate {first} then {second}"
    );
    // Within the spread of Beverloo's constants and the cone's factor: 0.8 to 1.8 times it.
    assert!(
        (0.8..1.8).contains(&(rate / beverloo)),
        "{rate} beads/s against {beverloo}"
    );
}

/// The discharge of a hopper run from its `particles.csv`: beads discharged are those inserted
/// (a positive radius seen) and now below the orifice (z < -2 mm) or deleted. Returns the rate
/// between 20% and 80% of `count` discharged, and the rates of the two halves (beads/s).
pub fn discharge_rate(csv: &Path, count: u32) -> (f64, f64, f64) {
    let frames = grains_cli::post::read_frames(csv).expect("particles.csv");
    let (counts, _) = grains_cli::post::discharged(&frames, 2, -0.002);
    grains_core::post::discharge_rate(&counts, count as u64)
        .unwrap_or_else(|| panic!("the hopper did not drain: {counts:?}"))
}

/// The drum in the output: `scenes/drum.toml` turning from the start, run on the CPU for three
/// output steps, writes a `walls_*.vtp` per step, listed as part 3 of `particles.pvd`, and the
/// drum's drawn points turn between two frames by its angular speed (2 rad/s about y) times
/// the time between them, to 1e-4 rad (f32 points 5 cm from the axis: a few 1e-7 rad).
#[test]
fn the_drums_walls_turn_with_it_in_the_output() {
    let text = std::fs::read_to_string(workspace_root().join("scenes/drum.toml")).expect("drum");
    let text = text
        .replace("start = 0.3", "start = 0.0")
        .replace("duration = 2.5", "duration = 0.1");
    let dir = std::env::temp_dir().join(format!("grains-drum-walls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let scene = dir.join("drum.toml");
    std::fs::write(&scene, text).expect("scene");
    let out = dir.join("out");
    run_scene_file(&scene, "cpu", &out);
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
    let walls: Vec<(f64, String)> = pvd
        .lines()
        .filter(|l| l.contains("part=\"3\""))
        .map(|l| {
            let attr = |k: &str| {
                let at = l.find(&format!("{k}=\"")).expect(k) + k.len() + 2;
                l[at..at + l[at..].find('"').expect("quote")].to_string()
            };
            (attr("timestep").parse().expect("time"), attr("file"))
        })
        .collect();
    assert_eq!(walls.len(), 3, "{pvd}");
    assert!(walls.iter().all(|(_, f)| f.starts_with("walls_")), "{pvd}");
    let read = |k: usize| crate::io::read_wall_vtp(&out.join(&walls[k].1)).expect("walls");
    let (a, b) = (read(1), read(2));
    // The drum (wall 0) and its two end disks (1, 2) turn about y through the origin.
    for wall in 0..3 {
        let (pa, pb) = (a.wall_points(wall), b.wall_points(wall));
        assert_eq!(pa.len(), pb.len());
        let want = 2.0 * (walls[2].0 - walls[1].0);
        for (x, y) in pa.iter().zip(&pb) {
            // Signed angle about +y from x's (x, z) to y's.
            let turned = (x[2] * y[0] - x[0] * y[2]).atan2(x[0] * y[0] + x[2] * y[2]);
            assert!(
                (turned - want).abs() < 1e-4,
                "wall {wall}: {x:?} -> {y:?} turned {turned} rad, not {want}"
            );
            assert!(
                (x[1] - y[1]).abs() < 1e-7,
                "wall {wall}: moved along the axis"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
