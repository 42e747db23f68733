//! What a run finds in its output directory: an earlier run's files, cleared by a fresh run;
//! its own output up to its checkpoint, checked and cut back to it by a resumed run.
//!
//! A resumed run's output must be, byte for byte, what the run would have written without
//! stopping: every table's rows and every `.pvd` frame up to the checkpoint's step are kept
//! (all of them there, or the resume is refused: lost frames cannot be written again), and
//! whatever was written after the checkpoint, or off the output cadence (the frame of an
//! interruption, the last frame of a shorter run), is removed. A frame of the checkpoint's
//! own step that was cut short (the run stopped while writing it) is written again from the
//! checkpoint.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::error::IoError;
use crate::{
    OutputOptions, BROKEN_BONDS_CSV, BROKEN_BONDS_HEADER, CHECKPOINT_FILE, CONTACTS_CSV,
    CONTACTS_HEADER, ENERGY_CSV, ENERGY_HEADER, PARTICLES_CSV, PARTICLES_PVD, STRESS_CSV,
    STRESS_HEADER, WALLS_CSV, WALLS_HEADER,
};

/// Where a resumed run starts, and what its output up to there must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumePoint {
    /// The checkpoint's step.
    pub step: u64,
    /// Steps between output frames.
    pub every: u64,
    /// The run's last step: its frame is written whatever the cadence.
    pub last: u64,
    /// Rows of `particles.csv` in the frame of the checkpoint's step (its particles, less
    /// the triangles of mesh walls).
    pub frame_rows: u64,
    /// Whether every frame has rows in `particles.csv` (no particle is inserted, so none of
    /// the frames before had fewer particles than `frame_rows > 0`): then a step missing from
    /// it is a lost frame.
    pub rows_every_frame: bool,
}

impl ResumePoint {
    fn every(&self) -> u64 {
        self.every.max(1)
    }

    /// Whether the run writes a frame at step `t`.
    fn on_cadence(&self, t: u64) -> bool {
        t.is_multiple_of(self.every()) || t == self.last
    }

    /// The frame step after `t`.
    fn next_frame(&self, t: u64) -> u64 {
        let next = (t / self.every() + 1) * self.every();
        if t < self.last && self.last < next {
            self.last
        } else {
            next
        }
    }

    /// The last frame step up to the checkpoint's.
    fn last_frame(&self) -> u64 {
        if self.on_cadence(self.step) {
            self.step
        } else {
            self.step / self.every() * self.every()
        }
    }

    /// The frame step before the checkpoint's (None at step 0).
    fn frame_before(&self) -> Option<u64> {
        (self.step > 0).then(|| (self.step - 1) / self.every() * self.every())
    }
}

/// How the output of a resumed run was taken back.
pub struct Resumed {
    /// The writer, continuing after the rows kept.
    pub writer: crate::OutputWriter,
    /// The frame of the checkpoint's step was cut short and its rows removed: the run writes
    /// it again before its first step.
    pub rewrite_frame: bool,
    /// `broken_bonds.csv` keeps the bonds broken up to this step (none: no row kept); those
    /// broken later are to be logged again.
    pub bonds_through: Option<u64>,
}

/// What a table's rows hold, as grains writes them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// One row or more at every frame step (energy, wall loads; particles where none is
    /// inserted).
    EveryFrame,
    /// Rows at frame steps, but a frame may have none (contacts; particles where some are
    /// inserted).
    SomeFrames,
    /// Rows at any step, each when its event happened (broken bonds).
    Events,
}

/// A table as found: where to cut it, and which frames it holds.
struct Scan {
    path: PathBuf,
    rows: Rows,
    /// Bytes of the header and the rows of steps up to the checkpoint's.
    through: u64,
    /// Bytes of the header and the rows of steps before the checkpoint's.
    before: u64,
    /// The last step kept.
    last: Option<u64>,
    /// Rows of the checkpoint's step.
    rows_at_step: u64,
    /// The rows of the checkpoint's step end in a row cut short.
    cut_at_step: bool,
}

