//! The 2-D mode (`[domain] dimensions = 2`, `World::planar`): spheres constrained to the plane
//! z = 0, moving in x and y and turning about z, each with its sphere's mass and inertia.

use grains_core::kernels::laws::haff_werner::ViscousCoulombSpec;
use grains_core::{Backend, CpuBackend, LawSpec, Particles, World};
use grains_tests::worlds::*;

/// Spheres in the plane z = 0 of a box open in z, with velocities in the plane and spins about
/// z, under gravity along -y, against the floor y = 0, the sides x = 0 and x = 0.03 and, with
/// `tilted`, a floor leaning out of the plane (normal (0, 0.8, 0.6)), which pushes the spheres
/// on it out of the plane unless the world is planar.
fn bed(planar: bool, tilted: bool) -> World {
    let (r, spacing) = (0.001, 0.0025);
    let mut rng = grains_core::parity::SplitMix(0x2D);
    let mut p = Particles::default();
    for j in 0..6 {
        for i in 0..11 {
            let x = [
                0.0015 + i as f64 * spacing + rng.range(-2e-4, 2e-4),
                0.0015 + j as f64 * spacing + rng.range(-2e-4, 2e-4),
                0.0,
            ];
            let v = [rng.range(-0.3, 0.3), rng.range(-0.3, 0.3), 0.0];
            let w = [0.0, 0.0, rng.range(-50.0, 50.0)];
            p.push_sphere(x, r, v, w, 0, 2500.0, false);
        }
    }
    let mut walls = vec![
        wall([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        wall([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        wall([0.03, 0.0, 0.0], [-1.0, 0.0, 0.0]),
    ];
    if tilted {
        // Leaning out of the plane: its normal has a z component, so its push on a sphere
        // does too.
        walls.push(wall([0.0, 0.0012, 0.0], [0.0, 0.8, 0.6]));
    }
    let mat = material("glass", 1e7, 2500.0);
    let inter = self_interaction(
        hertz(),
        Some(0.5),
        Some((0.3, 0.3)),
        grains_core::kernels::laws::cundall_strack::TangentialStiffness::Mindlin,
    );
    let domain = grains_core::Domain {
        min: [0.0, 0.0, -0.01],
        max: [0.03, 0.03, 0.01],
        periodic: [false; 3],
    };
    let mut w = world(
        p,
        walls,
        mat,
        inter,
        domain,
        [0.0, -9.81, 0.0],
        5e-6,
        2.5e-4,
    );
    w.planar = planar;
    w
}

/// Every particle of a planar run stays exactly in z = 0, with no velocity out of the plane
/// and no spin but about z.
fn assert_planar(label: &str, pos: &[[f32; 4]], vel: &[[f32; 4]], omega: &[[f32; 4]]) {
    for i in 0..pos.len() {
        assert_eq!(pos[i][2], 0.0, "{label}: particle {i} at {:?}", pos[i]);
        assert_eq!(vel[i][2], 0.0, "{label}: particle {i} moving {:?}", vel[i]);
        assert!(
            omega[i][0] == 0.0 && omega[i][1] == 0.0,
            "{label}: particle {i} spinning {:?}",
            omega[i]
        );
    }
}

/// Where nothing pushes out of the plane, a planar run is the 3-D run of the same scene bit for
/// bit: the 2-D mode only drops what would leave the plane, and keeps each sphere's mass and
/// inertia.
#[test]
fn a_planar_run_is_the_three_d_run_where_nothing_leaves_the_plane() {
    let mut flat = CpuBackend::new(bed(true, false)).unwrap_or_else(|e| panic!("{e}"));
    let mut deep = CpuBackend::new(bed(false, false)).unwrap_or_else(|e| panic!("{e}"));
    flat.run(3000);
    deep.run(3000);
    assert!(flat.contacts().pairs > 0, "the bed touches");
    assert_planar("2-D", &flat.pos, &flat.vel, &flat.omega);
    assert_eq!(flat.pos, deep.pos);
    assert_eq!(flat.vel, deep.vel);
    assert_eq!(flat.omega, deep.omega);
}

/// A wall leaning out of the plane pushes spheres out of it in 3-D; in 2-D they stay in z = 0
/// on both backends, which agree (positions within 1e-4 of a radius after 2000 steps: f32
/// differences of an ulp grow through the contacts of a bed of 66 spheres).
#[test]
fn a_wall_leaning_out_of_the_plane_cannot_push_a_planar_sphere_off_it() {
    let mut deep = CpuBackend::new(bed(false, true)).unwrap_or_else(|e| panic!("{e}"));
    deep.run(2000);
    let off = deep.pos.iter().filter(|p| p[2] != 0.0).count();
    assert!(
        off > 0,
        "in 3-D the leaning wall pushes spheres out of the plane"
    );
    let mut flat = CpuBackend::new(bed(true, true)).unwrap_or_else(|e| panic!("{e}"));
    flat.run(2000);
    assert_planar("2-D on the CPU", &flat.pos, &flat.vel, &flat.omega);
    let Some(ctx) = grains_tests::gpu_context() else {
        return;
    };
    let mut g =
        grains_gpu::GpuBackend::new(bed(true, true), &ctx).unwrap_or_else(|e| panic!("{e}"));
    g.run(2000);
    let s = g.snapshot();
    let (pos, vel, omega) = (s.pos.to_vec(), s.vel.to_vec(), s.omega.to_vec());
    assert_planar("2-D on the GPU", &pos, &vel, &omega);
    let worst = pos
        .iter()
        .zip(&flat.pos)
        .map(|(a, b)| (0..2).map(|k| (a[k] - b[k]).abs()).fold(0.0f32, f32::max))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-7, "CPU and GPU apart by {worst:e} m");
}

/// A planar sphere launched at `v0` along x on the floor y = 0 (gravity along -y) without spin
/// slides, spins up about z, and rolls from `t = 2 v0 / (7 mu g)` at `v = 5 v0 / 7`: the
/// closed form of a solid sphere (inertia `2/5 m r^2`), which a planar sphere keeps. 1 %, as
/// for the 3-D slide in `friction.rs` (the transition is resolved to the dashpot's time).
#[test]
fn a_planar_sphere_rolls_at_the_closed_form_time() {
    let (r, g, v0, mu, dt) = (0.01, 9.81, 0.5, 0.3, 2e-6);
    let mat = material("m", 1e8, 2500.0);
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let k = 4.0 / 3.0 * grains_core::material::effective_young(&mat, &mat) * r.sqrt();
    let delta = (m * g / k).powf(2.0 / 3.0);
    let mut p = Particles::default();
    p.push_sphere(
        [0.0, r - delta, 0.0],
        r,
        [v0, 0.0, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    let laws = vec![
        hertz(),
        viscous(0.3),
        LawSpec::HaffWerner(ViscousCoulombSpec {
            friction: mu,
            damping: 1e3,
            regularization_velocity: 0.0,
        }),
    ];
    let inter = grains_core::materials::Interaction::new(0, 0, laws);
    let walls = vec![wall([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])];
    let mut w = world(
        p,
        walls,
        mat,
        inter,
        open_domain(1.0),
        [0.0, -g, 0.0],
        dt,
        0.2 * r,
    );
    w.planar = true;
    let mut b = CpuBackend::new(w).unwrap_or_else(|e| panic!("{e}"));
    let t_roll = 2.0 * v0 / (7.0 * mu * g);
    let mut t_seen = None;
    for step in 1..=(2.0 * t_roll / dt) as u64 {
        b.step();
        // Rolling along +x turns the sphere about -z.
        let slip = b.vel[0][0] as f64 + b.omega[0][2] as f64 * r;
        if t_seen.is_none() && slip < 1e-3 * v0 {
            t_seen = Some(step as f64 * dt);
        }
    }
    let t = t_seen.expect("never started rolling");
    let v = b.vel[0][0] as f64;
    eprintln!(
        "rolls at {t:.6} s ({t_roll:.6}), v = {v:.6} ({:.6})",
        5.0 * v0 / 7.0
    );
    assert!((t - t_roll).abs() / t_roll < 0.01, "rolling at {t}");
    assert!(
        (v - 5.0 * v0 / 7.0).abs() / (5.0 * v0 / 7.0) < 0.01,
        "v = {v}"
    );
    assert_planar("the slide", &b.pos, &b.vel, &b.omega);
}

/// `[domain] dimensions = 2` builds a planar world, and the summary says so.
#[test]
fn a_two_d_scene_reads_as_planar() {
    let text = "[simulation]\nsteps = 10\ndt = 1e-6\ngravity = [0.0, -9.81, 0.0]\n\
                [domain]\nmin = [0.0, 0.0, -0.01]\nmax = [0.01, 0.01, 0.01]\ndimensions = 2\n\
                [[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 5.0e6\npoisson = 0.3\n\
                [[particles]]\nmaterial = \"glass\"\nradius = 0.001\n\
                positions = [[0.002, 0.002, 0.0], [0.005, 0.002, 0.0]]\n\
                velocities = [[0.1, 0.0, 0.0], [0.0, 0.0, 0.0]]\n\
                [[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = { law = \"hertz\" }\n";
    let scene = grains_scene::parse_scene(text, std::path::Path::new("flat.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(scene.world.planar);
    assert!(
        scene.summary().contains("2-D: particles in z = 0"),
        "{}",
        scene.summary()
    );
    assert_eq!(
        scene.world.grid().expect("grid").dims[2],
        1,
        "one layer of cells"
    );
}
