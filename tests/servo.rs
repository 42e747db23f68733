//! Servo walls: the oedometer's lid reaches its target stress and holds it, on both backends
//! alike; a servo resumes bit for bit; bad servos are refused at their key.

use std::path::PathBuf;

use grains_tests::{csv_rows, run_scene_file, scene_backends, workspace_root};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-servo-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The oedometer scene with `edit` applied to its text, written to `dir`.
fn oedometer(dir: &std::path::Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(workspace_root().join("scenes/oedometer.toml"))
        .expect("scenes/oedometer.toml");
    let path = dir.join("oedometer.toml");
    std::fs::write(&path, edit(text)).expect("scene");
    path
}

/// The lid's rows of `walls.csv` (wall 6): `(time, fz, cz)`.
fn lid_rows(out: &std::path::Path) -> Vec<(f64, f64, f64)> {
    csv_rows(&out.join("walls.csv"))
        .into_iter()
        .filter(|r| r[2] == 6.0)
        .map(|r| (r[1], r[5], r[11]))
        .collect()
}

/// The oedometer's lid, driven by its servo, presses the bed with the target's 0.8 N (2 kPa on
/// 4 cm^2): the load the beads put on it, averaged over each of the last four 10 ms of the
/// 0.1 s run, is within 1% of the target, the lid has come down onto the bed and rests (its
/// centre moves less than 1 um over the last 10 ms), on each backend.
#[test]
fn a_servo_lid_reaches_its_target_stress_and_holds_it() {
    for backend in scene_backends() {
        let dir = temp_dir(&format!("hold-{backend}"));
        let scene = oedometer(&dir, |t| t);
        let out = dir.join("out");
        run_scene_file(&scene, backend, &out);
        let rows = lid_rows(&out);
        assert!(rows.len() > 40, "{backend}: {} rows", rows.len());
        let target = 0.8;
        for w in 0..4 {
            let (lo, hi) = (0.06 + 0.01 * w as f64, 0.07 + 0.01 * w as f64);
            let window: Vec<f64> = rows
                .iter()
                .filter(|r| r.0 > lo - 1e-9 && r.0 <= hi + 1e-9)
                .map(|r| r.1)
                .collect();
            let mean = window.iter().sum::<f64>() / window.len() as f64;
            eprintln!(
                "{backend}: t in ({lo:.2}, {hi:.2}] s: lid load {mean:.5} N ({} rows)",
                window.len()
            );
            assert!(
                (mean - target).abs() < 0.01 * target,
                "{backend}: {mean} N against {target} N"
            );
        }
        let last = rows.last().expect("rows");
        let before = rows
            .iter()
            .rev()
            .find(|r| r.0 <= last.0 - 0.01 + 1e-9)
            .expect("a row");
        eprintln!(
            "{backend}: lid at z = {:.6} m (from 0.011), moved {:e} m in the last 10 ms",
            last.2,
            (last.2 - before.2).abs()
        );
        assert!(
            last.2 < 0.0105,
            "{backend}: the lid came down to the bed ({} m)",
            last.2
        );
        assert!((last.2 - before.2).abs() < 1e-6, "{backend}: the lid rests");
    }
}

/// A servo steering its wall resumes bit for bit: a run stopped after 2005 steps (its
/// checkpoint mid-way between two updates of the servo) and resumed writes the lid's rows and
/// the particles as the uninterrupted run does.
#[test]
fn a_servo_run_resumes_bit_for_bit() {
    let dir = temp_dir("resume");
    // A checkpoint at the end of each run (none falls inside it).
    let scene = oedometer(&dir, |t| {
        t.replace("duration = 0.1", "duration = 0.04").replace(
            "formats = [\"csv\"]",
            "formats = [\"csv\"]\ncheckpoint_every = 1.0",
        )
    });
    let grains = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "grains".to_string(),
            "run".into(),
            scene.to_string_lossy().into(),
        ];
        args.extend(["--backend", "cpu", "--out", &out.to_string_lossy(), "-q"].map(String::from));
        args.extend(extra.iter().map(|s| s.to_string()));
        grains_cli::main_with_args(args).unwrap_or_else(|e| panic!("{extra:?}: {e:#}"));
    };
    let (whole, cut) = (dir.join("whole"), dir.join("cut"));
    grains(&whole, &[]);
    grains(&cut, &["--steps", "2005"]);
    grains(&cut, &["--resume"]);
    for f in ["walls.csv", "particles.csv"] {
        let a = std::fs::read(whole.join(f)).expect("whole");
        let b = std::fs::read(cut.join(f)).expect("resumed");
        assert!(a == b, "{f} differs after the resume");
    }
}

/// Bad servos are refused at their key: zero gain, no target, both targets, a stress without
/// its area, a servo on a cylinder, and a servo with a motion.
#[test]
fn bad_servos_are_refused_at_their_key() {
    let dir = temp_dir("bad");
    let lid =
        "servo = { stress = -2000.0, area = 4.0e-4, gain = 0.1, max_speed = 0.1, every = 10 }";
    for (servo, want) in [
        (
            lid.replace("gain = 0.1", "gain = 0.0"),
            "a servo without gain never moves",
        ),
        (
            lid.replace("stress = -2000.0, area = 4.0e-4, ", ""),
            "a servo needs `stress`",
        ),
        (
            lid.replace("stress = -2000.0,", "stress = -2000.0, force = -1.0,"),
            "not both",
        ),
        (
            lid.replace("area = 4.0e-4, ", ""),
            "missing required key `area`",
        ),
        (
            lid.replace("max_speed = 0.1", "max_speed = -1.0"),
            "max_speed",
        ),
        (
            format!("{lid}\nmotion = {{ velocity = [0.0, 0.0, -0.01] }}"),
            "give `servo` or `motion`",
        ),
    ] {
        let scene = oedometer(&dir, |t| t.replace(lid, &servo));
        let e = match grains_scene::parse_scene(&std::fs::read_to_string(&scene).unwrap(), &scene) {
            Ok(_) => panic!("accepted: {servo}"),
            Err(e) => e.to_string(),
        };
        eprintln!("{e}");
        assert!(e.contains(want), "{servo}: {e}");
        assert!(e.contains("oedometer.toml:"), "located: {e}");
    }
    let cyl = oedometer(&dir, |t| {
        t.replace(
            "plane = { point = [0.0, 0.0, 0.011], normal = [0.0, 0.0, -1.0] }",
            "cylinder = { point = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], radius = 0.02, hollow = true }",
        )
    });
    let e = match grains_scene::parse_scene(&std::fs::read_to_string(&cyl).unwrap(), &cyl) {
        Ok(_) => panic!("a servo on a cylinder is accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("a servo moves a plane wall"), "{e}");
}
