//! The Python package's tests (`crates/grains-py/tests`, pytest), run against the extension
//! built from this checkout: the extension module is built with cargo (`grains-py`, the test
//! profile, sharing the workspace's build), staged with the package's Python files, and run
//! by pytest in a virtual environment under `target/` that this test makes once with numpy
//! and pytest from PyPI. Without Python 3 the test is skipped, except under `CI=true`, where
//! it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use grains_tests::workspace_root;

/// The interpreter to make the environment with, if there is one.
fn python() -> Option<String> {
    ["python3", "python"]
        .into_iter()
        .map(String::from)
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `target/python-venv`, made once with numpy and pytest.
fn venv(python: &str, target: &Path) -> PathBuf {
    let venv = target.join("python-venv");
    let bin = venv.join("bin/python");
    let ready = venv.join(".grains-ready");
    if !ready.exists() {
        run(
            Command::new(python).args(["-m", "venv"]).arg(&venv),
            "python -m venv",
        );
        run(
            Command::new(&bin).args(["-m", "pip", "install", "--quiet", "numpy", "pytest"]),
            "pip install numpy pytest",
        );
        std::fs::write(&ready, "numpy pytest\n").expect("mark the environment");
    }
    bin
}

#[test]
fn the_python_package_passes_its_tests() {
    let Some(python) = python() else {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "Python 3 is required under CI (the Python package's tests)"
        );
        eprintln!("skipping the Python package's tests: no Python 3");
        return;
    };
    let root = workspace_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    // The extension, built as the tests are (the test profile shares their dependencies).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(
        Command::new(cargo).current_dir(&root).args([
            "build",
            "--quiet",
            "-p",
            "grains-py",
            "--profile",
            "test",
        ]),
        "cargo build -p grains-py",
    );
    let built = target.join("debug/lib_grains.so");
    assert!(built.exists(), "{} was not built", built.display());
    // The package: its Python files with the extension beside them.
    let stage = target.join("python-stage");
    let pkg = stage.join("grains");
    std::fs::create_dir_all(&pkg).expect("stage");
    let src = root.join("crates/grains-py/python/grains");
    for entry in std::fs::read_dir(&src).expect("package sources").flatten() {
        std::fs::copy(entry.path(), pkg.join(entry.file_name())).expect("copy");
    }
    std::fs::copy(&built, pkg.join("_grains.abi3.so")).expect("copy the extension");
    let bin = venv(&python, &target);
    let mut pytest = Command::new(bin);
    pytest
        .current_dir(&root)
        .env("PYTHONPATH", &stage)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("crates/grains-py/tests"));
    if grains_gpu::GpuContext::new(grains_gpu::AdapterRequest::Any).is_ok() {
        pytest.env("GRAINS_PY_GPU", "1");
    }
    run(&mut pytest, "pytest crates/grains-py/tests");
}
