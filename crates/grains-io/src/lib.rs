//! grains-io: what a run leaves on disk (docs/architecture.md).
//!
//! - `DIR/particles.csv`: one row per particle per output frame.
//! - `DIR/energy.csv`: one row per energy sample.
//! - `DIR/frame_XXXXXXXX.vtu` and `DIR/particles.pvd`: the same frames for ParaView.
//! - `DIR/contacts.csv`: one row per active contact per output frame; with VTK on, also
//!   `DIR/contacts_XXXXXXXX.vtp` (contact lines, the force network) as part 1 of the series.
//! - `DIR/shells_XXXXXXXX.vtp`: the shells of a scene with shells, part 2 of the series.
//! - `DIR/walls_XXXXXXXX.vtp`: the walls of a scene with walls as surfaces, part 3 of the series.
//!
//! Everything is written so that a run killed at any moment leaves readable files: CSV files are
//! flushed per frame or line, and the `.pvd` is replaced atomically after each complete frame.
//! A directory holds one run: `DIR/.grains.lock` ([`OutputLock`]) keeps a second one out, a
//! fresh run clears an earlier run's files, and a resumed run cuts its output back to its
//! checkpoint ([`OutputWriter::resume`]).

mod checkpoint;
mod csv;
mod error;
mod lock;
mod resume;
mod stage;
mod vtk;
mod walls;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use grains_core::{ContactRecord, EnergyReport, Snapshot};

pub use checkpoint::{
    open_checkpoint, read_checkpoint, write_backend_checkpoint, write_checkpoint, CheckpointArrays,
    CHECKPOINT_FILE,
};
pub use csv::{
    CELLS_HEADER, CONTACTS_HEADER, ENERGY_HEADER, PARTICLES_CELL_COLUMNS, PARTICLES_HEADER,
    PARTICLES_STRESS_COLUMNS, STRESS_HEADER,
};
pub use error::IoError;
pub use lock::{OutputLock, LOCK_FILE};
pub use resume::{ResumePoint, Resumed};
pub use stage::{stage_text, stages, write_stage, STAGE_CSV, STAGE_HEADER};
pub use vtk::frame_file_name;
pub use walls::{walls_file_name, KIND_MESH, SEGMENTS};

/// Name of the particle table in the output directory.
pub const PARTICLES_CSV: &str = "particles.csv";
/// Name of the energy log in the output directory.
pub const ENERGY_CSV: &str = "energy.csv";
/// Name of the contact table in the output directory.
pub const CONTACTS_CSV: &str = "contacts.csv";
/// File name of the log of broken bonds.
pub const BROKEN_BONDS_CSV: &str = "broken_bonds.csv";
/// Header of `broken_bonds.csv`: one row per bond when it breaks (the step of its break;
/// `bond` is its index among the scene's bonds, `i` and `j` its particles).
pub const BROKEN_BONDS_HEADER: &str = "step,time,bond,i,j";
/// Name of the wall load log in the output directory.
pub const WALLS_CSV: &str = "walls.csv";
/// Header of `walls.csv`: per output step and wall, the force the particles exert on it (N),
/// the torque about its centre of rotation (N m), and where that centre is (m). The analytic
/// walls come first (a box as six planes), then each mesh wall, in the scene's order.
pub const WALLS_HEADER: &str = "step,time,wall,fx,fy,fz,tx,ty,tz,cx,cy,cz";
/// Name of the region stress log in the output directory.
pub const STRESS_CSV: &str = "stress.csv";
/// Name of the colony's log of births in the output directory.
pub const CELLS_CSV: &str = "cells.csv";
/// Name of the ParaView series file in the output directory.
pub const PARTICLES_PVD: &str = "particles.pvd";

/// Bytes of CSV text gathered before handing them to the file.
const CSV_CHUNK: usize = 1 << 16;

