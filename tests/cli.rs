//! The `grains` command line, driven in-process through `grains_cli::main_with_args`.

use grains_tests::workspace_root;
use std::path::{Path, PathBuf};

fn grains(args: &[&str]) -> anyhow::Result<()> {
    let mut v = vec!["grains"];
    v.extend_from_slice(args);
    grains_cli::main_with_args(v)
}

fn scene(name: &str) -> String {
    workspace_root()
        .join("scenes")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("grains-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `grains check` and `grains shader` accept every shipped scene. A stage (`[initial] from`)
/// is checked from a stand-in for its earlier run: one glass bead in a `stage.csv`, its files
/// found from a copy of the scene whose paths name the scenes' folder.
#[test]
fn check_validates_every_scene_and_its_chains() {
    let dir = temp_dir("check-stage");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("stage.csv"),
        format!(
            "# pairs: glass|glass=0\n{}\n0,glass,0.001,0,0,0.03,0,0,0,0,0,0\n",
            grains_core::stage::STAGE_HEADER
        ),
    )
    .expect("stage");
    let scenes = workspace_root().join("scenes");
    for entry in std::fs::read_dir(&scenes).expect("scenes/") {
        let mut p = entry.expect("entry").path();
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if p.extension().is_some_and(|e| e == "toml") && text.contains("[initial]\nfrom = ") {
            let from = text
                .lines()
                .find(|l| l.starts_with("from = "))
                .expect("from");
            let staged = text
                .replace(from, &format!("from = {:?}", dir.to_string_lossy()))
                .replace("file = \"", &format!("file = \"{}/", scenes.display()));
            let name = p.file_name().expect("name").to_owned();
            p = dir.join(name);
            std::fs::write(&p, staged).expect("staged copy");
        }
        if p.extension().is_some_and(|e| e == "toml") {
            let s = p.to_string_lossy().into_owned();
            grains(&["check", &s]).unwrap_or_else(|e| panic!("{s}: {e:#}"));
            grains(&["shader", &s]).unwrap_or_else(|e| panic!("{s}: {e:#}"));
        }
    }
}

/// Run a scene of `scenes/` to its end on the CPU backend, into a fresh folder.
fn run_on_cpu(name: &str, tag: &str) -> PathBuf {
    let out = temp_dir(tag);
    let o = out.to_string_lossy().into_owned();
    grains(&["run", &scene(name), "--backend", "cpu", "--out", &o, "-q"]).expect("run");
    out
}

fn read_csv(path: &Path) -> (String, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let rows = lines
        .map(|l| {
            l.split(',')
                .map(|x| x.parse::<f64>().expect("number"))
                .collect()
        })
        .collect();
    (header, rows)
}

/// The head-on scene end to end on the CPU: output files, headers, frames, and the physics in
/// them (restitution 0.5 requested; at the automatic dt of 40 steps per collision the
/// half-step lag of the dashpot leaves it within 1%).
#[test]
fn run_writes_frames_energy_and_the_expected_rebound() {
    let out = run_on_cpu("two_spheres_head_on.toml", "run");
    let (h, rows) = read_csv(&out.join("particles.csv"));
    assert_eq!(
        h,
        "step,time,id,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz,radius"
    );
    let last = &rows[rows.len() - 2..];
    let vrel = last[1][6] - last[0][6];
    assert!(
        (vrel / 2.0 - 0.5).abs() < 0.01,
        "rebound speed ratio {}",
        vrel / 2.0
    );
    let (h, e) = read_csv(&out.join("energy.csv"));
    assert_eq!(
        h,
        "step,time,kinetic,rotational,gravitational,elastic,damping_dissipated,friction_dissipated,total,removed,wall_work,kinematic_work,inserted"
    );
    let (first, last) = (&e[0], &e[e.len() - 1]);
    assert!(
        (last[8] - first[8]).abs() / first[8] < 2e-3,
        "ledger {first:?} -> {last:?}"
    );
    let pvd = std::fs::read_to_string(out.join("particles.pvd")).expect("pvd");
    let frames = pvd.matches("<DataSet").count();
    assert_eq!(frames, e.len(), "one frame per output step");
    assert!(out.join("frame_00000000.vtu").exists());
}

#[test]
fn errors_name_the_problem_and_never_panic() {
    let e = grains(&["run", "no/such/scene.toml"]).expect_err("missing file");
    assert!(format!("{e:#}").contains("no/such/scene.toml"), "{e:#}");
    let e = grains(&["run"]).expect_err("missing argument");
    assert!(
        format!("{e}").contains("SCENE") || format!("{e}").contains("scene"),
        "{e}"
    );
    let e = grains(&["run", &scene("gas.toml"), "--backend", "quantum"]).expect_err("bad backend");
    assert!(format!("{e}").contains("quantum"), "{e}");
    let e = grains(&["bench", "--sizes", "1000", "--backends", "abacus"]).expect_err("bad bench");
    assert!(format!("{e}").contains("abacus"), "{e}");
}

/// A run that blows up (three spheres started deeply overlapping in a small box, at a dt 40
/// times the automatic one) stops with a message naming the particle, the step and the dt
/// that would be safe, instead of writing NaN frames.
#[test]
fn unstable_run_is_reported_not_written_as_nan() {
    let dir = temp_dir("unstable");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = grains_tests::BLOW_UP_SCENE;
    let path = dir.join("unstable.toml");
    std::fs::write(&path, text).expect("write");
    let o = dir.join("out").to_string_lossy().into_owned();
    let scene_path = path.to_string_lossy().into_owned();
    let e = grains(&["run", &scene_path, "--backend", "cpu", "--out", &o, "-q"])
        .expect_err("refused without --allow-unstable");
    let m = format!("{e:#}");
    assert!(
        m.contains("exceeds 20% of the Rayleigh time") && m.contains("--allow-unstable"),
        "{m}"
    );
    let e = grains(&[
        "run",
        &scene_path,
        "--backend",
        "cpu",
        "--out",
        &o,
        "-q",
        "--allow-unstable",
        "--memory-limit",
        "1G",
    ])
    .expect_err("this run must blow up");
    let m = format!("{e:#}");
    // Caught by the guard at the first bad step: over the speed limit, out of the box, or
    // non-finite, whichever comes first; the message names the particle, step and safe dt.
    assert!(
        (m.contains("non-finite") || m.contains("moves at") || m.contains("left the domain"))
            && m.contains("particle")
            && m.contains("at step")
            && m.contains("`dt = \"auto\"` would choose 5.015e-5 s"),
        "{m}"
    );
    let (_, rows) = read_csv(&dir.join("out").join("particles.csv"));
    assert!(
        rows.iter().flatten().all(|x| x.is_finite()),
        "a NaN frame was written"
    );
}

/// `--backend auto` takes a hardware GPU when there is one and says so, else the CPU backend.
#[test]
fn auto_backend_says_which_it_took() {
    let text = std::fs::read_to_string(scene("two_spheres_head_on.toml")).expect("scene");
    let s = grains_scene::parse_scene(&text, Path::new("two.toml")).expect("parse");
    let hardware = grains_gpu::list_adapters()
        .iter()
        .any(|a| a.device_type != "Cpu");
    let (_, msg) =
        grains_cli::make_backend(s.world, grains_cli::BackendArg::Auto).expect("backend");
    if hardware {
        assert!(msg.starts_with("backend: gpu"), "{msg}");
    } else {
        assert!(msg.starts_with("backend: cpu (auto"), "{msg}");
    }
}

/// scenes/gas.toml as shipped (8000 spheres, 10^4 steps, periodic, no damping, no friction):
/// the total energy in its energy log stays within 1e-4 of its start at every line.
#[test]
fn gas_scene_conserves_energy_over_its_run() {
    let out = run_on_cpu("gas.toml", "gas");
    let (_, e) = read_csv(&out.join("energy.csv"));
    assert_eq!(
        e.last().map(|r| r[0]),
        Some(10_000.0),
        "the run should reach 10^4 steps"
    );
    let e0 = e[0][8];
    let worst = e
        .iter()
        .map(|r| (r[8] - e0).abs() / e0)
        .fold(0.0f64, f64::max);
    assert!(worst < 1e-4, "relative energy drift {worst}");
    assert!(e.iter().any(|r| r[5] > 0.0), "the gas should have collided");
}

/// A run stopped half way and resumed from its checkpoint writes the same particles.csv and
/// energy.csv, byte for byte, as the same run done in one go; on each backend.
#[test]
fn resumed_run_matches_the_uninterrupted_one() {
    let dir = temp_dir("resume");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scene")
        .replace("count = [40, 40, 13]", "count = [12, 12, 6]")
        .replace("duration = 0.15", "duration = 0.05")
        .replace("formats = [\"vtk\"]", "formats = [\"vtk\", \"csv\"]")
        .replace(
            "every = 0.005",
            "every_steps = 100\ncheckpoint_every_steps = 250",
        );
    let path = dir.join("settle_resume.toml");
    std::fs::write(&path, text).expect("write scene");
    let p = path.to_string_lossy().into_owned();
    let mut backends = vec!["cpu"];
    if grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any).is_ok() {
        backends.push("gpu");
    } else if grains_tests::gpu_required() {
        panic!("a GPU adapter is required (CI / GRAINS_REQUIRE_GPU)");
    }
    for backend in backends {
        let whole = dir.join(format!("whole-{backend}"));
        let parts = dir.join(format!("parts-{backend}"));
        let (w, pt) = (
            whole.to_string_lossy().into_owned(),
            parts.to_string_lossy().into_owned(),
        );
        let run = |steps: &str, out: &str, resume: bool| {
            let mut args = vec![
                "run",
                &p,
                "--backend",
                backend,
                "--steps",
                steps,
                "--out",
                out,
            ];
            if resume {
                args.push("--resume");
            }
            args.push("-q");
            grains(&args).unwrap_or_else(|e| panic!("{backend} {steps} steps: {e:#}"));
        };
        run("1200", &w, false);
        // The run dies at step 600, after its checkpoint at step 500 and with frames and
        // energy lines up to 600 on disk: those after 500 must be redone, not duplicated.
        // (A run also checkpoints at its end, so the 500-step state comes from a second run.)
        run("600", &pt, false);
        let at500 = dir.join(format!("at500-{backend}"));
        run("500", &at500.to_string_lossy(), false);
        let (fp, s500) = grains_io::read_checkpoint(&at500.join("checkpoint.bin")).expect("read");
        assert_eq!(
            s500.step, 500,
            "a checkpoint is written at the end of a run"
        );
        grains_io::write_checkpoint(&parts.join("checkpoint.bin"), fp, &s500).expect("write");
        run("1200", &pt, true);
        for f in ["particles.csv", "energy.csv"] {
            let a = std::fs::read(whole.join(f)).expect("whole output");
            let b = std::fs::read(parts.join(f)).expect("resumed output");
            assert!(
                a == b,
                "{backend}: {f} of the resumed run differs from the uninterrupted one"
            );
        }
        let pvd = std::fs::read_to_string(parts.join("particles.pvd")).expect("pvd");
        assert_eq!(
            pvd.matches("part=\"0\"").count(),
            13,
            "{backend}: frames 0..=1200 every 100"
        );
    }
    // A checkpoint of another scene is refused.
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&path)
            .expect("scene")
            .replace("friction = 0.5", "friction = 0.4"),
    )
    .expect("write");
    let e = grains(&[
        "run",
        &other.to_string_lossy(),
        "--backend",
        "cpu",
        "--out",
        &dir.join("parts-cpu").to_string_lossy(),
        "--resume",
        "-q",
    ])
    .expect_err("foreign checkpoint");
    assert!(format!("{e:#}").contains("different scene"), "{e:#}");
}

