//! Scene overrides (`grains run SCENE --set PATH=VALUE`): each changes exactly the key named,
//! adds it where the block lacks it, and errors stay located in the scene file.

use grains_scene::overrides::{apply, Override};
use std::path::Path;

const SCENE: &str = r#"[simulation]
steps = 10
dt = 1e-5
gravity = [0.0, 0.0, -9.81]

[domain]
min = [0.0, 0.0, 0.0]
max = [0.1, 0.1, 0.1]

[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[material]]
name = "steel"
density = 7800.0
young = 2.0e8
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.001
positions = [[0.05, 0.05, 0.05], [0.05, 0.05, 0.0525]]

[[particles]]
material = "steel"
radius = 0.001
positions = [[0.02, 0.02, 0.02]]

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
tangential = { law = "cundall_strack", friction = 0.5 }

[[interaction]]
between = ["glass", "steel"]
normal = { law = "hertz" }
"#;

fn set(s: &str) -> Override {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn scene_with(sets: &[&str]) -> Result<grains_scene::Scene, grains_scene::SceneError> {
    let sets: Vec<Override> = sets.iter().map(|s| set(s)).collect();
    let file = Path::new("<test>");
    let applied = apply(SCENE, file, &sets)?;
    grains_scene::parse_scene(&applied.text, file).map_err(|e| applied.locate(e))
}

/// Each override changes the key it names and nothing else: the world differs from the plain
/// scene's in that value alone.
#[test]
fn an_override_changes_exactly_the_key_named() {
    let plain = scene_with(&[]).expect("plain scene").world;
    type Holds = Box<dyn Fn(&grains_core::World) -> bool>;
    let cases: Vec<(&str, Holds)> = vec![
        ("simulation.dt=2e-5", Box::new(|w| w.dt == 2e-5)),
        (
            "material.steel.young=3.0e8",
            Box::new(|w| w.materials[1].young == 3.0e8),
        ),
        (
            "material[0].density=2600.0",
            Box::new(|w| w.materials[0].density == 2600.0),
        ),
        (
            "simulation.gravity=[0.0, -9.81, 0.0]",
            Box::new(|w| w.gravity == [0.0, -9.81, 0.0]),
        ),
    ];
    for (s, holds) in cases {
        let w = scene_with(&[s])
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .world;
        assert!(holds(&w), "{s} did not take");
        assert_ne!(w.fingerprint(), plain.fingerprint(), "{s} changed nothing");
    }
    // A law's key, inside an inline table, changes that pair's parameters only.
    let w = scene_with(&["interaction[0].tangential.friction=0.4"]).expect("friction");
    assert_ne!(w.world.table.params, plain.table.params);
    let text = apply(
        SCENE,
        Path::new("<test>"),
        &[set("interaction[0].tangential.friction=0.4")],
    )
    .expect("apply")
    .text;
    assert_eq!(text, SCENE.replace("friction = 0.5", "friction = 0.4"));
}

/// A key the block lacks is added to it: to a standard table, and to an inline law table.
#[test]
fn an_override_adds_a_key_the_block_lacks() {
    let w = scene_with(&["simulation.skin=0.0007"]).expect("skin").world;
    assert_eq!(w.skin, 0.0007);
    let w = scene_with(&[
        "interaction[1].normal.stiffness=1e3",
        "interaction[1].normal.law=\"linear\"",
    ]);
    let w = w.expect("linear law with a stiffness").world;
    assert!(w
        .table
        .chains
        .iter()
        .any(|c| format!("{c:?}").contains("Linear")));
}

/// Errors stay located in the scene file: at an overridden value (naming its --set), and
/// below an added line at their own line.
#[test]
fn errors_stay_located_in_the_scene_file() {
    let e = scene_with(&["material.glass.poisson=0.7"])
        .expect_err("poisson")
        .to_string();
    assert!(e.starts_with("<test>:14:"), "{e}");
    assert!(e.contains("--set material.glass.poisson=0.7"), "{e}");
    // An added line above it does not move an error at line 29 of the file.
    let e = scene_with(&["simulation.skin=0.0007", "particles[1].radius=-1.0"])
        .expect_err("radius")
        .to_string();
    assert!(e.starts_with("<test>:29:"), "{e}");
    let e = scene_with(&["simulation.skin=0.0007", "domain.max=[0.1, 0.1]"])
        .expect_err("max")
        .to_string();
    assert!(
        e.starts_with("<test>:8:") && e.contains("--set domain.max"),
        "{e}"
    );
}

/// A value of several lines replaced by one moves no error below it.
#[test]
fn a_shorter_value_moves_no_error_below_it() {
    let text = SCENE.replace(
        "positions = [[0.05, 0.05, 0.05], [0.05, 0.05, 0.0525]]",
        "positions = [\n  [0.05, 0.05, 0.05],\n  [0.05, 0.05, 0.0525],\n]",
    );
    let file = Path::new("<test>");
    let sets = [
        set("particles[0].positions=[[0.05, 0.05, 0.05]]"),
        set("particles[1].radius=-1.0"),
    ];
    let applied = apply(&text, file, &sets).expect("apply");
    let e = grains_scene::parse_scene(&applied.text, file)
        .map_err(|e| applied.locate(e))
        .expect_err("radius")
        .to_string();
    // The second block's radius is at line 32 of this file.
    assert_eq!(text.lines().nth(31), Some("radius = 0.001"));
    assert!(
        e.starts_with("<test>:32:") && e.contains("--set particles[1].radius"),
        "{e}"
    );
}

/// Overrides that cannot apply are refused, saying why.
#[test]
fn bad_overrides_are_refused() {
    assert!("simulation.dt".parse::<Override>().is_err());
    assert!("=1".parse::<Override>().is_err());
    for (s, wanted) in [
        (
            "material.copper.young=1e9",
            "no `material` block is named \"copper\"",
        ),
        ("material[5].young=1e9", "has 2 blocks"),
        ("simulation.dt=fast", "not a TOML value"),
        ("walls.x=1", "the scene has no `walls`"),
        ("material.glass=1", "is a block, not a key"),
        ("simulation..dt=1", "not a key path"),
    ] {
        let e = scene_with(&[s]).expect_err(s).to_string();
        assert!(
            e.contains(wanted) && e.contains(&format!("--set {s}")),
            "{s}: {e}"
        );
    }
}

/// `grains run --set` runs the overridden scene and keeps its overrides in
/// `OUT/overrides.txt`; `grains check --set` refuses a bad value at its line in the file; a
/// later run there without overrides removes the record.
#[test]
fn the_cli_runs_and_records_its_overrides() {
    let scene = grains_tests::workspace_root().join("scenes/two_spheres_head_on.toml");
    let s = scene.to_string_lossy().into_owned();
    let out = std::env::temp_dir().join(format!("grains-overrides-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = out.to_string_lossy().into_owned();
    let run = |extra: &[&str]| {
        let mut v = vec!["grains", "run", &s, "--backend", "cpu", "--out", &o, "-q"];
        v.extend_from_slice(extra);
        grains_cli::main_with_args(v)
    };
    let sets = [
        "--set",
        "simulation.dt=1e-6",
        "--set",
        "simulation.duration=2e-5",
        "--set",
        "output.every_steps=20",
    ];
    run(&sets).expect("run");
    let record = std::fs::read_to_string(out.join("overrides.txt")).expect("overrides.txt");
    assert_eq!(
        record,
        "--set simulation.dt=1e-6\n--set simulation.duration=2e-5\n--set output.every_steps=20\n"
    );
    let csv = std::fs::read_to_string(out.join("particles.csv")).expect("particles.csv");
    let last = csv.lines().last().expect("a row");
    assert!(
        last.starts_with("20,"),
        "the last row is not step 20: {last}"
    );
    let e = grains_cli::main_with_args(vec!["grains", "check", &s, "--set", "simulation.dt=-1.0"])
        .expect_err("a negative dt")
        .to_string();
    assert!(
        e.contains("two_spheres_head_on.toml:6:") && e.contains("--set simulation.dt=-1.0"),
        "{e}"
    );
    run(&["--steps", "2"]).expect("run without overrides");
    assert!(!out.join("overrides.txt").exists(), "a stale record stayed");
    let _ = std::fs::remove_dir_all(&out);
}

/// `grains sweep` over a table of 4 rows runs 4 runs, each with its row's overrides, and writes
/// 4 summary rows; `--post` adds a run's `grains post` figure; `--row` runs one; `--slurm`
/// writes a job array that bash accepts; a table naming a key the scene lacks is refused before
/// anything is written.
#[test]
fn a_sweep_runs_one_run_a_row() {
    let scene = grains_tests::workspace_root().join("scenes/two_spheres_head_on.toml");
    let s = scene.to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("grains-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let table = dir.join("table.csv");
    std::fs::write(
        &table,
        "simulation.dt,simulation.duration,material.glass.young,output.formats\n\
         1e-6,4e-6,1e7,\"[\"\"csv\"\"]\"\n\
         1e-6,6e-6,2e7,\"[\"\"csv\"\"]\"\n\
         # a comment line\n\
         1e-6,8e-6,4e7,\"[\"\"csv\"\"]\"\n\
         1e-6,1e-5,8e7,\"[\"\"csv\"\"]\"\n",
    )
    .expect("table");
    let (t, out) = (table.to_string_lossy().into_owned(), dir.join("out"));
    let o = out.to_string_lossy().into_owned();
    let sweep = |extra: &[&str]| {
        let mut v = vec![
            "grains",
            "sweep",
            &s,
            "--table",
            &t,
            "--out",
            &o,
            "-q",
            "--backend",
            "cpu",
        ];
        v.extend_from_slice(extra);
        grains_cli::main_with_args(v)
    };
    sweep(&[]).expect("sweep");
    let summary = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines.len(), 5, "{summary}");
    assert!(lines[0].starts_with(
        "row,simulation.dt,simulation.duration,material.glass.young,output.formats,steps"
    ));
    for (k, steps) in [(1, 4), (2, 6), (3, 8), (4, 10)] {
        let f: Vec<&str> = lines[k].split(',').collect();
        assert_eq!(f[0], (k - 1).to_string());
        assert!(lines[k].ends_with(",ok"), "{}", lines[k]);
        assert!(lines[k].contains(&format!(",{steps},")), "{}", lines[k]);
        let rec = std::fs::read_to_string(out.join(format!("row_{:04}/overrides.txt", k - 1)))
            .expect("overrides.txt");
        assert!(rec.contains("--set material.glass.young="), "{rec}");
    }
    // A `grains post` figure a run: the median diameter by mass of the two spheres.
    let _ = std::fs::remove_dir_all(&out);
    sweep(&["--row", "1", "--post", "psd"]).expect("row 1 with a figure");
    let one = std::fs::read_to_string(out.join("row_0001/summary.csv")).expect("summary");
    assert!(
        one.lines()
            .next()
            .is_some_and(|h| h.ends_with(",status,post_psd")),
        "{one}"
    );
    let d: f64 = one
        .lines()
        .nth(1)
        .and_then(|l| l.rsplit(',').next()?.parse().ok())
        .expect("a figure");
    assert!((d / 0.02 - 1.0).abs() < 2e-3, "median diameter {d}");
    // One row alone, as a job-array task.
    let _ = std::fs::remove_dir_all(&out);
    sweep(&["--row", "2"]).expect("row 2");
    let one = std::fs::read_to_string(out.join("row_0002/summary.csv")).expect("summary");
    assert!(
        one.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("2,") && l.ends_with(",ok")),
        "{one}"
    );
    assert!(!out.join("row_0001").exists());
    // The job array.
    sweep(&["--slurm"]).expect("slurm");
    let script = out.join("sweep.slurm");
    let text = std::fs::read_to_string(&script).expect("script");
    assert!(
        text.contains("#SBATCH --array=0-3") && text.contains("--row \"$SLURM_ARRAY_TASK_ID\""),
        "{text}"
    );
    let ok = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .expect("bash");
    assert!(ok.success());
    // Rows spread over the adapters: row 0 on adapter 0, on the GPU backend.
    if grains_tests::gpu_context().is_some() {
        let _ = std::fs::remove_dir_all(&out);
        let mut v = vec!["grains", "sweep", &s, "--table", &t, "--out", &o, "-q"];
        v.extend(["--backend", "gpu", "--per-adapter", "--row", "0"]);
        grains_cli::main_with_args(v).expect("row 0 on adapter 0");
        let one = std::fs::read_to_string(out.join("row_0000/summary.csv")).expect("summary");
        assert!(
            one.lines().nth(1).is_some_and(|l| l.ends_with(",ok")),
            "{one}"
        );
    }
    // A column the scene lacks: refused, nothing written.
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "simulation.dt,walls.x\n1e-6,1\n").expect("bad table");
    let fresh = dir.join("fresh");
    let (b, f) = (
        bad.to_string_lossy().into_owned(),
        fresh.to_string_lossy().into_owned(),
    );
    let e = grains_cli::main_with_args(vec!["grains", "sweep", &s, "--table", &b, "--out", &f])
        .expect_err("unknown column");
    let e = format!("{e:#}");
    assert!(
        e.contains("bad.csv:2: row 0") && e.contains("--set walls.x=1"),
        "{e}"
    );
    assert!(!fresh.exists(), "a refused sweep wrote {}", fresh.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped sweep table reads against its scene, every row.
#[test]
fn the_shipped_sweep_table_reads_against_the_drum() {
    let root = grains_tests::workspace_root().join("scenes");
    let table = grains_cli::sweep::read_table(&root.join("sweep_friction.csv")).expect("table");
    assert_eq!(table.rows.len(), 4);
    for k in 0..table.rows.len() {
        let scene =
            grains_scene::load_scene_with(&root.join("drum.toml"), None, &table.overrides(k))
                .unwrap_or_else(|e| panic!("row {k}: {e}"));
        assert_eq!(scene.world.interactions.len(), 1);
    }
}

/// `grains export SCENE` writes the run's checkpoint as pack files, one per material, from
/// which a later scene starts where the run ended; without a checkpoint, or with other
/// overrides than the run's, it refuses. `grains export OUT` writes the same from the run's
/// folder alone.
#[test]
fn export_writes_the_checkpoint_as_pack_files_a_scene_reads() {
    let scene = grains_tests::workspace_root().join("scenes/two_spheres_head_on.toml");
    let s = scene.to_string_lossy().into_owned();
    let out = std::env::temp_dir().join(format!("grains-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = out.to_string_lossy().into_owned();
    let sets = [
        "--set",
        "simulation.dt=1e-6",
        "--set",
        "output.checkpoint_every_steps=40",
    ];
    let mut v = vec!["grains", "export", &s, "--out", &o];
    v.extend(sets);
    let e = grains_cli::main_with_args(v.clone()).expect_err("no checkpoint yet");
    assert!(format!("{e:#}").contains("no checkpoint"), "{e:#}");
    let mut run = vec![
        "grains",
        "run",
        &s,
        "--backend",
        "cpu",
        "--out",
        &o,
        "-q",
        "--steps",
        "40",
    ];
    run.extend(sets);
    grains_cli::main_with_args(run).expect("run");
    let e = grains_cli::main_with_args(vec!["grains", "export", &s, "--out", &o])
        .expect_err("other overrides");
    assert!(format!("{e:#}").contains("another scene"), "{e:#}");
    grains_cli::main_with_args(v).expect("export");
    let pack = out.join("export/glass.pack");
    let text = std::fs::read_to_string(&pack).expect("pack");
    let (_, state) = grains_io::read_checkpoint(&out.join("checkpoint.bin")).expect("checkpoint");
    // A scene of the exported spheres starts where the run ended.
    let base = std::fs::read_to_string(&scene).expect("scene");
    let start = base.find("[[particles]]").expect("particles");
    let end = base[start..]
        .find("\n\n")
        .map(|e| start + e)
        .unwrap_or(base.len());
    let next = format!(
        "{}[[particles]]\nmaterial = \"glass\"\nfile = \"{}\"\n{}",
        &base[..start],
        pack.display(),
        &base[end..]
    );
    let w = grains_scene::parse_scene(&next, &scene)
        .unwrap_or_else(|e| panic!("{e}\n{next}"))
        .world;
    assert_eq!(w.particles.len(), 2, "{text}");
    for i in 0..2 {
        for k in 0..3 {
            assert_eq!(w.particles.pos[i][k], state.pos[i][k]);
            assert_eq!(w.particles.vel[i][k], state.vel[i][k]);
        }
    }
    // `grains export OUT` writes the same spheres from the run's stage.csv, without the scene.
    std::fs::remove_file(&pack).expect("remove");
    grains_cli::main_with_args(vec!["grains", "export", &o]).expect("export the folder");
    let again = std::fs::read_to_string(&pack).expect("pack from the folder");
    let data = |t: &str| t.lines().skip(1).map(String::from).collect::<Vec<_>>();
    assert_eq!(
        data(&again),
        data(&text),
        "the same spheres from the folder"
    );
    let _ = std::fs::remove_dir_all(&out);
}