/// Which files a run writes, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOptions {
    /// Output directory, created with its parents if missing.
    pub dir: PathBuf,
    /// Write a `.vtu` per frame and `particles.pvd`.
    pub vtk: bool,
    /// Write `particles.csv`.
    pub csv: bool,
    /// Write `energy.csv`.
    pub energy: bool,
    /// Write `contacts.csv` (and, with `vtk`, the contact-line frames).
    pub contacts: bool,
    /// Write `broken_bonds.csv` (a scene with bonds).
    pub bonds: bool,
    /// Write `walls.csv` (a scene with a moving wall or a mesh wall).
    pub walls: bool,
    /// Write each particle's virial stress in the frames (`particles.csv` columns
    /// [`PARTICLES_STRESS_COLUMNS`], the `.vtu` array `stress`) and `stress.csv`.
    pub stress: bool,
    /// Write each particle's generation and parent in the frames (`particles.csv` columns
    /// [`PARTICLES_CELL_COLUMNS`], the `.vtu` arrays `generation` and `parent`) and the births
    /// of each division step in `cells.csv` (a scene with `[[cells]]`).
    pub cells: bool,
}

/// What a frame writes per particle besides the snapshot's arrays, each as long as it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PerParticle<'a> {
    /// The virial stress (Pa), with the `stress` format.
    pub stress: Option<&'a [[f64; 6]]>,
    /// Each particle's generation and parent (`u32::MAX`: none, written as -1), in a scene
    /// with `[[cells]]`.
    pub lineage: Option<(&'a [u32], &'a [u32])>,
}

/// The header of `particles.csv` of a run with options `opts`.
pub fn particles_header(opts: &OutputOptions) -> String {
    let mut h = PARTICLES_HEADER.to_string();
    if opts.stress {
        h.push_str(PARTICLES_STRESS_COLUMNS);
    }
    if opts.cells {
        h.push_str(PARTICLES_CELL_COLUMNS);
    }
    h
}

/// Contact rows per particle the output estimate assumes: a dense pack's coordination number
/// is about 6, and each contact is one row.
pub const CONTACTS_PER_PARTICLE_ESTIMATE: f64 = 3.0;

/// Bytes one output frame of `particles` particles takes, at most, with the formats of `opts`:
/// the `.vtu` exactly (measured by writing a one- and a two-particle frame to memory: a fixed
/// part and a part per particle), `particles.csv` rows at their longest (19 fields of at most
/// 16 characters), [`CONTACTS_PER_PARTICLE_ESTIMATE`] contact rows and line cells per particle,
/// one energy line and the frame's entry in `particles.pvd`.
pub fn frame_bytes_estimate(opts: &OutputOptions, particles: u64) -> u64 {
    let n = particles as f64;
    let mut bytes = 0.0;
    if opts.vtk {
        let size = |k: usize| {
            let snap = Snapshot {
                // A positive radius: frames leave out particles without one.
                pos: vec![[0.0, 0.0, 0.0, 1.0]; k].into(),
                vel: vec![[0.0; 4]; k].into(),
                omega: vec![[0.0; 4]; k].into(),
                quat: vec![[0.0; 4]; k].into(),
                force: vec![[0.0; 4]; k].into(),
                torque: vec![[0.0; 4]; k].into(),
                material: vec![0; k].into(),
                ..Default::default()
            };
            let mut out = Vec::new();
            // Writing into a Vec cannot fail.
            let _ = vtk::write_vtu(&mut out, &snap, None, PerParticle::default());
            out.len() as f64
        };
        let (one, two) = (size(1), size(2));
        bytes += one + (two - one) * (n - 1.0) + 100.0;
    }
    if opts.csv {
        bytes += 19.0 * 17.0 * n;
    }
    if opts.stress {
        // Six columns of the CSV rows, six f32 of the frame, and a `stress.csv` line.
        let csv = if opts.csv { 6.0 * 17.0 } else { 0.0 };
        let vtk = if opts.vtk { 24.0 } else { 0.0 };
        bytes += (csv + vtk) * n + 11.0 * 25.0;
    }
    if opts.contacts {
        // A CSV row of 23 fields, and with VTK a line cell (two points, two ids, offsets).
        let per_contact = 23.0 * 17.0 + if opts.vtk { 60.0 } else { 0.0 };
        bytes += CONTACTS_PER_PARTICLE_ESTIMATE * per_contact * n + 2000.0;
    }
    if opts.energy {
        bytes += 12.0 * 25.0;
    }
    bytes.ceil() as u64
}

/// Bytes of one `shells_<step>.vtp` (ASCII) of `nodes` nodes, `edges` edges and `triangles`
/// triangles, at most: per node its position and force (six numbers of up to 17 characters)
/// and shell index; per edge its two ids, offset and tension; per triangle its three ids,
/// offset and mean tension.
pub fn shell_frame_bytes_estimate(nodes: u64, edges: u64, triangles: u64) -> u64 {
    if nodes == 0 {
        return 0;
    }
    1000 + 130 * nodes + 70 * edges + 80 * triangles
}

