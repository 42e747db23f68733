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

pub mod worlds;
