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

#[test]
fn check_validates_every_scene_and_its_chains() {
    for entry in std::fs::read_dir(workspace_root().join("scenes")).expect("scenes/") {
        let p = entry.expect("entry").path();
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
        "step,time,kinetic,rotational,gravitational,elastic,damping_dissipated,friction_dissipated,total,removed,wall_work,inserted"
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
            pvd.matches("<DataSet").count(),
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

/// The minimal scene the README shows is a valid scene.
#[test]
fn readme_scene_is_valid() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README");
    let start = readme.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let end = start + readme[start..].find("```").expect("its end");
    let scene = grains_scene::parse_scene(&readme[start..end], Path::new("README.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.world.particles.len(), 40 * 40 * 60);
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
        assert_eq!(header, "step,time,i,j,overlap,fn,ft,nx,ny,nz,bond");
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
