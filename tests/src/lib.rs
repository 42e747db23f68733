//! Shared helpers of the grains test suite.

use std::path::PathBuf;

/// The workspace root (where `scenes/` and `shaders/` live).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_default()
}

/// Whether a missing GPU adapter must fail the run (CI, or asked for explicitly).
pub fn gpu_required() -> bool {
    std::env::var("CI")
        .map(|v| v == "true" || v == "1")
        .unwrap_or(false)
        || std::env::var("GRAINS_REQUIRE_GPU")
            .map(|v| v == "1")
            .unwrap_or(false)
}

pub mod scenes;
pub mod worlds;

/// A scene that blows up: three glass spheres started deeply overlapped in a small walled box
/// (allowed by `max_initial_overlap = 2.0`), at a dt 40 times the automatic one, with CSV
/// frames every 100 steps.
pub const BLOW_UP_SCENE: &str = r#"
[simulation]
duration = 20.0
dt = 2e-3
gravity = [0.0, 0.0, -9.81]
max_initial_overlap = 2.0
[domain]
min = [-0.03, -0.03, -0.03]
max = [0.03, 0.03, 0.03]
[[material]]
name = "glass"
density = 2500.0
young = 1.0e7
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.01
positions = [[-0.002, 0.0, 0.0], [0.002, 0.001, 0.0], [0.0, 0.0, 0.015]]
[[wall]]
box = { min = [-0.03, -0.03, -0.03], max = [0.03, 0.03, 0.03] }
material = "glass"
[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
[output]
every_steps = 100
formats = ["csv"]
"#;

/// The backends a scene test runs on: the CPU, and the GPU when an adapter is there (a missing
/// one fails under CI, see [`gpu_required`]).
pub fn scene_backends() -> Vec<&'static str> {
    let gpu = grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any).is_ok();
    assert!(gpu || !gpu_required(), "no GPU adapter under CI");
    if gpu {
        vec!["cpu", "gpu"]
    } else {
        eprintln!("skipping the GPU run: no adapter");
        vec!["cpu"]
    }
}

/// Run `scenes/<name>` to its end on `backend` (quiet) into a fresh temporary folder, which is
/// returned.
pub fn run_scene(name: &str, backend: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "grains-scene-{}-{backend}-{}",
        name.trim_end_matches(".toml"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    run_scene_file(&workspace_root().join("scenes").join(name), backend, &dir);
    dir
}

/// `grains run <scene> --backend <backend> --out <out> -q`, panicking with the error.
pub fn run_scene_file(scene: &std::path::Path, backend: &str, out: &std::path::Path) {
    let args = [
        "grains",
        "run",
        &scene.to_string_lossy(),
        "--backend",
        backend,
        "--out",
        &out.to_string_lossy(),
        "-q",
    ]
    .map(String::from);
    grains_cli::main_with_args(args.to_vec())
        .unwrap_or_else(|e| panic!("{}: {e:#}", scene.display()));
}

/// The world of scene text `text`, read as if from `file` (for relative paths), panicking with
/// the scene error.
pub fn scene_world(text: &str, file: &std::path::Path) -> grains_core::World {
    grains_scene::parse_scene(text, file)
        .unwrap_or_else(|e| panic!("{e}"))
        .world
}

/// The world of scene text `text` with no file of its own (`<test>`).
pub fn test_world(text: &str) -> grains_core::World {
    scene_world(text, std::path::Path::new("<test>"))
}

/// A GPU context, or `None` where no adapter is (a failure under CI, see [`gpu_required`]).
pub fn gpu_context() -> Option<grains_gpu::GpuContext> {
    match grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any) {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(!gpu_required(), "a GPU adapter is required: {e}");
            eprintln!("skipping the GPU part: {e}");
            None
        }
    }
}

/// The numeric rows of a CSV file written by a run (header skipped).
pub fn csv_rows(path: &std::path::Path) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().expect("number")).collect())
        .collect()
}
