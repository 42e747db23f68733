//! Checkpoints: a backend's complete state in one binary file, to resume a run.
//!
//! Layout (little-endian): the magic `GRAINSCK`, format version (u32), the world's fingerprint
//! (u64, `World::fingerprint`), the step (u64), the rebuild steps, the removed particles' count
//! (u64) and energy (f64), then each array of
//! [`grains_core::state::STATE_ARRAYS`] in its order as its element count (u64) followed by
//! its raw elements, and last the CRC-32 (IEEE) of every byte before it (u32). The checksum is
//! computed as the file is written and checked before anything of it is believed: a flipped
//! bit is refused, never resumed into another trajectory. The file is written beside its
//! final name and renamed over it, so a run killed while writing leaves the previous
//! checkpoint intact.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bytemuck::Pod;
use grains_core::state::{StateArray, StateHeader, StateSink, StateSource, STATE_ARRAYS};
use grains_core::{Backend, BackendState};

use crate::error::IoError;

/// Name of the checkpoint in the output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";

const MAGIC: &[u8; 8] = b"GRAINSCK";
// 2: history records laid out per chain from its laws (words), parameters per chain.
// 3: the fixed-topology source's history and slots, parameter blocks per pair source.
// 4: the count and energy of particles removed from the run.
// 6: the count and energy of particles inserted, walls and the work moving walls did.
// 5: the shells' state (edge rest lengths, edge records, volumes).
// 7: wall pairs are neighbour-list entries (no `wall_history`, `wall_slots`).
// 8: history, slots and flags per pair (record), `nbr_pair` in place of `nbr_mirror`.
// 9: slots and history only for records in contact, packed in record order (`nbr_slot`
//    names each).
// 10: no `nbr_i` (each entry's owner is the particle whose range of `nbr_start` holds it).
// 11: the CRC-32 of the file at its end.
// 12: the work kinematic particles did (`kinematic_work`, after `wall_work`).
// 13: where the walls' motions count from (`wall_origin`, last), which servos re-base.
// 14: the forces applied to the particles (`applied_force`, before `kinematic_work`).
const VERSION: u32 = 14;
/// The version before, still read: version 14 without `applied_force` (none held).
const VERSION_UNFORCED: u32 = 13;
/// The version before that, still read: version 13 without `wall_origin` (the world's walls').
const VERSION_UNSTEERED: u32 = 12;
/// The version before that, still read: version 12 without `kinematic_work` (taken up as zero).
const VERSION_UNBOOKED: u32 = 11;
/// The version before that, still read: version 11 without its checksum.
const VERSION_UNCHECKED: u32 = 10;
/// The version before that, still read: the arrays of version 10 with each entry's owner
/// (`nbr_i`, u32 per entry) after `nbr_start`, which the reader skips; no checksum.
const VERSION_WITH_OWNERS: u32 = 9;
/// Bytes of the checksum at the end of a checkpoint of [`VERSION`].
const CHECKSUM_BYTES: u64 = 4;

fn put<T: Pod>(out: &mut impl Write, a: &[T]) -> std::io::Result<()> {
    out.write_all(&(a.len() as u64).to_le_bytes())?;
    out.write_all(bytemuck::cast_slice(a))
}

/// Write `state` of the world with `fingerprint` to `path` (atomically).
pub fn write_checkpoint(
    path: &Path,
    fingerprint: u64,
    state: &BackendState,
) -> Result<(), IoError> {
    write_checkpoint_with(path, fingerprint, |sink| state.stream(sink))
}

/// Write the state of `backend` (the world with `fingerprint`) to `path` (atomically), as the
/// backend hands it out piece by piece ([`Backend::stream_state`]): the same file as
/// [`write_checkpoint`] of its [`Backend::state`], without holding the state twice where the
/// backend streams it (the CPU backend).
pub fn write_backend_checkpoint(
    path: &Path,
    fingerprint: u64,
    backend: &mut dyn Backend,
) -> Result<(), IoError> {
    write_checkpoint_with(path, fingerprint, |sink| backend.stream_state(sink))
}

