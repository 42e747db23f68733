//! `grains post` and `grains_core::post` against constructed cases with known answers: a cubic
//! lattice's coordination number 6 and packing fraction pi/6, a heap of known slope, a known
//! discharge, a two-size mixture's size distribution, an ideal gas's flat radial distribution
//! and a shear flow's linear velocity profile.

use std::f64::consts::PI;
use std::path::PathBuf;

use grains_core::post;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-post-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A simple cubic lattice of `n^3` spheres of radius `r` touching (spacing `2 r`), centres at
/// `r + 2 r k`: `(id, centre)`.
fn lattice(n: usize, r: f64) -> Vec<(usize, [f64; 3])> {
    (0..n * n * n)
        .map(|i| {
            let k = [i % n, (i / n) % n, i / (n * n)];
            (i, k.map(|k| r + 2.0 * r * k as f64))
        })
        .collect()
}

fn grains(args: &[&str]) {
    let mut v = vec!["grains".to_string()];
    v.extend(args.iter().map(|s| s.to_string()));
    grains_cli::main_with_args(v).unwrap_or_else(|e| panic!("{args:?}: {e:#}"));
}

fn read(path: PathBuf) -> Vec<Vec<String>> {
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// A cubic lattice's output folder, written by hand: `particles.csv` (one frame) and
/// `contacts.csv` listing each sphere's contacts with its six neighbours, the lattice closed
/// periodically (each pair once): `grains post coordination` gives 6 and `grains post packing`
/// pi/6 in every layer (one layer a bin).
#[test]
fn a_cubic_lattice_has_coordination_six_and_packing_pi_over_six() {
    let (n, r) = (6usize, 0.001);
    let dir = temp_dir("lattice");
    let mut p = format!("{}\n", grains_io::PARTICLES_HEADER);
    for (i, x) in lattice(n, r) {
        p.push_str(&format!(
            "100,0.1,{i},{},{},{},0,0,0,0,0,0,0,0,0,0,0,0,{r}\n",
            x[0], x[1], x[2]
        ));
    }
    std::fs::write(dir.join("particles.csv"), p).unwrap();
    let mut c = format!("{}\n", grains_io::CONTACTS_HEADER);
    for i in 0..n * n * n {
        let k = [i % n, (i / n) % n, i / (n * n)];
        for a in 0..3 {
            let mut q = k;
            q[a] = (q[a] + 1) % n;
            let j = q[0] + n * q[1] + n * n * q[2];
            c.push_str(&format!(
                "100,0.1,{i},{j},0,1,0,0,0,1,0,0,0,0,0,0,1,0,0,0,0,0,0\n"
            ));
        }
    }
    // A wall contact and a bond, which the coordination leaves out.
    c.push_str("100,0.1,0,-1,0,1,0,0,0,1,0,0,0,0,0,0,1,0,0,0,0,0,0\n");
    c.push_str("100,0.1,0,1,0,1,0,0,0,1,1,0,0,0,0,0,1,0,0,0,0,0,0\n");
    std::fs::write(dir.join("contacts.csv"), c).unwrap();
    let out = dir.to_string_lossy().into_owned();
    grains(&["post", "coordination", &out]);
    let rows = read(dir.join("post/coordination.csv"));
    assert_eq!(rows[0][2], "216");
    assert_eq!(rows[0][4].parse::<f64>().unwrap(), 6.0);
    let side = format!("{}", 2.0 * r * n as f64);
    let max = format!("{side},{side},{side}");
    grains(&[
        "post", "packing", &out, "--bins", "6", "--min", "0,0,0", "--max", &max,
    ]);
    for row in read(dir.join("post/packing.csv")) {
        let phi: f64 = row[1].parse().unwrap();
        assert!((phi - PI / 6.0).abs() < 1e-12, "layer at {}: {phi}", row[0]);
    }
    // Bins across the layers still average pi/6 over the box.
    let profile = post::packing_profile(
        &lattice(n, r)
            .iter()
            .map(|(_, x)| (*x, r))
            .collect::<Vec<_>>(),
        2,
        (0.0, 2.0 * r * n as f64),
        7,
        (2.0 * r * n as f64).powi(2),
    );
    let mean = profile.iter().map(|p| p.1).sum::<f64>() / 7.0;
    assert!((mean - PI / 6.0).abs() < 1e-12, "{mean}");
}

/// A heap whose surface rises at 30 degrees along x (beads below it too) has an angle of
/// repose of 30 degrees, along x and along y alike.
#[test]
fn a_heap_of_known_slope_has_its_angle_of_repose() {
    let slope = 30f64.to_radians().tan();
    // Points in the middle of each 4 mm column, as the highest bead of a column stands.
    let mut pts = Vec::new();
    for i in 0..20 {
        let x = -0.04 + 0.004 * (i as f64 + 0.5);
        for depth in 0..5 {
            pts.push([x, 0.0, slope * x - 0.002 * depth as f64]);
            pts.push([0.0, x, slope * x - 0.002 * depth as f64]);
        }
    }
    let along_x: Vec<[f64; 3]> = pts.iter().filter(|p| p[1] == 0.0).copied().collect();
    let a = post::angle_of_repose(&along_x, (0, 2), 0.004, (-0.04, 0.04)).unwrap();
    assert!((a - 30.0).abs() < 1e-9, "{a}");
    let along_y: Vec<[f64; 3]> = pts.iter().filter(|p| p[0] == 0.0).copied().collect();
    let a = post::angle_of_repose(&along_y, (1, 2), 0.004, (-0.04, 0.04)).unwrap();
    assert!((a - 30.0).abs() < 1e-9, "{a}");
}

/// A discharge of 100 particles, one deleted each millisecond (`particles.csv` frames every
/// 10 ms), runs at 1000 particles/s in both halves; with their density, a bulk density and the
/// orifice, the mass rate and Beverloo's coefficient follow.
#[test]
fn a_known_discharge_has_its_rate_and_beverloo_coefficient() {
    let dir = temp_dir("discharge");
    let mut p = format!("{}\n", grains_io::PARTICLES_HEADER);
    for k in 0..=10 {
        let (step, t) = (1000 * k, 0.01 * k as f64);
        for i in 0..100 {
            let r = if i < 10 * k { -0.001 } else { 0.001 };
            p.push_str(&format!(
                "{step},{t},{i},0,0,0.01,0,0,0,0,0,0,0,0,0,0,0,0,{r}\n"
            ));
        }
    }
    std::fs::write(dir.join("particles.csv"), p).unwrap();
    let out = dir.to_string_lossy().into_owned();
    grains(&[
        "post",
        "discharge",
        &out,
        "--density",
        "2500",
        "--bulk-density",
        "1500",
        "--orifice",
        "0.012",
    ]);
    let rows = read(dir.join("post/discharge.csv"));
    assert_eq!(rows[5][2], "50");
    let last = rows.last().unwrap();
    assert_eq!(last[0], "rate");
    let v = |k: usize| last[k].parse::<f64>().unwrap();
    for k in 3..6 {
        assert!((v(k) - 1000.0).abs() < 1e-6, "{last:?}");
    }
    let mass = 2500.0 * PI / 6.0 * 0.002f64.powi(3);
    assert!((v(6) - 1000.0 * mass).abs() < 1e-12);
    let c = 1000.0 * mass / (1500.0 * 9.81f64.sqrt() * (0.012 - 1.5 * 0.002f64).powf(2.5));
    assert!((v(7) - c).abs() < 1e-12 * c, "{} against {c}", v(7));
}

/// A mixture of as many spheres of 1 mm as of 2 mm radius: half of each by number, 1/9 and 8/9
/// by mass.
#[test]
fn a_two_size_mixture_has_its_size_distribution() {
    let radii: Vec<f64> = (0..100)
        .map(|i| if i % 2 == 0 { 0.001 } else { 0.002 })
        .collect();
    let bins = post::size_distribution(&radii, 4);
    let (first, last) = (bins[0], bins[3]);
    assert!((first.number - 0.5).abs() < 1e-12 && (last.number - 0.5).abs() < 1e-12);
    assert!((first.mass - 1.0 / 9.0).abs() < 1e-12 && (last.mass - 8.0 / 9.0).abs() < 1e-12);
    assert!((last.cumulative_number - 1.0).abs() < 1e-12);
    assert!((last.cumulative_mass - 1.0).abs() < 1e-12);
}

/// 20,000 points placed at random in a unit cube (an ideal gas) have `g(r)` within 10% of 1 up
/// to r = 0.05 (the region's edges, not corrected, take up to 7% there, and the first shell's
/// 840 pairs vary by 3.5%); a cubic lattice has
/// no pair nearer than its spacing and its first shell at it.
#[test]
fn an_ideal_gas_has_a_flat_radial_distribution() {
    let mut rng = grains_core::parity::SplitMix(7);
    let pts: Vec<[f64; 3]> = (0..20_000)
        .map(|_| [rng.uniform(), rng.uniform(), rng.uniform()])
        .collect();
    for (r, g) in post::radial_distribution(&pts, 0.05, 5, 1.0) {
        assert!((g - 1.0).abs() < 0.1, "g({r}) = {g}");
    }
    let grid: Vec<[f64; 3]> = lattice(6, 0.5).iter().map(|p| p.1).collect();
    let g = post::radial_distribution(&grid, 1.5, 15, 216.0);
    assert!(g[..9].iter().all(|p| p.1 == 0.0), "{g:?}");
    assert!(g[10].1 > 1.0, "{g:?}");
}

/// A shear flow `vx = 2 z` has a linear velocity profile: each slab's mean is twice its middle.
#[test]
fn a_shear_flow_has_a_linear_velocity_profile() {
    let pts: Vec<[f64; 3]> = (0..1000)
        .map(|i| [0.0, 0.0, 0.0005 + 0.001 * i as f64])
        .collect();
    let vel: Vec<[f64; 3]> = pts.iter().map(|p| [2.0 * p[2], 0.0, 0.0]).collect();
    for (z, n, v) in post::velocity_profile(&pts, &vel, 2, (0.0, 1.0), 10) {
        assert_eq!(n, 100);
        assert!((v[0] - 2.0 * z).abs() < 1e-12, "{z}: {v:?}");
    }
}

/// A cubic lattice whose every sphere carries the same stress `s`: over the lattice's box the
/// mean stress is `sum V_i s / V_box = (pi/6) s` (its solid fraction times `s`), and the pressure
/// `-tr/3` of that; a run without the stress format is told which format it needs.
#[test]
fn the_mean_stress_of_a_uniformly_stressed_lattice_is_its_solid_fraction_times_the_stress() {
    let (n, r) = (4usize, 0.001);
    let s = [-3000.0, -1500.0, -1200.0, 400.0, 0.0, -50.0];
    let dir = temp_dir("stress");
    let header = format!(
        "{}{}",
        grains_io::PARTICLES_HEADER,
        grains_io::PARTICLES_STRESS_COLUMNS
    );
    let mut p = format!("{header}\n");
    let cells: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    for (i, x) in lattice(n, r) {
        p.push_str(&format!(
            "10,0.01,{i},{},{},{},0,0,0,0,0,0,0,0,0,0,0,0,{r},{}\n",
            x[0],
            x[1],
            x[2],
            cells.join(",")
        ));
    }
    std::fs::write(dir.join("particles.csv"), p).unwrap();
    let d = dir.to_str().unwrap();
    grains(&["post", "stress", d]);
    let rows = read(dir.join("post/stress.csv"));
    let row: Vec<f64> = rows[0].iter().map(|c| c.parse().unwrap()).collect();
    assert_eq!(row[2], (n * n * n) as f64);
    // f64 sums of 64 equal terms against the closed form: rounding only.
    assert!(
        (row[3] - PI / 6.0).abs() < 1e-12,
        "solid fraction {}",
        row[3]
    );
    for k in 0..6 {
        let want = PI / 6.0 * s[k];
        assert!(
            (row[4 + k] - want).abs() <= 1e-9 * 3000.0,
            "{k}: {} against {want}",
            row[4 + k]
        );
    }
    let pressure = -PI / 6.0 * (s[0] + s[1] + s[2]) / 3.0;
    assert!((row[10] - pressure).abs() < 1e-9 * 3000.0);
    // Without the stress columns: the format the run needs is named.
    let plain = temp_dir("stress-plain");
    let lines: Vec<String> = std::fs::read_to_string(dir.join("particles.csv"))
        .unwrap()
        .lines()
        .map(|l| l.split(',').take(19).collect::<Vec<_>>().join(","))
        .collect();
    std::fs::write(plain.join("particles.csv"), lines.join("\n") + "\n").unwrap();
    let err = grains_cli::main_with_args(["grains", "post", "stress", plain.to_str().unwrap()])
        .expect_err("no stress columns");
    assert!(format!("{err:#}").contains("stress format"), "{err:#}");
}

/// `grains post psd --scene`: the sizes a pour's `[[insert]]` block requested beside those a
/// frame holds, on the same bins. A frame holding every requested bead matches it bin for bin;
/// one holding only the smaller half has all its number below the requested median.
#[test]
fn the_realised_size_distribution_is_set_beside_the_requested_one() {
    let scene_path = grains_tests::workspace_root().join("scenes/pour.toml");
    let scene = grains_scene::load_scene(&scene_path).expect("the pour scene");
    let mut radii: Vec<f64> = scene.world.insertions[0]
        .radii
        .iter()
        .map(|&r| r as f64)
        .collect();
    let write = |dir: &PathBuf, radii: &[f64]| {
        let mut p = format!("{}\n", grains_io::PARTICLES_HEADER);
        for (i, r) in radii.iter().enumerate() {
            p.push_str(&format!(
                "5,0.5,{i},0,0,{},0,0,0,0,0,0,0,0,0,0,0,0,{r}\n",
                i as f64 * 0.003
            ));
        }
        std::fs::write(dir.join("particles.csv"), p).unwrap();
    };
    let psd = |dir: &PathBuf| -> Vec<Vec<f64>> {
        let s = scene_path.to_str().unwrap();
        grains(&[
            "post",
            "psd",
            dir.to_str().unwrap(),
            "--bins",
            "8",
            "--scene",
            s,
        ]);
        read(dir.join("post/psd.csv"))
            .iter()
            .map(|r| r.iter().map(|c| c.parse().unwrap()).collect())
            .collect()
    };
    let all = temp_dir("psd-all");
    write(&all, &radii);
    for row in psd(&all) {
        assert_eq!((row[2], row[3]), (row[6], row[7]), "{row:?}");
    }
    radii.sort_by(f64::total_cmp);
    let small = temp_dir("psd-small");
    write(&small, &radii[..radii.len() / 2]);
    let rows = psd(&small);
    let requested_half = rows
        .iter()
        .scan(0.0, |c, r| {
            *c += r[6];
            Some(*c)
        })
        .position(|c| c >= 0.5)
        .unwrap();
    // Every realised bead lies in the bins up to the one holding the requested median.
    let realised_below: f64 = rows[..=requested_half].iter().map(|r| r[2]).sum();
    assert!((realised_below - 1.0).abs() < 1e-12, "{realised_below}");
    assert!(rows.iter().map(|r| r[6]).sum::<f64>() > 0.999);
}