impl Scan {
    /// Whether the table holds the frames up to the checkpoint's step: `Ok(true)` where only
    /// the frame of that step is missing or cut short (to be written again); an error saying
    /// what is lost otherwise.
    fn frame_missing(&self, at: &ResumePoint, expected_rows: Option<u64>) -> Result<bool, IoError> {
        let short = expected_rows.is_some_and(|n| self.rows_at_step < n) || self.cut_at_step;
        if self.rows != Rows::EveryFrame {
            return Ok(short && at.on_cadence(at.step));
        }
        let want = at.last_frame();
        if self.last == Some(want) && !(want == at.step && short) {
            return Ok(false);
        }
        let only_this = want == at.step
            && (self.last == at.frame_before() || (self.last == Some(want) && short));
        if only_this {
            return Ok(true);
        }
        let holds = match self.last {
            Some(l) => format!("it ends at step {l}"),
            None => "it holds no rows".into(),
        };
        Err(behind(&self.path, &holds, at))
    }
}

/// The refusal of an output behind its checkpoint.
fn behind(path: &Path, holds: &str, at: &ResumePoint) -> IoError {
    IoError::Resume {
        path: path.to_path_buf(),
        what: format!(
            "{holds}, but the checkpoint is at step {}: the frames in between are lost and \
             cannot be written again; run without --resume to start over",
            at.step
        ),
    }
}

/// Read `path`, a table of `header`, up to the checkpoint's step: checked row by row (text,
/// its field count, steps in order, every frame there where `rows` says so), the first row
/// after `keep_through` or off the cadence ending it (rows after it are the run's after the
/// checkpoint). A row cut short at the end of the file (a run stopped mid-write) is not kept.
fn scan_table(
    path: PathBuf,
    header: &str,
    rows: Rows,
    at: &ResumePoint,
    keep_through: Option<u64>,
) -> Result<Scan, IoError> {
    let bad = |line: usize, what: String| IoError::Resume {
        path: path.clone(),
        what: format!(
            "line {line} {what}: the file is damaged or holds another run's rows; run without \
             --resume to start over"
        ),
    };
    let file = File::open(&path).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => behind(&path, "it is missing", at),
        _ => IoError::Read {
            path: path.clone(),
            err,
        },
    })?;
    let mut r = BufReader::new(file);
    let mut line = Vec::new();
    let read = |r: &mut BufReader<File>, line: &mut Vec<u8>| {
        line.clear();
        r.read_until(b'\n', line).map_err(|err| IoError::Read {
            path: path.clone(),
            err,
        })
    };
    let mut offset = read(&mut r, &mut line)? as u64;
    if line != format!("{header}\n").as_bytes() {
        return Err(bad(1, format!("is not the header `{header}`")));
    }
    let fields = header.split(',').count();
    let mut scan = Scan {
        path: path.clone(),
        rows,
        through: offset,
        before: offset,
        last: None,
        rows_at_step: 0,
        cut_at_step: false,
    };
    let mut next_frame = 0;
    for number in 2.. {
        let n = read(&mut r, &mut line)? as u64;
        if n == 0 {
            break;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            return Err(bad(number, "is not text".into()));
        };
        let step = text.split(',').next().and_then(|s| s.parse::<u64>().ok());
        let kept = |s: u64| {
            keep_through.is_some_and(|k| s <= k) && (rows == Rows::Events || at.on_cadence(s))
        };
        if !text.ends_with('\n') {
            // Cut short: lost where the run resumes after its step.
            match step {
                Some(s) if kept(s) && s == at.step => scan.cut_at_step = true,
                Some(s) if kept(s) && s < at.step => {
                    return Err(behind(&path, &format!("its row {number} is cut short"), at))
                }
                _ => {}
            }
            break;
        }
        let got = text.split(',').count();
        if got != fields {
            return Err(bad(
                number,
                format!("has {got} fields, `{header}` {fields}"),
            ));
        }
        let Some(step) = step else {
            return Err(bad(number, "does not begin with a step".into()));
        };
        if let Some(last) = scan.last.filter(|&l| step < l) {
            return Err(bad(number, format!("is of step {step}, after step {last}")));
        }
        if !kept(step) {
            break;
        }
        if rows == Rows::EveryFrame && scan.last != Some(step) {
            if step != next_frame {
                return Err(behind(
                    &path,
                    &format!("it has no rows of step {next_frame}"),
                    at,
                ));
            }
            next_frame = at.next_frame(step);
        }
        scan.last = Some(step);
        offset += n;
        scan.through = offset;
        if step < at.step {
            scan.before = offset;
        } else {
            scan.rows_at_step += 1;
        }
    }
    Ok(scan)
}