/// An open CSV file, remembered with its path for error messages.
struct CsvFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CsvFile {
    fn create(path: PathBuf, header: &str) -> Result<CsvFile, IoError> {
        let file = File::create(&path).map_err(IoError::create(&path))?;
        let mut out = BufWriter::new(file);
        writeln!(out, "{header}")
            .and_then(|()| out.flush())
            .map_err(IoError::write(&path))?;
        Ok(CsvFile { path, out })
    }

    /// Reopen a table checked by a resume ([`resume::take_back`]) cut to its first `len`
    /// bytes (the header and the rows kept), for appending after them.
    fn append(path: PathBuf, len: u64) -> Result<CsvFile, IoError> {
        let file = fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(IoError::create(&path))?;
        file.set_len(len).map_err(IoError::write(&path))?;
        drop(file);
        let file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(IoError::create(&path))?;
        Ok(CsvFile {
            path,
            out: BufWriter::new(file),
        })
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.out
            .write_all(bytes)
            .map_err(IoError::write(&self.path))
    }

    fn flush(&mut self) -> Result<(), IoError> {
        self.out.flush().map_err(IoError::write(&self.path))
    }
}

/// Writes the output files of one run. Formats switched off in [`OutputOptions`] are skipped
/// silently, so the caller need not check them.
pub struct OutputWriter {
    dir: PathBuf,
    vtk: bool,
    particles: Option<CsvFile>,
    energy: Option<CsvFile>,
    contacts: Option<CsvFile>,
    bonds: Option<CsvFile>,
    walls: Option<CsvFile>,
    stress: Option<CsvFile>,
    cells: Option<CsvFile>,
    /// `(time, file name)` of every `.vtu` written, in order.
    frames: Vec<(f64, String)>,
    frames_written: usize,
    /// Reused between frames so large frames do not reallocate.
    text: String,
}

impl OutputWriter {
    /// Creates the directory (and its parents), removes every file an earlier run of grains
    /// wrote there (tables, series, frames, checkpoint; nothing else), starts the tables with
    /// their headers and writes an empty `particles.pvd`: the directory holds this run alone.
    pub fn create(opts: &OutputOptions) -> Result<OutputWriter, IoError> {
        fs::create_dir_all(&opts.dir).map_err(|err| IoError::CreateDir {
            path: opts.dir.clone(),
            err,
        })?;
        resume::clear_earlier_run(&opts.dir)?;
        OutputWriter::open(opts, None, Vec::new())
    }

    /// Reopens the output of a run resumed from its checkpoint at `at`: every table and the
    /// `.pvd` are checked against it (each must hold every frame up to it; a missing file, a
    /// lost frame, a damaged row is refused, naming the file, before anything is changed),
    /// then cut back to it (rows and frames after it, or off the cadence, removed) and
    /// writing continues after them. Where only the frame of the checkpoint's step was cut
    /// short, it is removed too and [`Resumed::rewrite_frame`] says to write it again.
    pub fn resume(opts: &OutputOptions, at: &ResumePoint) -> Result<Resumed, IoError> {
        let taken = resume::take_back(opts, at)?;
        let writer = OutputWriter::open(opts, Some(&taken.cuts), taken.frames)?;
        Ok(Resumed {
            writer,
            rewrite_frame: taken.rewrite,
            bonds_through: taken.bonds_through,
        })
    }