/// The end-of-run energy audit: at the automatic dt the head-on scene's ledger stays within
/// the 1% the CLI warns beyond; at a dt resolving the collision in about four steps it does
/// not, and the report says so.
#[test]
fn energy_audit_flags_a_coarse_time_step() {
    let dir = temp_dir("audit");
    std::fs::create_dir_all(&dir).expect("dir");
    let base = std::fs::read_to_string(scene("two_spheres_head_on.toml")).expect("scene");
    let mut drifts = Vec::new();
    for (tag, dt) in [("auto", "dt = \"auto\""), ("coarse", "dt = 4e-4")] {
        let path = dir.join(format!("{tag}.toml"));
        std::fs::write(&path, base.replace("dt = \"auto\"", dt)).expect("write");
        let report = grains_cli::run::run(&grains_cli::run::RunArgs {
            scene: path,
            backend: Some(grains_cli::BackendArg::Cpu),
            out: Some(dir.join(tag)),
            steps: None,
            quiet: true,
            resume: false,
            // The coarse dt is the point of this test.
            allow_unstable: true,
            ..Default::default()
        })
        .expect("run");
        drifts.push(report.energy_drift.expect("energy is on in this scene"));
    }
    assert!(drifts[0] < 1e-2, "auto dt drift {}", drifts[0]);
    assert!(drifts[1] > 1e-2, "coarse dt drift {}", drifts[1]);
}

