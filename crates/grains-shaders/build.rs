//! Embeds every `.wgsl` file under the workspace's `shaders/` directory, so that composed
//! kernels do not depend on the working directory of the program that uses this crate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            println!("cargo:rerun-if-changed={}", path.display());
            let rel = path.strip_prefix(root).expect("under shaders/");
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../../shaders");
    let root = root
        .canonicalize()
        .unwrap_or_else(|e| panic!("cannot find {}: {e}", root.display()));
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut src = String::from("/// Every WGSL file under `shaders/`, by path relative to it.\n");
    src.push_str("pub(crate) static FILES: &[(&str, &str)] = &[\n");
    for (rel, path) in &files {
        writeln!(
            src,
            "    ({rel:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("write to String");
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("files.rs");
    std::fs::write(&out, src).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