    fn open(
        opts: &OutputOptions,
        cuts: Option<&[(PathBuf, u64)]>,
        frames: Vec<(f64, String)>,
    ) -> Result<OutputWriter, IoError> {
        let csv = |name: &str, header: &str| {
            let path = opts.dir.join(name);
            match cuts.and_then(|c| c.iter().find(|(p, _)| *p == path)) {
                Some(&(_, len)) => CsvFile::append(path, len),
                None => CsvFile::create(path, header),
            }
        };
        let particles = opts
            .csv
            .then(|| csv(PARTICLES_CSV, &particles_header(opts)))
            .transpose()?;
        let stress = opts
            .stress
            .then(|| csv(STRESS_CSV, STRESS_HEADER))
            .transpose()?;
        let energy = opts
            .energy
            .then(|| csv(ENERGY_CSV, ENERGY_HEADER))
            .transpose()?;
        let cells = opts
            .cells
            .then(|| csv(CELLS_CSV, csv::CELLS_HEADER))
            .transpose()?;
        let contacts = opts
            .contacts
            .then(|| csv(CONTACTS_CSV, CONTACTS_HEADER))
            .transpose()?;
        let bonds = opts
            .bonds
            .then(|| csv(BROKEN_BONDS_CSV, BROKEN_BONDS_HEADER))
            .transpose()?;
        let walls = opts
            .walls
            .then(|| csv(WALLS_CSV, WALLS_HEADER))
            .transpose()?;
        let writer = OutputWriter {
            dir: opts.dir.clone(),
            vtk: opts.vtk,
            particles,
            energy,
            contacts,
            bonds,
            walls,
            stress,
            cells,
            frames_written: frames.len(),
            frames,
            text: String::new(),
        };
        if writer.vtk {
            writer.write_pvd()?;
        }
        Ok(writer)
    }

    /// Appends one `broken_bonds.csv` row per `(step, time, bond, i, j)` and flushes; nothing
    /// when the options have no bonds.
    pub fn write_broken_bonds(
        &mut self,
        rows: &[(u64, f64, usize, u32, u32)],
    ) -> Result<(), IoError> {
        if let Some(f) = &mut self.bonds {
            let mut text = String::new();
            for (step, time, bond, i, j) in rows {
                text.push_str(&format!("{step},{time},{bond},{i},{j}\n"));
            }
            f.write_all(text.as_bytes())?;
            f.flush()?;
        }
        Ok(())
    }

    /// Writes one output frame: appends its rows to `particles.csv` (flushed) and writes
    /// `frame_<step>.vtu`, then rewrites `particles.pvd` to include it.
    ///
    /// `ids[i]` is written as particle `i`'s id when given; otherwise the index is.
    /// A snapshot whose arrays disagree in length is refused before anything is written.
    pub fn write_frame(&mut self, snap: &Snapshot, ids: Option<&[u64]>) -> Result<(), IoError> {
        self.write_frame_with(snap, ids, PerParticle::default())
    }

    /// [`OutputWriter::write_frame`] with each particle's virial stress (Pa), for a run with
    /// the `stress` format; `stress` is as long as the snapshot.
    pub fn write_frame_with(
        &mut self,
        snap: &Snapshot,
        ids: Option<&[u64]>,
        extra: PerParticle<'_>,
    ) -> Result<(), IoError> {
        check_lengths(snap, ids)?;
        let lens = [
            ("stress", extra.stress.map(<[_]>::len)),
            ("generation", extra.lineage.map(|l| l.0.len())),
            ("parent", extra.lineage.map(|l| l.1.len())),
        ];
        for (field, len) in lens {
            if let Some(got) = len.filter(|&l| l != snap.pos.len()) {
                return Err(IoError::Snapshot {
                    step: snap.step,
                    field,
                    expected: snap.pos.len(),
                    got,
                });
            }
        }
        if let Some(csv) = &mut self.particles {
            let mut i = 0;
            while i < snap.pos.len() {
                self.text.clear();
                i = csv::particle_rows(&mut self.text, snap, ids, extra, i, CSV_CHUNK);
                csv.write_all(self.text.as_bytes())?;
            }
            csv.flush()?;
        }
        if self.vtk {
            let name = frame_file_name(snap.step);
            let path = self.dir.join(&name);
            let file = File::create(&path).map_err(IoError::create(&path))?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            vtk::write_vtu(&mut out, snap, ids, extra)
                .and_then(|()| out.flush())
                .map_err(IoError::write(&path))?;
            // The same step written again replaced its file, so it is listed once.
            match self.frames.iter_mut().find(|(_, f)| *f == name) {
                Some(entry) => entry.0 = snap.time,
                None => self.frames.push((snap.time, name)),
            }
            self.write_pvd()?;
        }
        self.frames_written += 1;
        Ok(())
    }