/// The minimal scene the README shows is a valid scene, small enough to run in well under a
/// minute on two cores (2000 spheres, 0.25 s: 43,000 steps, 25 s with the test build), with
/// no particles overlapping at the start.
#[test]
fn readme_scene_is_valid() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let start = readme.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let end = start + readme[start..].find("```").expect("its end");
    let scene = grains_scene::parse_scene(&readme[start..end], Path::new("README.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.world.particles.len(), 20 * 20 * 5);
    let particle_steps = scene.world.particles.len() as u64 * scene.run.steps;
    assert!(
        particle_steps < 100_000_000,
        "{particle_steps} particle-steps"
    );
    let o = &scene.overlaps;
    assert_eq!((o.pairs, o.wall_contacts), (0, 0), "{o:?}");
}

/// scenes/adhesion.toml as shipped, on the CPU backend and on the GPU (lavapipe where there is
/// no GPU; required under CI): two kinematic JKR spheres pulled apart write their
/// force-overlap curve to contacts.csv. The curve's minimum is the pull-off force
/// `-3/2 pi W R*` and its last row (every 5 steps, 6.4e-8 m apart) lies just above the break
/// overlap `delta_f`; both to 1e-3 of their size. The two backends write the same rows, forces
/// to 1e-4 of the pull-off force (JKR's declared parity tolerance).
#[test]
fn adhesion_scene_writes_the_jkr_curve_on_both_backends() {
    let (w, r_eff, e_eff) = (1.0, 0.5e-3, 1e7 / (2.0 * (1.0 - 0.09)));
    let pi = std::f64::consts::PI;
    let f_c = 1.5 * pi * w * r_eff;
    let delta_f = -0.75 * (pi * pi * w * w * r_eff / (e_eff * e_eff)).cbrt();
    let mut curves = Vec::new();
    let gpu_ok = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any).is_ok();
    assert!(
        gpu_ok || !grains_tests::gpu_required(),
        "no GPU adapter under CI"
    );
    for backend in ["cpu", "gpu"] {
        if backend == "gpu" && !gpu_ok {
            eprintln!("skipping the GPU run: no adapter");
            continue;
        }
        let out = temp_dir(&format!("adhesion-{backend}"));
        let o = out.to_string_lossy().into_owned();
        let args = [
            "run",
            &scene("adhesion.toml"),
            "--backend",
            backend,
            "--out",
            &o,
            "-q",
        ];
        grains(&args).unwrap_or_else(|e| panic!("{backend}: {e:#}"));
        let (header, rows) = read_csv(&out.join("contacts.csv"));
        assert_eq!(header, grains_io::CONTACTS_HEADER);
        let f_min = rows.iter().map(|r| r[5]).fold(f64::INFINITY, f64::min);
        let last = rows.last().expect("rows")[4];
        eprintln!("{backend}: {} rows, min fn {f_min:.6e} N (pull-off {:.6e}), last overlap {last:.6e} m (delta_f {delta_f:.6e})", rows.len(), -f_c);
        assert!(
            (f_min + f_c).abs() < 1e-3 * f_c,
            "{backend}: pull-off {f_min}"
        );
        assert!(
            last >= delta_f && last - delta_f < 1e-7,
            "{backend}: last contact at {last}, break at {delta_f}"
        );
        assert!(rows
            .iter()
            .all(|r| r[2] == 0.0 && r[3] == 1.0 && r[7] == 1.0));
        curves.push(rows);
        let _ = std::fs::remove_dir_all(&out);
    }
    if let [cpu, gpu] = &curves[..] {
        assert_eq!(cpu.len(), gpu.len(), "rows on CPU and GPU");
        for (a, b) in cpu.iter().zip(gpu) {
            assert_eq!(a[0], b[0]);
            assert!(
                (a[5] - b[5]).abs() < 1e-4 * f_c,
                "step {}: fn {} vs {}",
                a[0],
                a[5],
                b[5]
            );
        }
    }
}