/// A file grains writes in the output directory, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// A frame's file (`frame_*.vtu`, `contacts_*.vtp`, `shells_*.vtp`, `walls_*.vtp`) of this
    /// step.
    Frame(u64),
    /// A table, the series, the checkpoint, or the copy of one being written.
    Other,
}

/// Whether grains writes a file named `name`, and what it is.
fn written(name: &str) -> Option<Written> {
    let fixed = [
        PARTICLES_CSV,
        ENERGY_CSV,
        CONTACTS_CSV,
        BROKEN_BONDS_CSV,
        WALLS_CSV,
        STRESS_CSV,
        crate::CELLS_CSV,
        PARTICLES_PVD,
        CHECKPOINT_FILE,
        crate::STAGE_CSV,
    ];
    // A file's copy being written beside it is `<name>.tmp`.
    let base = name.strip_suffix(".tmp").unwrap_or(name);
    if fixed.contains(&base) {
        return Some(Written::Other);
    }
    frame_step(name).map(Written::Frame)
}

/// The step of a frame's file name, one of [`crate::vtk::PART_FILES`]: `frame_<step>.vtu`,
/// `contacts_<step>.vtp`, `shells_<step>.vtp`, `walls_<step>.vtp`.
pub(crate) fn frame_step(name: &str) -> Option<u64> {
    let digits = crate::vtk::PART_FILES
        .iter()
        .find_map(|(prefix, ext)| name.strip_prefix(prefix)?.strip_suffix(ext))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Remove from `dir` every file an earlier run of grains wrote there (its tables, series,
/// frames and checkpoint), and nothing else: a fresh run's directory holds that run alone.
pub(crate) fn clear_earlier_run(dir: &Path) -> Result<(), IoError> {
    remove_written(dir, |_| true)
}

/// Remove the files grains writes in `dir` that `unwanted` picks.
fn remove_written(dir: &Path, unwanted: impl Fn(Written) -> bool) -> Result<(), IoError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => {
            return Err(IoError::Read {
                path: dir.to_path_buf(),
                err,
            })
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(kind) = name.to_str().and_then(written) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && unwanted(kind) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|err| IoError::Remove { path, err })?;
        }
    }
    Ok(())
}

/// The frames `particles.pvd` lists: `(time, file, step)` in its order.
pub(crate) fn pvd_frames(path: &Path) -> Result<Vec<(f64, String, u64)>, IoError> {
    let pvd = fs::read_to_string(path).map_err(|err| IoError::Read {
        path: path.to_path_buf(),
        err,
    })?;
    let mut frames = Vec::new();
    for line in pvd.lines() {
        let attr = |name: &str| {
            let key = format!("{name}=\"");
            let at = line.find(&key)? + key.len();
            let end = line[at..].find('"')? + at;
            Some(line[at..end].to_string())
        };
        let (Some(time), Some(file)) = (attr("timestep"), attr("file")) else {
            continue;
        };
        if let (Ok(t), Some(s)) = (time.parse::<f64>(), frame_step(&file)) {
            frames.push((t, file, s));
        }
    }
    Ok(frames)
}

/// The frames of `particles.pvd` up to the checkpoint's step, each file there: `Ok(true)`
/// where only the checkpoint step's particle frame is missing.
fn pvd_frame_missing(dir: &Path, at: &ResumePoint) -> Result<bool, IoError> {
    let path = dir.join(PARTICLES_PVD);
    if !path.exists() {
        return Err(behind(&path, "it is missing", at));
    }
    let mut next = 0;
    let mut last = None;
    for (_, file, step) in pvd_frames(&path)? {
        if step > at.step || !at.on_cadence(step) {
            continue;
        }
        let there = dir.join(&file).is_file();
        if !there && step < at.step {
            return Err(behind(
                &path,
                &format!("the frame {file} it lists is missing"),
                at,
            ));
        }
        if file.starts_with("frame_") && there && last != Some(step) {
            if step != next {
                return Err(behind(
                    &path,
                    &format!("it lists no frame of step {next}"),
                    at,
                ));
            }
            last = Some(step);
            next = at.next_frame(step);
        }
    }
    let want = at.last_frame();
    if last == Some(want) {
        Ok(false)
    } else if want == at.step && last == at.frame_before() {
        Ok(true)
    } else {
        let holds = match last {
            Some(l) => format!("its last frame is of step {l}"),
            None => "it lists no frame".into(),
        };
        Err(behind(&path, &holds, at))
    }
}

