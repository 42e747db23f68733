//! The one error type of grains-plot.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong while plotting a run's output.
///
/// The OS error is part of the message rather than a `#[source]`: callers print these with
/// anyhow's `{:#}`, which would otherwise repeat it.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// An input file is not there; `hint` says what writes it.
    #[error("{} is missing: {hint}", path.display())]
    Missing {
        /// The file looked for.
        path: PathBuf,
        /// Which run option or command writes it.
        hint: String,
    },
    /// An input file is there but could not be read.
    #[error("cannot read {}: {err}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// An input file's content is not what its kind of plot reads. `line` is 1-based; 0 when
    /// the problem is the file as a whole.
    #[error("{}{}: {what}", path.display(), line_suffix(*line))]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line at fault (1 is the header), or 0.
        line: usize,
        /// What is wrong with it.
        what: String,
    },
    /// The destination folder could not be created.
    #[error("cannot create directory {}: {err}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// A figure or its table could not be written.
    #[error("cannot write {}: {err}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// Drawing or encoding a figure failed.
    #[error("cannot draw {}: {what}", path.display())]
    Draw {
        /// The file being drawn.
        path: PathBuf,
        /// What the drawing library said.
        what: String,
    },
}

fn line_suffix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}