/// The checkpoint file as a [`StateSink`]: the header, then each array's count and bytes,
/// each byte also fed to the checksum.
struct FileSink<W: Write> {
    out: Checksummed<W>,
    fingerprint: u64,
}

/// A writer that keeps the CRC-32 of the bytes it has passed on.
struct Checksummed<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        // Only what was taken: a short write hands the rest over again.
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> StateSink for FileSink<W> {
    fn header(&mut self, h: &StateHeader) -> std::io::Result<()> {
        let out = &mut self.out;
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&self.fingerprint.to_le_bytes())?;
        out.write_all(&h.step.to_le_bytes())?;
        put(out, &h.rebuild_steps)?;
        out.write_all(&h.removed.to_le_bytes())?;
        out.write_all(&h.removed_energy.to_le_bytes())?;
        out.write_all(&h.inserted.to_le_bytes())?;
        out.write_all(&h.inserted_energy.to_le_bytes())
    }

    fn array(&mut self, _name: &'static str, elements: u64) -> std::io::Result<()> {
        self.out.write_all(&elements.to_le_bytes())
    }

    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)
    }
}

/// Write a checkpoint whose state `fill` hands to its sink, beside `path` and renamed over it.
fn write_checkpoint_with(
    path: &Path,
    fingerprint: u64,
    fill: impl FnOnce(&mut dyn StateSink) -> std::io::Result<()>,
) -> Result<(), IoError> {
    let tmp = path.with_extension("bin.tmp");
    let file = File::create(&tmp).map_err(IoError::create(&tmp))?;
    let mut sink = FileSink {
        out: Checksummed {
            inner: BufWriter::new(file),
            crc: crc32fast::Hasher::new(),
        },
        fingerprint,
    };
    let written = fill(&mut sink).and_then(|()| {
        let crc = sink.out.crc.clone().finalize();
        sink.out.inner.write_all(&crc.to_le_bytes())?;
        sink.out.inner.flush()?;
        // On disk before it replaces the previous checkpoint: a crash after the rename must
        // not leave a file whose blocks never reached the disk.
        sink.out.inner.get_ref().sync_all()
    });
    drop(sink);
    if let Err(err) = written {
        // The previous checkpoint stays; the partial copy goes.
        let _ = fs::remove_file(&tmp);
        return Err(IoError::Write { path: tmp, err });
    }
    fs::rename(&tmp, path).map_err(|err| IoError::Rename {
        from: tmp,
        to: path.to_path_buf(),
        err,
    })
}

/// Reads a checkpoint file front to back, each array straight into its elements (the file is
/// never held whole: a resumed run's peak is its state, not its state and its file), reporting
/// truncation as a checkpoint error before it allocates what the file cannot hold.
struct Reader {
    r: BufReader<File>,
    at: u64,
    len: u64,
    path: PathBuf,
}

impl Reader {
    fn error(&self, what: String) -> IoError {
        IoError::Checkpoint {
            path: self.path.clone(),
            what,
        }
    }

