//! The one error type of the crate.

use std::path::PathBuf;

use grains_core::CoreError;
use thiserror::Error;

/// Everything that can be wrong with a scene. Every variant that comes from the file's content
/// carries the file, the 1-based line and column, and the key path (e.g. `material[1].young`),
/// and its message says what was expected.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The scene file itself could not be read.
    ///
    /// The OS error is part of the message rather than a `#[source]`, so that anyhow's `{:#}`
    /// says it once.
    #[error("{}: cannot read the scene file: {err}", path.display())]
    Read { path: PathBuf, err: std::io::Error },
    /// A `--set PATH=VALUE` override that cannot be applied to the scene.
    #[error("{}: --set {set}: {message}", file.display())]
    Override {
        file: PathBuf,
        set: String,
        message: String,
    },
    /// A value, key or table of the scene is wrong (including TOML syntax errors, whose key
    /// is empty, and errors inside a `file =` particle file, whose message names that file
    /// and its own line).
    #[error("{}:{line}:{column}: {}{message}", file.display(), key_prefix(key))]
    Invalid {
        file: PathBuf,
        line: usize,
        column: usize,
        key: String,
        message: String,
    },
    /// grains-core rejected the assembled world; located at the scene part that caused it.
    #[error("{}:{line}:{column}: {}{err}", file.display(), key_prefix(key))]
    Core {
        file: PathBuf,
        line: usize,
        column: usize,
        key: String,
        err: CoreError,
    },
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("{key}: ")
    }
}

impl SceneError {
    /// 1-based line in the scene file, if the error has a place there.
    pub fn line(&self) -> Option<usize> {
        match self {
            SceneError::Read { .. } | SceneError::Override { .. } => None,
            SceneError::Invalid { line, .. } | SceneError::Core { line, .. } => Some(*line),
        }
    }

    /// 1-based column (in characters) in the scene file, if the error has a place there.
    pub fn column(&self) -> Option<usize> {
        match self {
            SceneError::Read { .. } | SceneError::Override { .. } => None,
            SceneError::Invalid { column, .. } | SceneError::Core { column, .. } => Some(*column),
        }
    }

    /// Key path of the offending value (empty for TOML syntax errors).
    pub fn key(&self) -> Option<&str> {
        match self {
            SceneError::Read { .. } | SceneError::Override { .. } => None,
            SceneError::Invalid { key, .. } | SceneError::Core { key, .. } => Some(key),
        }
    }
}