/// A bench size the scene parser refuses (more particles than fit in `MemAvailable`, or than a
/// scene holds) is a row saying so, not an allocation that takes the machine down: ten billion
/// spheres need terabytes.
#[cfg(target_os = "linux")]
#[test]
fn bench_skips_a_size_that_cannot_fit() {
    grains(&[
        "bench",
        "--sizes",
        "10000000000",
        "--backends",
        "cpu,gpu",
        "--steps",
        "1",
    ])
    .expect("the bench skips the size and ends normally");
}

/// `--repeat` times every row that many times and ends normally; zero repeats are refused
/// with the range it takes.
#[test]
fn bench_repeats_rows_and_refuses_zero_repeats() {
    grains(&[
        "bench",
        "--sizes",
        "500",
        "--steps",
        "3",
        "--backends",
        "cpu",
        "--repeat",
        "2",
    ])
    .expect("a repeated bench runs");
    let e = grains(&["bench", "--sizes", "500", "--repeat", "0"]).expect_err("zero repeats");
    let msg = format!("{e:#}");
    assert!(msg.contains("--repeat") && msg.contains("0"), "{msg}");
}

/// `scenes/gas_100k.toml` is the bench's gas at 97,336 spheres (the peer kit's `gas_100k`):
/// the same positions, velocities, domain and step, so `grains run` on the file reproduces
/// what `grains bench --scene gas --sizes 97336` times.
#[test]
fn the_gas_100k_scene_is_the_benchs_gas() {
    let file = grains_scene::load_scene(&workspace_root().join("scenes/gas_100k.toml"))
        .expect("scene")
        .world;
    let bench = grains_cli::bench::bench_world("gas", 97336).expect("bench world");
    assert_eq!(file.particles.len(), 97336);
    // Counted, not printed: a hundred thousand rows do not make a readable message.
    let differ = |a: &[[f32; 4]], b: &[[f32; 4]]| a.iter().zip(b).filter(|(x, y)| x != y).count();
    assert_eq!(
        differ(&file.particles.pos, &bench.particles.pos),
        0,
        "positions"
    );
    assert_eq!(
        differ(&file.particles.vel, &bench.particles.vel),
        0,
        "velocities"
    );
    assert_eq!(file.domain.params(), bench.domain.params(), "domain");
    assert_eq!(file.step_params(), bench.step_params(), "step");
    assert_eq!(file.table.chains.len(), bench.table.chains.len(), "chains");
}