    /// Whether `n` more bytes are in the file: a length read from a damaged file is refused
    /// before anything is allocated for it.
    fn room(&self, n: u64) -> Result<(), IoError> {
        match self.at.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(self.error(format!("truncated at byte {}", self.at))),
        }
    }

    fn fill(&mut self, buf: &mut [u8]) -> Result<(), IoError> {
        self.room(buf.len() as u64)?;
        if let Err(err) = self.r.read_exact(buf) {
            return Err(self.error(format!("cannot read it: {err}")));
        }
        self.at += buf.len() as u64;
        Ok(())
    }

    fn u64(&mut self) -> Result<u64, IoError> {
        let mut a = [0u8; 8];
        self.fill(&mut a)?;
        Ok(u64::from_le_bytes(a))
    }

    /// An array's byte length, `n` elements of `elem` bytes, refused where the file is shorter.
    fn sized(&self, n: u64, elem: usize) -> Result<usize, IoError> {
        let size = n
            .checked_mul(elem as u64)
            .ok_or_else(|| self.error(format!("an array of {n} elements at byte {}", self.at)))?;
        self.room(size)?;
        Ok(size as usize)
    }

    /// Pass over an array of `elem`-byte elements without keeping it.
    fn skip_array(&mut self, elem: usize) -> Result<(), IoError> {
        let n = self.u64()?;
        let size = self.sized(n, elem)? as u64;
        let skipped = std::io::copy(&mut (&mut self.r).take(size), &mut std::io::sink());
        match skipped {
            Ok(k) if k == size => {}
            Ok(_) => return Err(self.error(format!("truncated at byte {}", self.at))),
            Err(err) => return Err(self.error(format!("cannot read it: {err}"))),
        }
        self.at += size;
        Ok(())
    }

    fn array<T: Pod>(&mut self) -> Result<Vec<T>, IoError> {
        let n = self.u64()?;
        self.sized(n, std::mem::size_of::<T>())?;
        let mut v = vec![T::zeroed(); n as usize];
        self.fill(bytemuck::cast_slice_mut(&mut v))?;
        Ok(v)
    }
}

/// Read a checkpoint: the fingerprint of the world it belongs to, and the state.
pub fn read_checkpoint(path: &Path) -> Result<(u64, BackendState), IoError> {
    let ck = open_checkpoint(path)?;
    let fingerprint = ck.fingerprint;
    Ok((fingerprint, ck.read_state()?))
}

/// A checkpoint whose header is read ([`open_checkpoint`]): its arrays follow, to read whole
/// ([`CheckpointArrays::read_state`]) or one at a time as a [`StateSource`] (then
/// [`CheckpointArrays::finish`]), which lets the CPU backend take each up as it comes.
pub struct CheckpointArrays {
    r: Reader,
    version: u32,
    /// The fingerprint of the world it was written for ([`grains_core::World::fingerprint`]).
    pub fingerprint: u64,
    /// The state's scalars.
    pub header: StateHeader,
}

/// Check the checksum at the end of `r`'s file against the CRC-32 of every byte before it,
/// read through once; then `r` is where it was, and its file ends before the checksum.
fn verify_checksum(r: &mut Reader) -> Result<(), IoError> {
    let damaged = |r: &Reader| r.error("checksum mismatch: the file is damaged".into());
    let Some(body) = r.len.checked_sub(CHECKSUM_BYTES).filter(|&b| b >= r.at) else {
        return Err(damaged(r));
    };
    let read_err = |r: &Reader, err: std::io::Error| r.error(format!("cannot read it: {err}"));
    let mut crc = crc32fast::Hasher::new();
    let mut file = r.r.get_ref();
    file.seek(SeekFrom::Start(0))
        .map_err(|err| read_err(r, err))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut left = body;
    while left > 0 {
        let n = buf.len().min(left as usize);
        file.read_exact(&mut buf[..n])
            .map_err(|err| read_err(r, err))?;
        crc.update(&buf[..n]);
        left -= n as u64;
    }
    let mut stored = [0u8; CHECKSUM_BYTES as usize];
    file.read_exact(&mut stored)
        .map_err(|err| read_err(r, err))?;
    if u32::from_le_bytes(stored) != crc.finalize() {
        return Err(damaged(r));
    }
    // Back to where the header's reading stopped; the arrays end where the checksum starts.
    r.r.seek(SeekFrom::Start(r.at))
        .map_err(|err| read_err(r, err))?;
    r.len = body;
    Ok(())
}

