//! Particle insertion: placement without overlap, inside the region and clear of walls; size
//! distributions; the count following the rate; the ledger's `inserted` column on both
//! backends; a resumed run inserting as the uninterrupted one did; and the block's errors.

use std::path::{Path, PathBuf};

use grains_core::insert::{place, Region};
use grains_tests::worlds::SplitMix;
use grains_tests::{csv_rows, scene_backends};

const SCENE: &str = r#"
[simulation]
duration = 0.05
dt = 2e-5
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.02, -0.02, 0.0]
max = [0.02, 0.02, 0.06]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.002
positions = [[0.0, 0.0, 0.002]]
[[insert]]
material = "glass"
box = { min = [-0.012, -0.012, 0.03], max = [0.012, 0.012, 0.05] }
count = 120
rate = 4000.0
start = 0.01
RADII
velocity = [0.0, 0.0, -0.3]
seed = 3
every = 0.002
[[wall]]
material = "glass"
box = { min = [-0.02, -0.02, 0.0], max = [0.02, 0.02, 0.06] }
[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
tangential = { law = "cundall_strack", friction = 0.5 }
[output]
every_steps = 100
formats = ["csv"]
"#;

fn scene(radii: &str) -> String {
    SCENE.replace("RADII", radii)
}

fn world(text: &str) -> grains_core::World {
    grains_scene::parse_scene(text, Path::new("<test>"))
        .unwrap_or_else(|e| panic!("{e}"))
        .world
}

#[test]
fn placement_avoids_particles_and_walls_and_stays_in_its_region() {
    let w = world(&scene("radius = 0.001"));
    let ins = &w.insertions[0];
    // Crowd the region with 150 resting particles of 1.5 mm at random.
    let mut rng = SplitMix(9);
    let mut pos = w.particles.pos.clone();
    for _ in 0..150 {
        pos.push([
            (rng.uniform() * 0.024 - 0.012) as f32,
            (rng.uniform() * 0.024 - 0.012) as f32,
            (rng.uniform() * 0.02 + 0.03) as f32,
            0.0015,
        ]);
    }
    let placed = place(&w, ins, &pos, 0, 120);
    assert_eq!(placed.particles.len() + placed.given_up as usize, 120);
    assert!(
        placed.particles.len() > 60,
        "only {} placed",
        placed.particles.len()
    );
    let mut all: Vec<([f32; 3], f32)> = pos
        .iter()
        .filter(|p| p[3] > 0.0)
        .map(|p| ([p[0], p[1], p[2]], p[3]))
        .collect();
    for &(id, x) in &placed.particles {
        let r = w.insertion_radius(id).expect("an insertion particle");
        for (k, &(y, ry)) in all.iter().enumerate() {
            let d: f32 = (0..3).map(|c| (x[c] - y[c]).powi(2)).sum::<f32>().sqrt();
            assert!(d >= r + ry, "particle {id} overlaps {k}: {d} < {}", r + ry);
        }
        let Region::Box { min, max } = ins.region else {
            panic!("box region")
        };
        for c in 0..3 {
            assert!(
                x[c] as f64 - r as f64 >= min[c] - 1e-9 && x[c] as f64 + r as f64 <= max[c] + 1e-9
            );
        }
        all.push((x, r));
    }
}

#[test]
fn size_distributions_have_their_moments() {
    let stats = |radii: &str| -> (f64, f64, Vec<f32>) {
        let text = scene(radii).replace("count = 120", "count = 20000");
        let w = world(&text);
        let r: Vec<f32> = w.insertions[0].radii.clone();
        let n = r.len() as f64;
        let mean = r.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = r.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        (mean, var.sqrt(), r)
    };
    // 20,000 samples: the mean within 3 standard errors (0.02 std), the spread within 3%.
    let (m, s, _) = stats(r#"radii = { distribution = "normal", mean = 0.001, std = 0.0001 }"#);
    assert!(
        (m - 1e-3).abs() < 3e-6 && (s / 1e-4 - 1.0).abs() < 0.03,
        "normal {m} {s}"
    );
    let (m, s, r) = stats(r#"radii = { distribution = "lognormal", mean = 0.001, std = 0.0002 }"#);
    assert!(
        (m - 1e-3).abs() < 6e-6 && (s / 2e-4 - 1.0).abs() < 0.03,
        "lognormal {m} {s}"
    );
    assert!(r.iter().all(|&x| x > 0.0));
    let (m, _, r) = stats(r#"radii = { distribution = "uniform", min = 0.0008, max = 0.0012 }"#);
    assert!((m - 1e-3).abs() < 3e-6 && r.iter().all(|&x| (0.0008..=0.0012).contains(&x)));
    // Equal mass fractions of 1 mm and 2 mm: by number, eight small for each large.
    let (_, _, r) = stats("radii = { table = [[0.001, 0.5], [0.002, 0.5]] }");
    let small = r.iter().filter(|&&x| x == 0.001).count() as f64 / r.len() as f64;
    assert!((small - 8.0 / 9.0).abs() < 0.01, "small share {small}");
}

fn run(text: &str, backend: &str, tag: &str, extra: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-insert-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let scene = dir.join("pour.toml");
    std::fs::write(&scene, text).expect("write");
    let out = dir.join("out");
    let mut args: Vec<String> = [
        "grains",
        "run",
        &scene.to_string_lossy(),
        "--backend",
        backend,
        "--out",
        &out.to_string_lossy(),
        "-q",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    grains_cli::main_with_args(args).unwrap_or_else(|e| panic!("{backend}: {e:#}"));
    out
}

/// Particles in the run at each frame of `particles.csv`: radius (last column) positive.
fn in_run(out: &Path) -> Vec<(f64, usize)> {
    let rows = csv_rows(&out.join("particles.csv"));
    let mut by: std::collections::BTreeMap<u64, usize> = Default::default();
    for r in &rows {
        let n = by.entry(r[0] as u64).or_default();
        if r[18] > 0.0 {
            *n += 1;
        }
    }
    by.into_iter().map(|(s, n)| (s as f64 * 2e-5, n)).collect()
}

#[test]
fn particles_arrive_at_the_rate_and_the_ledger_books_them_on_every_backend() {
    let text = scene("radius = 0.001");
    let mut ends = Vec::new();
    for backend in scene_backends() {
        let out = run(&text, backend, backend, &[]);
        // Batches every 2 ms (100 steps) insert the particles due by then: 1 + floor(4000
        // (t - 0.01)), none before 10 ms, all 120 by 40 ms.
        for (t, n) in in_run(&out) {
            let due = if t < 0.01 - 1e-12 {
                0.0
            } else {
                (((t - 0.01) * 4000.0 + 1e-9).floor() + 1.0).min(120.0)
            };
            assert_eq!(n, 1 + due as usize, "{backend}: t = {t}");
        }
        let e = csv_rows(&out.join("energy.csv"));
        let (first, last) = (&e[0], &e[e.len() - 1]);
        // Columns: total 8, inserted 12.
        assert!(last[12] > 0.0, "{backend}: no inserted energy");
        let drift = e
            .iter()
            .map(|r| (r[8] - first[8]).abs())
            .fold(0.0, f64::max);
        assert!(
            drift < 1e-3 * last[12],
            "{backend}: ledger drift {drift:e} of {:e}",
            last[12]
        );
        ends.push(last.clone());
    }
    if ends.len() == 2 {
        assert!(
            (ends[0][12] / ends[1][12] - 1.0).abs() < 1e-6,
            "inserted {} vs {}",
            ends[0][12],
            ends[1][12]
        );
    }
}

#[test]
fn a_resumed_run_inserts_as_the_uninterrupted_one() {
    let text = scene("radius = 0.001") + "checkpoint_every_steps = 100\n";
    let whole = run(&text, "cpu", "whole", &[]);
    let half = run(&text, "cpu", "half", &["--steps", "1300"]);
    let dir = half.parent().expect("dir");
    let scene = dir.join("pour.toml");
    let args = [
        "grains",
        "run",
        &scene.to_string_lossy(),
        "--backend",
        "cpu",
        "--out",
        &half.to_string_lossy(),
        "-q",
        "--resume",
    ]
    .map(String::from);
    grains_cli::main_with_args(args.to_vec()).unwrap_or_else(|e| panic!("{e:#}"));
    let a = std::fs::read_to_string(whole.join("particles.csv")).expect("whole");
    let b = std::fs::read_to_string(half.join("particles.csv")).expect("resumed");
    assert!(
        a == b,
        "the resumed run's particles differ from the uninterrupted run's"
    );
}

#[test]
fn insert_blocks_refuse_bad_input_with_its_place() {
    let bad = |radii: &str, extra: &str| -> String {
        let text = scene(radii).replace("seed = 3", &format!("seed = 3\n{extra}"));
        match grains_scene::parse_scene(&text, Path::new("p.toml")) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(bad("radius = 0.001", ""), "");
    let e = bad("radius = 0.001", "mass_rate = 0.1");
    assert!(e.contains("insert[0].mass_rate: give either `rate`"), "{e}");
    let e = bad(
        r#"radii = { distribution = "gamma", mean = 0.001, std = 0.0001 }"#,
        "",
    );
    assert!(e.contains("insert[0].radii.distribution: expected \"normal\", \"lognormal\" or \"uniform\", found \"gamma\""), "{e}");
    let e = bad(r#"radii = { distribution = "uniform", min = 0.001 }"#, "");
    assert!(e.contains("needs `min` and `max`"), "{e}");
    let e = bad("radius = 0.001\nradii = { table = [[0.001, 1.0]] }", "");
    assert!(e.contains("give either `radius` or `radii`"), "{e}");
    let e = bad("radii = { table = [[0.001]] }", "");
    assert!(
        e.contains(
            "insert[0].radii.table[0]: expected [radius (m), mass fraction], found 1 element(s)"
        ),
        "{e}"
    );
    let e = bad("radius = 0.001", "cylinder = { center = [0.0, 0.0, 0.03], axis = [0.0, 0.0, 1.0], radius = 0.01, height = 0.01 }");
    assert!(e.contains("give either `box` or `cylinder`"), "{e}");
}

/// A block whose region has no room for any of its particles (here, behind a wall) stops the
/// run at its first batch, located at its region, naming the region and the particles' size:
/// it would otherwise run to its end having inserted nothing.
#[test]
fn an_insertion_that_places_nothing_stops_the_run() {
    let text = scene("radius = 0.001")
        .replace(
            "[[particles]]\nmaterial = \"glass\"\nradius = 0.002\npositions = [[0.0, 0.0, 0.002]]\n",
            "",
        )
        .replace(
            "[[interaction]]",
            "[[wall]]\nmaterial = \"glass\"\nplane = { point = [0.0, 0.0, 0.055], normal = [0.0, 0.0, 1.0] }\n[[interaction]]",
        );
    let dir = std::env::temp_dir().join(format!("grains-insert-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("pour.toml");
    std::fs::write(&path, &text).expect("write");
    let r = grains_cli::check_report(&path, None).expect("parses");
    assert!(r.refusal.is_none(), "check cannot know the walls' reach");
    let out = dir.join("out");
    let e = grains_cli::main_with_args([
        "grains",
        "run",
        &path.to_string_lossy(),
        "--backend",
        "cpu",
        "--out",
        &out.to_string_lossy(),
        "-q",
    ])
    .expect_err("stopped");
    let m = format!("{e:#}");
    assert!(
        m.starts_with(&format!(
            "{}:16:1: insert[0].box: insert[0] found no place for any of the 1 particle(s) due so \
             far (radius 1.000e-3 m to 1.000e-3 m) in the box from [-0.01200, -0.01200, 0.03000] \
             to [0.01200, 0.01200, 0.05000] m",
            path.display()
        )),
        "{m}"
    );
}