/// A small settle written for the output tests into `dir`: 256 spheres under a hundredfold
/// gravity (they reach the floor and touch within the run), 1000 steps, every format and
/// contacts every 250 steps, a checkpoint every 200; returns its path.
fn small_settle(dir: &Path) -> String {
    std::fs::create_dir_all(dir).expect("dir");
    let text = std::fs::read_to_string(workspace_root().join("scenes/settle.toml"))
        .expect("scene")
        .replace("count = [40, 40, 13]", "count = [8, 8, 4]")
        .replace(
            "gravity = [0.0, 0.0, -9.81]",
            "gravity = [0.0, 0.0, -981.0]",
        )
        .replace("duration = 0.15", "steps = 1000")
        .replace(
            "formats = [\"vtk\"]",
            "formats = [\"vtk\", \"csv\", \"contacts\"]",
        )
        .replace(
            "every = 0.005",
            "every_steps = 250\ncheckpoint_every_steps = 200",
        );
    let path = dir.join("small_settle.toml");
    std::fs::write(&path, text).expect("write scene");
    path.to_string_lossy().into_owned()
}

/// Every file of `dir` by name, with its bytes.
fn dir_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let e = e.expect("entry");
            let bytes = std::fs::read(e.path()).expect("read");
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// Two output directories hold the same files, byte for byte.
fn assert_same_output(a: &Path, b: &Path, what: &str) {
    let (fa, fb) = (dir_files(a), dir_files(b));
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "{what}: the files differ"
    );
    for (name, bytes) in &fa {
        assert!(bytes == &fb[name], "{what}: {name} differs");
    }
}

/// `grains run` of `scene` on the CPU into `out`, quietly, with `more` flags.
fn run_into(scene: &str, out: &Path, more: &[&str]) -> anyhow::Result<()> {
    let o = out.to_string_lossy().into_owned();
    let mut args = vec!["run", scene, "--backend", "cpu", "--out", &o, "-q"];
    args.extend_from_slice(more);
    grains(&args)
}

