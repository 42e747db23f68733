//! One run an output directory: `DIR/.grains.lock`, held (an advisory lock on the open file)
//! for as long as a run writes there, and naming that run for anyone refused.
//!
//! The lock is the kernel's (`flock`), not the file's existence: a run that dies, however it
//! dies, lets go of it, and the next run takes the stale file over. The file is removed when
//! its run ends, while still held; a run that opened the old file just before then finds its
//! lock on a removed file and opens the path again.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::IoError;

/// Name of the lock file in the output directory.
pub const LOCK_FILE: &str = ".grains.lock";

/// Tries at taking the lock when the file keeps being replaced under it.
const LOCK_TRIES: usize = 8;

/// The lock of an output directory, held until dropped.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    /// Held open: the lock lives as long as this descriptor.
    file: File,
    /// The directory, where taking the lock created it: removed with the lock if nothing was
    /// written there (a run refused before its first file leaves no empty directory behind).
    created: Option<PathBuf>,
}

impl OutputLock {
    /// Lock `dir` (created with its parents if missing) for a run of `scene`, or say which run
    /// holds it: its pid, host, scene and since when.
    pub fn take(dir: &Path, scene: &Path) -> Result<OutputLock, IoError> {
        let created = (!dir.exists()).then(|| dir.to_path_buf());
        fs::create_dir_all(dir).map_err(|err| IoError::CreateDir {
            path: dir.to_path_buf(),
            err,
        })?;
        let path = dir.join(LOCK_FILE);
        for _ in 0..LOCK_TRIES {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(IoError::create(&path))?;
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => {}
                Err(fs4::TryLockError::WouldBlock) => {
                    return Err(IoError::Locked {
                        dir: dir.to_path_buf(),
                        holder: holder(&path),
                    })
                }
                Err(fs4::TryLockError::Error(err)) => return Err(IoError::Lock { path, err }),
            }
            if !same_file(&file, &path) {
                // The run that held it removed it as it ended: ours is a lock on nothing.
                continue;
            }
            let mut lock = OutputLock {
                path,
                file,
                created,
            };
            lock.describe(scene)?;
            return Ok(lock);
        }
        Err(IoError::Lock {
            path,
            err: std::io::Error::other("it was replaced at every try"),
        })
    }

    /// Write who holds the lock, replacing what a run that died left there.
    fn describe(&mut self, scene: &Path) -> Result<(), IoError> {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let text = format!(
            "pid = {}\nhost = {}\nscene = {}\nsince = {since}\n",
            std::process::id(),
            host_name(),
            scene.display()
        );
        self.file
            .set_len(0)
            .and_then(|()| (&self.file).write_all(text.as_bytes()))
            .and_then(|()| self.file.flush())
            .map_err(IoError::write(&self.path))
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still held, so that no other run can lock the file about to vanish
        // and believe itself alone.
        let _ = fs::remove_file(&self.path);
        if let Some(dir) = &self.created {
            // Only an empty directory is removed.
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Whether `file` is still the file at `path`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

/// The machine's name, for the lock's description.
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unknown host".into())
}

/// What the lock file at `path` says of the run holding it: "pid P on H, scene S, since T".
fn holder(path: &Path) -> String {
    let mut text = String::new();
    let _ = File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    let field = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let (Some(pid), Some(host), Some(scene)) = (field("pid"), field("host"), field("scene")) else {
        // Locked, but not described yet (it is being taken this very moment).
        return "a run that is just starting".into();
    };
    let since = field("since")
        .and_then(|s| s.parse::<u64>().ok())
        .map(utc)
        .unwrap_or_else(|| "an unknown time".into());
    format!("pid {pid} on {host}, scene {scene}, running since {since}")
}

/// `secs` after the Unix epoch as `YYYY-MM-DD HH:MM:SS UTC`.
fn utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-03-01 style eras of 400 years (146097 days).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_dates_are_the_calendars() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_709_251_199), "2024-02-29 23:59:59 UTC");
        assert_eq!(utc(4_102_444_800), "2100-01-01 00:00:00 UTC");
    }
}
