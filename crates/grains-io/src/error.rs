//! The one error type of grains-io.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong while writing output.
///
/// The OS error is part of the message rather than a `#[source]`: callers print these with
/// anyhow's `{:#}`, which would otherwise repeat it.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The output directory could not be created (a regular file in the way, no permission...).
    #[error("cannot create directory {}: {err}", path.display())]
    CreateDir {
        /// The directory asked for.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// A file could not be created or truncated.
    #[error("cannot create {}: {err}", path.display())]
    Create {
        /// The file asked for.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// Writing or flushing a file failed (disk full, quota...).
    #[error("cannot write {}: {err}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// Reading a file back failed (a resumed run's CSV table).
    #[error("cannot read {}: {err}", path.display())]
    Read {
        /// The file being read.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// Removing a file of an earlier run (or one a resumed run takes back) failed.
    #[error("cannot remove {}: {err}", path.display())]
    Remove {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// Replacing a file by its freshly written copy failed.
    #[error("cannot rename {} to {}: {err}", from.display(), to.display())]
    Rename {
        /// The temporary copy.
        from: PathBuf,
        /// The file it should have replaced.
        to: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// A checkpoint that cannot be read back.
    #[error("checkpoint {}: {what}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// Another run writes to the output directory.
    #[error(
        "{} is in use by another grains run ({holder}): wait for it to end, or write this run's \
         output to another directory",
        dir.display()
    )]
    Locked {
        /// The output directory.
        dir: PathBuf,
        /// Which run holds it: pid, host, scene and since when.
        holder: String,
    },
    /// The lock file could not be locked (a file system without locks...).
    #[error("cannot lock {}: {err}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What the OS said.
        err: io::Error,
    },
    /// A resumed run's output that does not fit its checkpoint, or cannot be read as grains
    /// wrote it.
    #[error("cannot resume into {}: {what}", path.display())]
    Resume {
        /// The file at fault.
        path: PathBuf,
        /// What is wrong, and what would be right.
        what: String,
    },
    /// A snapshot (or the id list passed with it) whose arrays disagree in length.
    #[error(
        "snapshot of step {step}: `{field}` has {got} entries but there are {expected} particles"
    )]
    Snapshot {
        /// The snapshot's step.
        step: u64,
        /// The array that is off.
        field: &'static str,
        /// The particle count, from `pos`.
        expected: usize,
        /// Its length.
        got: usize,
    },
}

impl IoError {
    pub(crate) fn create(path: &std::path::Path) -> impl FnOnce(io::Error) -> IoError + '_ {
        move |err| IoError::Create {
            path: path.to_path_buf(),
            err,
        }
    }

    pub(crate) fn write(path: &std::path::Path) -> impl FnOnce(io::Error) -> IoError + '_ {
        move |err| IoError::Write {
            path: path.to_path_buf(),
            err,
        }
    }
}