/// A second run into the directory a run is writing is refused, naming the first (its pid,
/// host, scene and start); the first carries on undisturbed.
#[test]
fn a_second_run_into_a_busy_directory_is_refused_naming_the_first() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = temp_dir("busy");
    let scene = small_settle(&dir);
    // Long enough to be running when the second starts: stopped by its interrupt flag.
    let long = dir.join("long.toml");
    let text = std::fs::read_to_string(&scene)
        .expect("scene")
        .replace("steps = 1000", "steps = 10000000")
        .replace("every_steps = 250", "every_steps = 1000000")
        .replace("checkpoint_every_steps = 200", "");
    std::fs::write(&long, text).expect("write");
    let out = dir.join("out");
    let stop = Arc::new(AtomicBool::new(false));
    let first = {
        let args = grains_cli::run::RunArgs {
            scene: long.clone(),
            backend: Some(grains_cli::BackendArg::Cpu),
            out: Some(out.clone()),
            quiet: true,
            interrupt: Some(stop.clone()),
            ..Default::default()
        };
        std::thread::spawn(move || grains_cli::run::run(&args))
    };
    let lock = out.join(".grains.lock");
    let t0 = std::time::Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("since")) {
        assert!(t0.elapsed().as_secs() < 120, "the first run never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let second = run_into(&scene, &out, &[]);
    stop.store(true, Ordering::SeqCst);
    let first = first.join().expect("first run");
    let e = second.expect_err("a second run into a busy directory");
    let m = format!("{e:#}");
    let holder = format!(
        "{} is in use by another grains run (pid {} on ",
        out.display(),
        std::process::id()
    );
    assert!(
        m.contains(&holder) && m.contains(&format!("scene {}, running since ", long.display())),
        "{m}"
    );
    let stopped = first.expect_err("interrupted");
    assert!(
        stopped
            .downcast_ref::<grains_cli::run::Interrupted>()
            .is_some(),
        "the first run ends as interrupted, not disturbed: {stopped:#}"
    );
    assert!(!lock.exists(), "the lock is released when the run ends");
}

/// A fresh run into the directory of an earlier, longer run leaves none of its frames, rows
/// or checkpoint: the directory is the one a run into an empty one leaves.
#[test]
fn a_fresh_run_leaves_nothing_of_an_earlier_run() {
    let dir = temp_dir("fresh");
    let scene = small_settle(&dir);
    let (reused, clean) = (dir.join("reused"), dir.join("clean"));
    run_into(&scene, &reused, &[]).expect("the earlier run");
    std::fs::write(reused.join("notes.txt"), "mine").expect("a file of the user's");
    run_into(&scene, &reused, &["--steps", "500"]).expect("the later run");
    std::fs::remove_file(reused.join("notes.txt")).expect("the user's file is kept");
    run_into(&scene, &clean, &["--steps", "500"]).expect("a run into an empty directory");
    assert_same_output(&reused, &clean, "a run into an earlier run's directory");
}

/// Ctrl-C (the interrupt flag the binary's handler sets) between two frames, then `--resume`:
/// every file of the output directory is byte for byte the uninterrupted run's (the frame of
/// the interruption, off the output cadence, gone).
#[test]
fn an_interrupted_and_resumed_run_is_byte_for_byte_the_uninterrupted_one() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = temp_dir("ctrl-c");
    let scene = small_settle(&dir);
    let (whole, cut) = (dir.join("whole"), dir.join("cut"));
    run_into(&scene, &whole, &[]).expect("uninterrupted run");
    // Interrupted after the energy line of step 250, the last thing its frame writes: the run
    // is then on its way to step 400, where it stops (between frames). Tried again in the
    // rare case the flag is seen at step 250 itself.
    let mut stopped_at = 0;
    for _ in 0..3 {
        let flag = Arc::new(AtomicBool::new(false));
        let energy = cut.join("energy.csv");
        let _ = std::fs::remove_file(&energy);
        let watcher = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                let t0 = std::time::Instant::now();
                while t0.elapsed().as_secs() < 120 {
                    if std::fs::read_to_string(&energy).is_ok_and(|t| t.contains("\n250,")) {
                        flag.store(true, Ordering::SeqCst);
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
            })
        };
        let args = grains_cli::run::RunArgs {
            scene: scene.clone().into(),
            backend: Some(grains_cli::BackendArg::Cpu),
            out: Some(cut.clone()),
            quiet: true,
            interrupt: Some(flag),
            ..Default::default()
        };
        let e = grains_cli::run::run(&args).expect_err("interrupted");
        watcher.join().expect("watcher");
        stopped_at = e
            .downcast_ref::<grains_cli::run::Interrupted>()
            .unwrap_or_else(|| panic!("not an interruption: {e:#}"))
            .step;
        if stopped_at % 250 != 0 {
            break;
        }
    }
    assert!(
        stopped_at % 250 != 0,
        "stopped at a frame's step {stopped_at}"
    );
    let off_cadence = format!("frame_{stopped_at:08}.vtu");
    assert!(cut.join(&off_cadence).exists(), "the interruption's frame");
    run_into(&scene, &cut, &["--resume"]).expect("resumed run");
    assert_same_output(&whole, &cut, "interrupted and resumed");
}

/// The arguments that make this test binary run [`grains_child_process`] alone.
const CHILD_PROCESS_ARGS: [&str; 5] = [
    "--exact",
    "cli::grains_child_process",
    "--ignored",
    "--nocapture",
    "--test-threads=1",
];

/// Not a test by itself: the `grains` process the tests below start, this test binary run
/// again with `GRAINS_CHILD_ARGS` (the arguments, separated by newlines) set; it exits as the
/// binary does (`grains_cli::exit_status`).
#[test]
#[ignore = "the child process of other tests"]
fn grains_child_process() {
    let Ok(args) = std::env::var("GRAINS_CHILD_ARGS") else {
        return;
    };
    let args = std::iter::once("grains").chain(args.lines());
    std::process::exit(grains_cli::exit_status(grains_cli::main_with_args(args)));
}

