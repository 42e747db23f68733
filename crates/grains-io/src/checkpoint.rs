//! Checkpoints: a backend's complete state in one binary file, to resume a run.
//!
//! Layout (little-endian): the magic `GRAINSCK`, format version (u32), the world's fingerprint
//! (u64, `World::fingerprint`), the step (u64), the rebuild steps, the removed particles' count
//! (u64) and energy (f64), then each array of
//! [`grains_core::state::STATE_ARRAYS`] in its order as its element count (u64) followed by
//! its raw elements. The file is written beside its final name and renamed over it, so a run
//! killed while writing leaves the previous checkpoint intact.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use bytemuck::Pod;
use grains_core::state::{StateHeader, StateSink, STATE_ARRAYS};
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
const VERSION: u32 = 9;

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

/// The checkpoint file as a [`StateSink`]: the header, then each array's count and bytes.
struct FileSink<W: Write> {
    out: W,
    fingerprint: u64,
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
        out: BufWriter::new(file),
        fingerprint,
    };
    fill(&mut sink)
        .and_then(|()| sink.out.flush())
        .map_err(IoError::write(&tmp))?;
    drop(sink);
    fs::rename(&tmp, path).map_err(|err| IoError::Rename {
        from: tmp,
        to: path.to_path_buf(),
        err,
    })
}

/// Reads through a byte slice, reporting truncation as a checkpoint error.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], IoError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.at..end];
                self.at = end;
                Ok(s)
            }
            None => Err(IoError::Checkpoint {
                path: self.path.to_path_buf(),
                what: format!("truncated at byte {}", self.at),
            }),
        }
    }

    fn u64(&mut self) -> Result<u64, IoError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn array<T: Pod>(&mut self) -> Result<Vec<T>, IoError> {
        let n = self.u64()? as usize;
        let size = n
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| IoError::Checkpoint {
                path: self.path.to_path_buf(),
                what: format!("an array of {n} elements at byte {}", self.at),
            })?;
        Ok(bytemuck::pod_collect_to_vec(self.take(size)?))
    }
}

/// Read a checkpoint: the fingerprint of the world it belongs to, and the state.
pub fn read_checkpoint(path: &Path) -> Result<(u64, BackendState), IoError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|err| IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!("cannot read it: {err}"),
        })?;
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
        path,
    };
    if r.take(8)? != MAGIC {
        return Err(IoError::Checkpoint {
            path: path.to_path_buf(),
            what: "not a grains checkpoint (bad magic)".into(),
        });
    }
    let mut v = [0u8; 4];
    v.copy_from_slice(r.take(4)?);
    let version = u32::from_le_bytes(v);
    if version != VERSION {
        return Err(IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!("format version {version}, this grains reads version {VERSION}"),
        });
    }
    let fingerprint = r.u64()?;
    let step = r.u64()?;
    let rebuild_steps = r.array()?;
    let removed = r.u64()?;
    let removed_energy = f64::from_bits(r.u64()?);
    let inserted = r.u64()?;
    let inserted_energy = f64::from_bits(r.u64()?);
    let mut state = BackendState {
        step,
        rebuild_steps,
        removed,
        removed_energy,
        inserted,
        inserted_energy,
        ..Default::default()
    };
    for a in STATE_ARRAYS {
        let n = r.u64()? as usize;
        let at = r.at;
        let size = n.checked_mul(a.elem).ok_or_else(|| IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!("an array of {n} elements at byte {at}"),
        })?;
        let bytes = r.take(size)?;
        state
            .set_array_bytes(a.name, bytes)
            .map_err(|e| IoError::Checkpoint {
                path: path.to_path_buf(),
                what: e.to_string(),
            })?;
    }
    if r.at != bytes.len() {
        return Err(IoError::Checkpoint {
            path: path.to_path_buf(),
            what: format!("{} bytes after the last array", bytes.len() - r.at),
        });
    }
    Ok((fingerprint, state))
}