/// Open a checkpoint and read its header (magic, version, fingerprint, the state's scalars).
/// A checkpoint of the current format is checked against its checksum first, all of it: a
/// damaged file is refused before any of it is used.
pub fn open_checkpoint(path: &Path) -> Result<CheckpointArrays, IoError> {
    let file = File::open(path)
        .and_then(|f| Ok((f.metadata()?.len(), f)))
        .map_err(|err| IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!("cannot read it: {err}"),
        });
    let (len, file) = file?;
    let mut r = Reader {
        r: BufReader::new(file),
        at: 0,
        len,
        path: path.to_path_buf(),
    };
    let mut magic = [0u8; 8];
    if len >= 8 {
        r.fill(&mut magic)?;
    }
    if &magic != MAGIC {
        return Err(IoError::Checkpoint {
            path: path.to_path_buf(),
            what: "not a grains checkpoint (bad magic)".into(),
        });
    }
    let mut v = [0u8; 4];
    r.fill(&mut v)?;
    let version = u32::from_le_bytes(v);
    if ![
        VERSION_WITH_OWNERS,
        VERSION_UNCHECKED,
        VERSION_UNBOOKED,
        VERSION_UNSTEERED,
        VERSION_UNFORCED,
        VERSION,
    ]
    .contains(&version)
    {
        return Err(IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!(
                "format version {version}, this grains reads versions {VERSION_WITH_OWNERS} to \
                 {VERSION}"
            ),
        });
    }
    if version >= VERSION_UNBOOKED {
        verify_checksum(&mut r)?;
    }
    let fingerprint = r.u64()?;
    let step = r.u64()?;
    let rebuild_steps = r.array()?;
    let removed = r.u64()?;
    let removed_energy = f64::from_bits(r.u64()?);
    let inserted = r.u64()?;
    let inserted_energy = f64::from_bits(r.u64()?);
    Ok(CheckpointArrays {
        r,
        version,
        fingerprint,
        header: StateHeader {
            step,
            rebuild_steps,
            removed,
            removed_energy,
            inserted,
            inserted_energy,
        },
    })
}

impl CheckpointArrays {
    /// Every array, into a whole state.
    pub fn read_state(mut self) -> Result<BackendState, IoError> {
        let mut state = BackendState::with_header(std::mem::take(&mut self.header));
        for a in STATE_ARRAYS {
            let n = self.count(a)?;
            let path = self.r.path.clone();
            let unknown = |e: grains_core::CoreError| IoError::Checkpoint {
                path,
                what: e.to_string(),
            };
            state.fill_array(a.name, n, |bytes| self.r.fill(bytes), unknown)?;
        }
        self.finish()?;
        Ok(state)
    }

    /// After the last array: nothing may follow it.
    pub fn finish(self) -> Result<(), IoError> {
        if self.r.at != self.r.len {
            return Err(self.r.error(format!(
                "{} bytes after the last array",
                self.r.len - self.r.at
            )));
        }
        Ok(())
    }
}

impl StateSource for CheckpointArrays {
    type Error = IoError;

    fn count(&mut self, a: &StateArray) -> Result<usize, IoError> {
        if self.version == VERSION_WITH_OWNERS && a.name == "nbr_j" {
            self.r.skip_array(4)?;
        }
        // Not in the file before version 12: none, which a backend takes up as zero.
        if self.version < VERSION_UNSTEERED && a.name == "kinematic_work" {
            return Ok(0);
        }
        // Not before version 13: none, which a backend takes up as the world's walls.
        if self.version < VERSION_UNFORCED && a.name == "wall_origin" {
            return Ok(0);
        }
        // Not before version 14: none, no force held.
        if self.version < VERSION && a.name == "applied_force" {
            return Ok(0);
        }
        let n = self.r.u64()?;
        self.r.sized(n, a.elem)?;
        Ok(n as usize)
    }

    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), IoError> {
        self.r.fill(bytes)
    }

    fn bad(&self, e: grains_core::CoreError) -> IoError {
        self.r.error(e.to_string())
    }
}