/// `grains run` under a file-size limit (`ulimit -f`) its output outgrows: the run is not
/// killed by SIGXFSZ but ends with one message naming the file and the OS error, and with a
/// checkpoint of the step it stopped at; resumed without the limit, its output is byte for
/// byte the uninterrupted run's (the frame cut short written again).
#[test]
fn a_run_past_its_file_size_limit_says_so_and_resumes_exactly() {
    let dir = temp_dir("ulimit");
    let scene = small_settle(&dir);
    let (whole, limited) = (dir.join("whole"), dir.join("limited"));
    run_into(&scene, &whole, &[]).expect("run without a limit");
    let csv = std::fs::metadata(whole.join("particles.csv"))
        .expect("csv")
        .len();
    let ck = std::fs::metadata(whole.join("checkpoint.bin"))
        .expect("ck")
        .len();
    // In KiB (bash's unit): past the checkpoint, short of the whole table.
    let limit = ck.max(csv / 2) / 1024 + 4;
    assert!(
        limit * 1024 < csv,
        "checkpoint {ck} B, particles.csv {csv} B"
    );
    let args = [
        "run",
        &scene,
        "--backend",
        "cpu",
        "--out",
        &limited.to_string_lossy(),
        "-q",
    ]
    .join("\n");
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -f {limit}; exec \"$0\" \"$@\""))
        .arg(exe)
        .args(CHILD_PROCESS_ARGS)
        .env("GRAINS_CHILD_ARGS", args)
        .output()
        .expect("start the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?}: {stderr}", out.status);
    let particles = limited.join("particles.csv");
    let expected = format!(
        "error: cannot write {}: File too large",
        particles.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    let saved = format!(
        "its state saved in {}",
        limited.join("checkpoint.bin").display()
    );
    assert!(stderr.contains(&saved), "{stderr}");
    run_into(&scene, &limited, &["--resume"]).expect("resumed without the limit");
    assert_same_output(&whole, &limited, "stopped by a file-size limit and resumed");
}

/// A command-line mistake is printed with one `error:` before it (clap's message has its
/// own, which the binary's would double).
#[test]
fn a_usage_error_has_one_error_prefix() {
    let e = grains(&["run", "scene.toml", "--steps", "many"]).expect_err("bad --steps");
    let line = grains_cli::error_line(&e);
    assert!(line.starts_with("error: invalid value 'many'"), "{line}");
    assert_eq!(line.matches("error:").count(), 1, "{line}");
}