    /// Writes the active contacts of a frame: rows of `contacts.csv` (flushed) and, with VTK
    /// on, `contacts_<step>.vtp` (a line from particle `i`'s centre to particle `j`'s, or to the
    /// contact point on a wall) listed in `particles.pvd` as part 1 of the step.
    pub fn write_contacts(
        &mut self,
        step: u64,
        time: f64,
        records: &[ContactRecord],
        pos: &[[f32; 4]],
    ) -> Result<(), IoError> {
        let Some(csv) = &mut self.contacts else {
            return Ok(());
        };
        for chunk in records.chunks(4096) {
            self.text.clear();
            csv::contact_rows(&mut self.text, step, time, chunk);
            csv.write_all(self.text.as_bytes())?;
        }
        csv.flush()?;
        if self.vtk {
            let name = vtk::contacts_file_name(step);
            let path = self.dir.join(&name);
            let file = File::create(&path).map_err(IoError::create(&path))?;
            let mut out = BufWriter::new(file);
            vtk::write_contact_lines(&mut out, records, pos)
                .and_then(|()| out.flush())
                .map_err(IoError::write(&path))?;
            match self.frames.iter_mut().find(|(_, f)| *f == name) {
                Some(entry) => entry.0 = time,
                None => self.frames.push((time, name)),
            }
            self.write_pvd()?;
        }
        Ok(())
    }

    /// Writes the shells of a frame as `shells_<step>.vtp`, listed in `particles.pvd` as part 2
    /// of the step; nothing with VTK off or without shells. `shell_forces` are the edges'
    /// records (four per edge, the tension in `w` of the third).
    pub fn write_shells(
        &mut self,
        snap: &Snapshot,
        shells: &grains_core::shells::Shells,
        shell_forces: &[[f32; 4]],
    ) -> Result<(), IoError> {
        if !self.vtk || shells.is_empty() {
            return Ok(());
        }
        let tension: Vec<f32> = shell_forces
            .chunks(4)
            .map(|r| r.get(2).map_or(0.0, |x| x[3]))
            .collect();
        let name = vtk::shells_file_name(snap.step);
        let path = self.dir.join(&name);
        let file = File::create(&path).map_err(IoError::create(&path))?;
        let mut out = BufWriter::new(file);
        vtk::write_shells(&mut out, shells, &snap.pos, &snap.force, &tension)
            .and_then(|()| out.flush())
            .map_err(IoError::write(&path))?;
        match self.frames.iter_mut().find(|(_, f)| *f == name) {
            Some(entry) => entry.0 = snap.time,
            None => self.frames.push((snap.time, name)),
        }
        self.write_pvd()
    }

    /// Writes the walls of a frame as `walls_<step>.vtp`, listed in `particles.pvd` as part 3
    /// of the step: `walls` (the world's walls where the backend holds them at `step`, then the
    /// mesh walls' bodies, which are not drawn) and the world's mesh walls' `triangles` as
    /// they stand, whose particles are at `pos` (the solver's particles, the triangles last). Nothing with VTK off or in a world without walls. Written at every
    /// output step, moving walls or not: ParaView draws a part of the series only at the steps
    /// that list it, and a resume cuts the walls back with the frames. Planes and round walls
    /// take a few kB; a mesh wall about 200 bytes per triangle.
    pub fn write_wall_surfaces(
        &mut self,
        step: u64,
        time: f64,
        world: &grains_core::World,
        (walls, triangles): (
            &[grains_core::kernel_types::Wall],
            &[grains_core::kernel_types::Triangle],
        ),
        pos: &[[f32; 4]],
    ) -> Result<(), IoError> {
        if !self.vtk || (walls.is_empty() && world.triangle_tail() == 0) {
            return Ok(());
        }
        let surfaces = walls::surfaces(world, walls, triangles, pos);
        let name = walls_file_name(step);
        let path = self.dir.join(&name);
        let file = File::create(&path).map_err(IoError::create(&path))?;
        let mut out = BufWriter::new(file);
        walls::write_surfaces(&mut out, &surfaces)
            .and_then(|()| out.flush())
            .map_err(IoError::write(&path))?;
        match self.frames.iter_mut().find(|(_, f)| *f == name) {
            Some(entry) => entry.0 = time,
            None => self.frames.push((time, name)),
        }
        self.write_pvd()
    }