/// A resumed run's output, checked and cut back ([`take_back`]).
pub(crate) struct TakenBack {
    /// Each table kept, with the bytes of it kept.
    pub cuts: Vec<(PathBuf, u64)>,
    /// The frames `particles.pvd` keeps: `(time, file)`.
    pub frames: Vec<(f64, String)>,
    /// The frame of the checkpoint's step is to be written again.
    pub rewrite: bool,
    /// `broken_bonds.csv` keeps the rows of steps up to this.
    pub bonds_through: Option<u64>,
}

/// Check the output of `opts` against the checkpoint at `at` and cut it back to it: the
/// tables' byte lengths to keep, the frames to list; nothing is changed where the output is
/// refused.
pub(crate) fn take_back(opts: &OutputOptions, at: &ResumePoint) -> Result<TakenBack, IoError> {
    let dir = &opts.dir;
    let particles = if at.rows_every_frame && at.frame_rows > 0 {
        Rows::EveryFrame
    } else {
        Rows::SomeFrames
    };
    let particles_header = crate::particles_header(opts);
    let tables = [
        (
            opts.csv,
            PARTICLES_CSV,
            particles_header.as_str(),
            particles,
        ),
        (opts.energy, ENERGY_CSV, ENERGY_HEADER, Rows::EveryFrame),
        (
            opts.contacts,
            CONTACTS_CSV,
            CONTACTS_HEADER,
            Rows::SomeFrames,
        ),
        (opts.walls, WALLS_CSV, WALLS_HEADER, Rows::EveryFrame),
        (opts.stress, STRESS_CSV, STRESS_HEADER, Rows::EveryFrame),
    ];
    let mut scans = Vec::new();
    let mut rewrite = false;
    for (on, name, header, rows) in tables {
        if !on {
            continue;
        }
        let scan = scan_table(dir.join(name), header, rows, at, Some(at.step))?;
        let expected = (name == PARTICLES_CSV && at.frame_rows > 0).then_some(at.frame_rows);
        rewrite |= scan.frame_missing(at, expected)?;
        scans.push(scan);
    }
    if opts.vtk {
        rewrite |= pvd_frame_missing(dir, at)?;
    }
    // Rewritten, the frame logs again the bonds broken since the frame before it.
    let bonds_through = if rewrite {
        at.frame_before()
    } else {
        Some(at.step)
    };
    let mut cuts: Vec<(PathBuf, u64)> = scans
        .into_iter()
        .map(|s| (s.path, if rewrite { s.before } else { s.through }))
        .collect();
    if opts.bonds {
        let path = dir.join(BROKEN_BONDS_CSV);
        let scan = scan_table(path, BROKEN_BONDS_HEADER, Rows::Events, at, bonds_through)?;
        cuts.push((scan.path, scan.through));
    }
    let keep_through = if rewrite {
        at.frame_before()
    } else {
        Some(at.step)
    };
    let kept = |step: u64| keep_through.is_some_and(|k| step <= k) && at.on_cadence(step);
    let frames = if opts.vtk {
        pvd_frames(&dir.join(PARTICLES_PVD))?
            .into_iter()
            .filter(|(_, _, s)| kept(*s))
            .map(|(t, f, _)| (t, f))
            .collect()
    } else {
        Vec::new()
    };
    // Checked: now the frames after the checkpoint (or off the cadence) and the copies a
    // stopped run left half written go.
    remove_written(dir, |w| match w {
        Written::Frame(step) => !kept(step),
        Written::Other => false,
    })?;
    for name in [PARTICLES_PVD, CHECKPOINT_FILE].iter().chain(&[
        PARTICLES_CSV,
        ENERGY_CSV,
        CONTACTS_CSV,
        BROKEN_BONDS_CSV,
        WALLS_CSV,
        STRESS_CSV,
    ]) {
        let path = dir.join(format!("{name}.tmp"));
        if path.is_file() {
            fs::remove_file(&path).map_err(|err| IoError::Remove { path, err })?;
        }
    }
    Ok(TakenBack {
        cuts,
        frames,
        rewrite,
        bonds_through,
    })
}