/// `grains shader SCENE | head`: the reader closes the pipe after a few lines and the command
/// ends quietly with status 0, where printing to the closed pipe panicked (exit 101). The
/// capsules scene's chains are 200 kB of WGSL, past a pipe's 64 kB buffer, so the command is
/// still writing when the pipe closes.
#[test]
fn a_report_into_a_closed_pipe_ends_quietly() {
    use std::io::BufRead;
    let exe = std::env::current_exe().expect("test binary");
    let mut child = std::process::Command::new(exe)
        .args(CHILD_PROCESS_ARGS)
        .env(
            "GRAINS_CHILD_ARGS",
            format!("shader\n{}", scene("capsules.toml")),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the child");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = std::io::BufReader::new(stdout).lines();
    let first: Vec<String> = (&mut lines).take(40).map_while(Result::ok).collect();
    assert!(
        first.iter().any(|l| l.contains("// ==== chain 0")),
        "{first:?}"
    );
    drop(lines);
    let out = child.wait_with_output().expect("the child ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// `grains check` refuses what `grains run` refuses, with the same message, and accepts it
/// with `--allow-unstable` as `run` does: a dt past the Rayleigh limit (which `check` passed
/// with a warning and status 0), impacts deeper than the radius, deep initial overlaps.
#[test]
fn check_refuses_what_run_refuses_with_the_same_message() {
    let base = std::fs::read_to_string(scene("two_spheres_head_on.toml")).expect("scene");
    let cases = [
        (
            "dt above the Rayleigh limit",
            [("dt = \"auto\"", "dt = 1e-3")],
            "Rayleigh time",
        ),
        (
            "impacts deeper than the radius",
            [("young = 1.0e7", "young = 1.0")],
            "would overlap by",
        ),
        (
            "deep initial overlaps",
            [("[-0.0102, 0.0, 0.0], [0.0102", "[-0.008, 0.0, 0.0], [0.008")],
            "overlap",
        ),
    ];
    let dir = temp_dir("check-as-run");
    std::fs::create_dir_all(&dir).expect("dir");
    for (k, (what, edits, words)) in cases.iter().enumerate() {
        let mut text = base.clone();
        for (from, to) in edits {
            assert!(text.contains(from), "{what}: {from}");
            text = text.replace(from, to);
        }
        let path = dir.join(format!("case{k}.toml"));
        std::fs::write(&path, &text).expect("write");
        let p = path.to_string_lossy().into_owned();
        let out = dir.join(format!("out{k}")).to_string_lossy().into_owned();
        let ran = grains(&[
            "run",
            &p,
            "--backend",
            "cpu",
            "--out",
            &out,
            "-q",
            "--steps",
            "1",
        ])
        .expect_err(what);
        let checked = grains(&["check", &p]).expect_err(what);
        let (ran, checked) = (format!("{ran:#}"), format!("{checked:#}"));
        assert!(ran.contains(words), "{what}: run: {ran}");
        assert_eq!(checked, ran, "{what}: check and run disagree");
        if ran.contains("--allow-unstable") {
            grains(&["check", &p, "--allow-unstable"]).unwrap_or_else(|e| panic!("{what}: {e:#}"));
        }
    }
}

/// `check` and `run` state the same counts: the hopper's 1500 beads, the 8000 triangles its
/// mesh wall becomes (fixed particles of the solver, but not particles of the scene) and its
/// two `[[wall]]` blocks, in `check`'s report and in the run's.
#[test]
fn check_and_run_count_the_hopper_alike() {
    let path = workspace_root().join("scenes/hopper.toml");
    let text = grains_cli::check_report(&path, None).expect("check").text;
    let counts = "1500 particles, 8000 mesh triangles, 2 walls";
    assert!(text.contains(&format!("counts      {counts}\n")), "{text}");
    assert!(text.contains("walls       2 ("), "{text}");
    let out = temp_dir("hopper-counts");
    let report = grains_cli::run::run(&grains_cli::run::RunArgs {
        scene: path,
        backend: Some(grains_cli::BackendArg::Cpu),
        out: Some(out.clone()),
        steps: Some(2),
        quiet: true,
        ..Default::default()
    })
    .expect("run");
    assert_eq!(report.counts, counts);
    let _ = std::fs::remove_dir_all(out);
}

/// The frames `check` estimates are those a run writes: the first, every `every_steps`, and
/// the last step where it is not a multiple (10 steps every 3: steps 0, 3, 6, 9 and 10).
#[test]
fn check_estimates_the_frames_a_run_writes() {
    let dir = temp_dir("frames");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("scene.toml");
    let text = std::fs::read_to_string(scene("two_spheres_head_on.toml"))
        .expect("scene")
        .replace("duration = 0.004", "steps = 10")
        .replace("every_steps = 10", "every_steps = 3");
    std::fs::write(&path, text).expect("write");
    let out = dir.join("out");
    let check = grains_cli::check_report(&path, None).expect("check").text;
    let report = grains_cli::run::run(&grains_cli::run::RunArgs {
        scene: path,
        backend: Some(grains_cli::BackendArg::Cpu),
        out: Some(out.clone()),
        quiet: true,
        ..Default::default()
    })
    .expect("run");
    assert_eq!(report.frames, 5);
    assert!(check.contains(" in 5 frames to "), "{check}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `--adapter N|NAME` runs the GPU backend on the adapter it names, by its number in `grains
/// info`'s list or a part of its name, and refuses one it does not name with the list.
#[test]
fn adapter_picks_the_gpu_by_number_or_name() {
    let Some(ctx) = grains_tests::gpu_context() else {
        return;
    };
    let name = ctx.adapter_name();
    drop(ctx);
    let world = || {
        grains_scene::load_scene(Path::new(&scene("two_spheres_head_on.toml")))
            .expect("scene")
            .world
    };
    let list = grains_gpu::list_adapters();
    let at = list.iter().position(|a| a.name == name).expect("listed");
    let part = name
        .split_whitespace()
        .next()
        .unwrap_or(&name)
        .to_lowercase();
    for choice in [at.to_string(), part] {
        let a: grains_gpu::AdapterChoice = choice.parse().expect("choice");
        let (b, message) =
            grains_cli::make_backend_on(world(), grains_cli::BackendArg::Gpu, None, Some(&a))
                .unwrap_or_else(|e| panic!("--adapter {choice}: {e:#}"));
        assert_eq!(b.name(), name, "the GPU backend names its adapter");
        assert!(
            message.contains(&name) && message.contains(&format!("--adapter {choice}")),
            "{message}"
        );
    }
    let far: grains_gpu::AdapterChoice = list.len().to_string().parse().expect("choice");
    let e =
        match grains_cli::make_backend_on(world(), grains_cli::BackendArg::Gpu, None, Some(&far)) {
            Ok(_) => panic!("an adapter past the list was taken"),
            Err(e) => format!("{e:#}"),
        };
    assert!(e.contains("no such adapter") && e.contains(&name), "{e}");
}

/// A node-to-segment penalty too stiff for the given dt is refused before the run, with the
/// step that would do (the penalty counts in the rings' element time).
#[test]
fn a_penalty_too_stiff_for_the_step_is_refused() {
    let dir = temp_dir("stiff-penalty");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(scene("rings.toml")).expect("read");
    let path = dir.join("rings.toml");
    std::fs::write(&path, text.replace("dt = \"auto\"", "dt = 1.0e-5")).expect("write");
    let e = grains(&["check", &path.to_string_lossy()]).expect_err("refused");
    let m = format!("{e:#}");
    assert!(
        m.contains("dt = 1.000e-5 s resolves a collision")
            && m.contains("use `dt = \"auto\"`")
            && m.contains("--allow-unstable"),
        "{m}"
    );
}