    /// Appends one `walls.csv` row per wall load `(force, torque, centre)` and flushes; nothing
    /// when the options have no wall log.
    pub fn write_walls(
        &mut self,
        step: u64,
        time: f64,
        loads: &[grains_core::backend::WallLoad],
    ) -> Result<(), IoError> {
        if let Some(f) = &mut self.walls {
            let mut text = String::new();
            for (w, l) in loads.iter().enumerate() {
                let [fx, fy, fz] = l.force;
                let [tx, ty, tz] = l.torque;
                let [cx, cy, cz] = l.center;
                text.push_str(&format!(
                    "{step},{time},{w},{fx:e},{fy:e},{fz:e},{tx:e},{ty:e},{tz:e},{cx:e},{cy:e},{cz:e}\n"
                ));
            }
            f.write_all(text.as_bytes())?;
            f.flush()?;
        }
        Ok(())
    }

    /// Appends one line to `cells.csv` (the cells born at a division step and the colony's
    /// count after it) and flushes it; nothing without the `cells` output.
    pub fn write_births(
        &mut self,
        step: u64,
        time: f64,
        births: u32,
        cells: u32,
    ) -> Result<(), IoError> {
        if let Some(csv) = &mut self.cells {
            csv.write_all(format!("{step},{time},{births},{cells}\n").as_bytes())?;
            csv.flush()?;
        }
        Ok(())
    }

    /// Appends one line to `stress.csv` (the mean stress of the stress region) and flushes it;
    /// nothing without the `stress` format.
    pub fn write_stress(
        &mut self,
        step: u64,
        time: f64,
        region: &grains_core::stress::RegionStress,
    ) -> Result<(), IoError> {
        if let Some(csv) = &mut self.stress {
            csv.write_all(csv::stress_row(step, time, region).as_bytes())?;
            csv.flush()?;
        }
        Ok(())
    }

    /// Appends one line to `energy.csv` and flushes it, so a run that dies keeps its log.
    pub fn write_energy(&mut self, step: u64, time: f64, e: &EnergyReport) -> Result<(), IoError> {
        if let Some(csv) = &mut self.energy {
            csv.write_all(csv::energy_row(step, time, e).as_bytes())?;
            csv.flush()?;
        }
        Ok(())
    }

    /// Rewrites `particles.pvd` listing every frame so far and flushes every open file.
    /// Safe to call more than once; [`OutputWriter::write_frame`] already keeps the `.pvd`
    /// current, so this matters only for the final flush.
    pub fn finish(&mut self) -> Result<(), IoError> {
        if self.vtk {
            self.write_pvd()?;
        }
        if let Some(csv) = &mut self.particles {
            csv.flush()?;
        }
        if let Some(csv) = &mut self.energy {
            csv.flush()?;
        }
        if let Some(csv) = &mut self.contacts {
            csv.flush()?;
        }
        Ok(())
    }

    /// Frames written so far by [`OutputWriter::write_frame`].
    pub fn frames_written(&self) -> usize {
        self.frames_written
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the collection to a temporary file and renames it over the old one, so a reader
    /// (or a run killed mid-write) never sees a truncated `.pvd`.
    fn write_pvd(&self) -> Result<(), IoError> {
        let path = self.dir.join(PARTICLES_PVD);
        let tmp = self.dir.join(format!("{PARTICLES_PVD}.tmp"));
        let file = File::create(&tmp).map_err(IoError::create(&tmp))?;
        let mut out = BufWriter::new(file);
        vtk::write_pvd(&mut out, &self.frames)
            .and_then(|()| out.flush())
            .map_err(IoError::write(&tmp))?;
        drop(out);
        fs::rename(&tmp, &path).map_err(|err| IoError::Rename {
            from: tmp,
            to: path,
            err,
        })
    }
}

/// Every per-particle array must match `pos`; the writers index them all by particle.
fn check_lengths(snap: &Snapshot, ids: Option<&[u64]>) -> Result<(), IoError> {
    let n = snap.pos.len();
    let fields = [
        ("vel", snap.vel.len()),
        ("omega", snap.omega.len()),
        ("force", snap.force.len()),
        ("torque", snap.torque.len()),
        ("material", snap.material.len()),
        ("ids", ids.map_or(n, <[u64]>::len)),
        // None where no particle keeps an orientation (each is the identity).
        (
            "quat",
            if snap.quat.is_empty() {
                n
            } else {
                snap.quat.len()
            },
        ),
    ];
    match fields.into_iter().find(|&(_, len)| len != n) {
        Some((field, got)) => Err(IoError::Snapshot {
            step: snap.step,
            field,
            expected: n,
            got,
        }),
        None => Ok(()),
    }
}
