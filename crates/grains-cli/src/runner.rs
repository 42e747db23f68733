//! A scene being run: its backend, and what a run does between batches of steps (insertion,
//! servos, lost particles) and writes at its output steps (frames, logs, checkpoints).
//! `grains run` drives a [`Runner`] to the scene's last step; the Python package steps one
//! as its caller asks, so that both write the same output for the same steps.

use crate::preflight::{fault_message, healthy, lost_particles};
use anyhow::{bail, Result};
use grains_core::units::{qty, sig4};
use grains_core::Backend;
use grains_io::{write_backend_checkpoint, OutputLock, OutputWriter, CHECKPOINT_FILE};
use grains_scene::LostParticles;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Steps between progress-bar updates at most; bounds the batch a backend runs at once.
const PROGRESS_CHUNK: u64 = 200;

/// A scene, the backend running it, and the run's output (where it writes one).
pub struct Runner {
    pub scene: grains_scene::Scene,
    pub backend: Box<dyn Backend>,
    /// The colony of a scene with `[[cells]]`: when its cells divide ([`grains_core::cells`]).
    pub colony: Option<grains_core::cells::Colony>,
    /// The output and the checkpoints of a run that writes them.
    pub(crate) recording: Option<(RunOutput, Checkpointing)>,
    /// The output directory's lock, held while the runner lives (the CLI holds its own).
    lock: Option<OutputLock>,
}

impl Runner {
    /// A runner of `scene` (of world fingerprint `fingerprint`, taken before the backend
    /// took its particles) on `backend` whose output goes to `out` (none without), starting
    /// afresh there at the backend's step: the directory locked, its output created, the
    /// first insertion batch placed and the first frame written ([`Runner::begin`]). Output
    /// written by a Python caller is the CLI's for the same scene and steps.
    pub fn start(
        scene: grains_scene::Scene,
        backend: Box<dyn Backend>,
        out: Option<&Path>,
        fingerprint: u64,
    ) -> Result<Runner> {
        let mut runner = Runner::new(scene, backend);
        if let Some(out) = out {
            runner.lock = Some(OutputLock::take(out, &runner.scene.path)?);
            let opts = crate::preflight::output_options(&runner.scene, out);
            let resumed = grains_io::Resumed {
                writer: OutputWriter::create(&opts)?,
                rewrite_frame: true,
                bonds_through: None,
            };
            let saving = Checkpointing {
                path: out.join(CHECKPOINT_FILE),
                fingerprint,
                resume: "grains.Simulation.resume(scene, checkpoint)".into(),
            };
            runner.record(resumed, (false, true), saving);
        }
        let fresh = runner.backend_step() == 0;
        runner.begin(fresh)?;
        Ok(runner)
    }

    /// A runner whose output the CLI has opened (and locked).
    pub(crate) fn new(scene: grains_scene::Scene, mut backend: Box<dyn Backend>) -> Runner {
        // The backend holds the particles now: their count is its.
        let colony = scene
            .world
            .cells
            .is_some()
            .then(|| backend.snapshot().pos.len());
        Runner {
            colony: colony.and_then(|n| grains_core::cells::Colony::of(&scene.world, n)),
            scene,
            backend,
            recording: None,
            lock: None,
        }
    }

    /// Record the run's output in `resumed`'s writer (`(resume, quiet)`: a resumed run knows
    /// the bonds its output logged), and its checkpoints as `saving` says.
    pub(crate) fn record(
        &mut self,
        resumed: grains_io::Resumed,
        (resume_run, quiet): (bool, bool),
        saving: Checkpointing,
    ) {
        let output = RunOutput::new(
            &self.scene,
            (resume_run, quiet),
            resumed,
            self.backend.as_mut(),
        );
        self.recording = Some((output, saving));
    }

    /// The start of stepping: a fresh run's first insertion batch, then the first frame where
    /// it is due (a fresh run's, or a resumed frame that was cut short). Returns the inserted
    /// particles that found no place.
    pub(crate) fn begin(&mut self, fresh: bool) -> Result<u64> {
        if !fresh && self.colony.is_some() {
            bail!(
                "a run with [[cells]] starts at step 0: its colony's bookkeeping (generations, \
                 cycles, cytokineses under way) is not in the checkpoint, so it cannot resume"
            );
        }
        let mut given_up = 0;
        if fresh && self.scene.world.insert_every > 0 {
            let step = self.backend_step();
            given_up = insert_batch(&self.scene, &mut self.backend, step)?;
        }
        if self.recording.as_ref().is_some_and(|r| r.0.rewrite_frame) {
            self.write_frame()?;
        }
        Ok(given_up)
    }

    fn backend_step(&self) -> u64 {
        self.backend.counters().steps
    }

    /// Write the output of the current step (nothing without an output directory); output that
    /// cannot be written saves the state and says how to resume.
    pub fn write_frame(&mut self) -> Result<()> {
        let Some((output, saving)) = &mut self.recording else {
            return Ok(());
        };
        output
            .write(&self.scene, self.backend.as_mut(), self.colony.as_ref())
            .map_err(|e| saving.stopped(e, &mut self.backend, &self.scene.world))
    }

    /// Write the checkpoint (and `stage.csv`) of the current step, where there is output.
    pub fn save(&mut self) -> Result<()> {
        match &self.recording {
            Some((_, saving)) => saving.save(&mut self.backend, &self.scene.world),
            None => Ok(()),
        }
    }

    /// Flush the output (the `.pvd` index and the CSV files).
    pub fn finish(&mut self) -> Result<()> {
        if let Some((output, _)) = &mut self.recording {
            output.writer.finish()?;
        }
        Ok(())
    }

    /// Flush the output and stop writing it: the directory is released.
    pub fn close(&mut self) -> Result<()> {
        self.finish()?;
        self.recording = None;
        self.lock = None;
        Ok(())
    }

    /// Frames written in this process.
    pub fn frames_written(&self) -> usize {
        self.recording
            .as_ref()
            .map_or(0, |r| r.0.writer.frames_written())
    }

    /// Step up to step `end` as [`Runner::advance`] does, without a progress bar or
    /// interruption.
    pub fn step_to(&mut self, end: u64) -> Result<Stepped> {
        self.advance(end, None, &ProgressBar::hidden())
    }

    /// Step up to step `end` (or until `interrupt` is set) as a run does: in batches that end
    /// at each output, checkpoint, insertion and servo step, where the runner does what is
    /// due; a fault stops it (or deletes the lost particles, where the scene says so), and
    /// output or a checkpoint that cannot be written stops it with what is saved.
    pub fn advance(
        &mut self,
        end: u64,
        interrupt: Option<&AtomicBool>,
        bar: &ProgressBar,
    ) -> Result<Stepped> {
        let scene = &self.scene;
        let (last, every) = (scene.run.steps, scene.output.every_steps.max(1));
        let insert_every = scene.world.insert_every;
        let checkpoint_every = scene.output.checkpoint_every_steps;
        // Servos steer their walls between steps, host-side: batches end where one is due.
        let servo_every = scene.world.servos.iter().map(|s| s.every.max(1)).min();
        let interrupted = || interrupt.is_some_and(|f| f.load(Ordering::SeqCst));
        let batch = self.backend.batch().clamp(1, PROGRESS_CHUNK);
        let mut s = Stepped {
            done: self.backend_step(),
            seconds: 0.0,
            removed_here: 0,
            given_up: 0,
        };
        bar.set_position(s.done);
        while s.done < end && !interrupted() {
            let done = s.done;
            let next = |period: u64| (done / period + 1) * period;
            let target = next(every)
                .min(checkpoint_every.map_or(u64::MAX, |c| next(c.max(1))))
                .min(if insert_every > 0 {
                    next(insert_every)
                } else {
                    u64::MAX
                })
                .min(servo_every.map_or(u64::MAX, next))
                .min(
                    self.colony
                        .as_ref()
                        .and_then(|c| c.next_event(done))
                        .unwrap_or(u64::MAX),
                )
                .min(if done < last { last } else { u64::MAX })
                .min(end)
                .min(done + batch);
            let t0 = Instant::now();
            let fault = self.backend.run_guarded(target - done)?;
            s.seconds += t0.elapsed().as_secs_f64();
            s.done = self.backend_step();
            if let Some(f) = fault {
                s.removed_here += self.delete_lost_or_stop(f)?;
            }
            bar.set_position(s.done);
            self.between_batches(&mut s)?;
        }
        Ok(s)
    }

    /// What is due after a batch ending at step `s.done`: insertion, the servos, the output and
    /// the checkpoint.
    fn between_batches(&mut self, s: &mut Stepped) -> Result<()> {
        let scene = &self.scene;
        let (last, every) = (scene.run.steps, scene.output.every_steps.max(1));
        let insert_every = scene.world.insert_every;
        if insert_every > 0 && s.done.is_multiple_of(insert_every) {
            s.given_up += insert_batch(scene, &mut self.backend, s.done)?;
        }
        grains_core::servo::steer(self.backend.as_mut(), &scene.world.servos, s.done);
        if let Some(colony) = &mut self.colony {
            let born = colony.apply(self.backend.as_mut())?;
            if born > 0 {
                if let Some((output, _)) = &mut self.recording {
                    let time = s.done as f64 * scene.world.dt;
                    output
                        .writer
                        .write_births(s.done, time, born, colony.count)?;
                }
            }
        }
        if s.done.is_multiple_of(every) || s.done == last {
            self.write_frame()?;
        }
        if let Some(c) = self.scene.output.checkpoint_every_steps {
            if s.done.is_multiple_of(c.max(1)) || s.done == last {
                self.save().map_err(|e| Checkpointing::failed(e, s.done))?;
            }
        }
        Ok(())
    }

    /// A fault at the end of a batch: the lost particles deleted where the scene says so and
    /// they are healthy (returns how many), or the run stopped with the fault's message,
    /// everything up to the last good frame on disk and nothing of this step.
    fn delete_lost_or_stop(&mut self, f: grains_core::Fault) -> Result<u64> {
        let scene = &self.scene;
        let snap = self.backend.snapshot();
        let lost = lost_particles(scene, &snap);
        let deletable = scene.guards.lost == LostParticles::Delete
            && lost.contains(&f.particle)
            && lost.iter().all(|&i| healthy(scene, &snap, i));
        if !deletable {
            let message = fault_message(scene, &snap, f.particle);
            drop(snap);
            self.finish()?;
            bail!("{message}");
        }
        drop(snap);
        self.backend.remove_particles(&lost)?;
        Ok(lost.len() as u64)
    }
}

/// Where a runner's stepping ended.
pub struct Stepped {
    /// The step it reached: the end, or where it was interrupted.
    pub done: u64,
    /// Wall-clock seconds of stepping (output excluded).
    pub seconds: f64,
    /// Lost particles deleted.
    pub removed_here: u64,
    /// Inserted particles that found no free place.
    pub given_up: u64,
}
/// Where a run's checkpoint goes, the scene it belongs to, and the command that resumes it.
pub(crate) struct Checkpointing {
    pub(crate) path: PathBuf,
    pub(crate) fingerprint: u64,
    pub(crate) resume: String,
}

impl Checkpointing {
    /// Write the backend's state, and beside it the particles a later stage starts from
    /// (`stage.csv`).
    pub(crate) fn save(&self, b: &mut Box<dyn Backend>, world: &grains_core::World) -> Result<()> {
        write_backend_checkpoint(&self.path, self.fingerprint, b.as_mut())?;
        if let Some(dir) = self.path.parent() {
            grains_io::write_stage(dir, world, &b.snapshot())?;
        }
        Ok(())
    }

    /// Output that cannot be written (a full disk, a file-size limit) stops the run with the
    /// state of its step saved: its resume writes that step's frame again.
    pub(crate) fn stopped(
        &self,
        e: anyhow::Error,
        b: &mut Box<dyn Backend>,
        world: &grains_core::World,
    ) -> anyhow::Error {
        let step = b.counters().steps;
        match self.save(b, world) {
            Ok(()) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, its state saved in {}: once the cause is \
                 fixed, resume with: {}",
                self.path.display(),
                self.resume
            ),
            Err(c) => anyhow::anyhow!(
                "{e:#}; the run stopped at step {step}, and its checkpoint could not be written \
                 either: {c:#}"
            ),
        }
    }

    /// A checkpoint that could not be written stops the run, the one before it kept.
    fn failed(e: anyhow::Error, step: u64) -> anyhow::Error {
        anyhow::anyhow!(
            "{e:#}; the run stopped at step {step}, with its output written up to it and the \
             checkpoint before it kept"
        )
    }
}

/// What a run writes at each output step, and what it keeps between them: the bonds already
/// logged broken, and the energy audit (the ledger's total at this process's first energy
/// line, and the largest relative departure from it since).
pub(crate) struct RunOutput {
    pub(crate) writer: OutputWriter,
    /// Whether the frame of the first step is to be written (a fresh run's, or a resumed
    /// frame that was cut short).
    pub(crate) rewrite_frame: bool,
    broken: std::collections::HashSet<usize>,
    pub(crate) audit: Option<(f64, f64)>,
    quiet: bool,
}

impl RunOutput {
    /// The output of a run whose writer is `resumed`; a resumed run's bonds broken before the
    /// output it keeps are known as logged already.
    pub(crate) fn new(
        scene: &grains_scene::Scene,
        (resume, quiet): (bool, bool),
        resumed: grains_io::Resumed,
        backend: &mut dyn Backend,
    ) -> RunOutput {
        let broken = if resume {
            grains_core::kernels::sources::fixed::broken_fixed_pairs(
                &scene.world.table,
                &scene.world.fixed_pairs,
                // Bonds are logged when they break: the particles' materials name each bond's
                // chain (`make_backend_within` keeps them in the scene where there are bonds).
                &scene.world.particles.material,
                &backend.fixed_history(),
            )
            .into_iter()
            .filter(|&(_, step)| resumed.bonds_through.is_some_and(|t| step <= t))
            .map(|(k, _)| k)
            .collect()
        } else {
            Default::default()
        };
        RunOutput {
            writer: resumed.writer,
            rewrite_frame: resumed.rewrite_frame,
            broken,
            audit: None,
            quiet,
        }
    }

    /// Log the bonds that broke since the last output step.
    fn write_broken_bonds(
        &mut self,
        world: &grains_core::World,
        b: &mut dyn Backend,
    ) -> Result<()> {
        let now = grains_core::kernels::sources::fixed::broken_fixed_pairs(
            &world.table,
            &world.fixed_pairs,
            &world.particles.material,
            &b.fixed_history(),
        );
        let mut rows = Vec::new();
        for (k, step) in now {
            if self.broken.insert(k) {
                let [i, j] = world.fixed_pairs[k];
                if !self.quiet {
                    eprintln!("bond {k} (particles {i} and {j}) broke at step {step}");
                }
                rows.push((step, step as f64 * world.dt, k, i, j));
            }
        }
        rows.sort_by_key(|r| (r.0, r.2));
        self.writer.write_broken_bonds(&rows)?;
        Ok(())
    }

    /// Write the output of the backend's current step: broken bonds, the frame, wall loads,
    /// the walls' surfaces, shells, contacts and the energy line (with the audit).
    pub(crate) fn write(
        &mut self,
        scene: &grains_scene::Scene,
        b: &mut dyn Backend,
        colony: Option<&grains_core::cells::Colony>,
    ) -> Result<()> {
        let world = &scene.world;
        if !world.fixed_pairs.is_empty() {
            self.write_broken_bonds(world, b)?;
        }
        // What the writers need besides the particles, read before the snapshot, which borrows
        // the backend's own arrays where it can (the CPU's) rather than copying them.
        let wall_loads = world.logs_wall_loads().then(|| b.wall_loads());
        let has_walls = !world.walls.is_empty() || world.triangle_tail() > 0;
        let walls = (scene.output.vtk && has_walls).then(|| (b.walls(), b.triangles()));
        let shell_forces = (scene.output.vtk && !world.shells.is_empty()).then(|| b.shell_forces());
        let records =
            (scene.output.contacts || scene.output.stress.is_some()).then(|| b.contact_records());
        let w = &mut self.writer;
        let snap = b.snapshot();
        let (step, time) = (snap.step, snap.time);
        // Mesh walls' triangles are fixed particles of the solver, not particles of the scene:
        // frames and stresses hold the scene's particles.
        let n = snap.pos.len() - world.triangle_tail();
        let stress = match (scene.output.stress, &records) {
            (Some(region), Some(records)) => {
                Some(stress_output(world, records, &snap.pos[..n], region))
            }
            _ => None,
        };
        if scene.output.vtk || scene.output.csv {
            let extra = grains_io::PerParticle {
                stress: stress.as_ref().map(|s| s.0.as_slice()),
                lineage: colony.map(|c| (&c.generation[..n], &c.parent[..n])),
            };
            if n < snap.pos.len() {
                w.write_frame_with(&snap.first(n), None, extra)?;
            } else {
                w.write_frame_with(&snap, None, extra)?;
            }
        }
        if let Some((_, region)) = &stress {
            w.write_stress(step, time, region)?;
        }
        if let Some(loads) = wall_loads {
            w.write_walls(step, time, &loads)?;
        }
        if let Some((walls, triangles)) = walls {
            w.write_wall_surfaces(step, time, world, (&walls, &triangles), &snap.pos)?;
        }
        if let Some(forces) = shell_forces {
            w.write_shells(&snap, &world.shells, &forces)?;
        }
        if let Some(records) = records.filter(|_| scene.output.contacts) {
            w.write_contacts(step, time, &records, &snap.pos)?;
        }
        drop(snap);
        if scene.output.energy {
            let e = b.energy();
            w.write_energy(step, time, &e)?;
            let (e0, worst) = self.audit.get_or_insert((e.total, 0.0));
            // Measured against what the run holds: its starting total, or the work moving
            // walls and kinematic particles have put in, or what it has dissipated (an
            // adhesive aggregate starting near zero releases its wells' energy), if larger.
            let scale = e0
                .abs()
                .max(e.wall_work.abs())
                .max(e.kinematic_work.abs())
                .max(e.inserted.abs())
                .max(e.damping_dissipated.abs() + e.friction_dissipated.abs());
            if scale != 0.0 {
                *worst = worst.max((e.total - *e0).abs() / scale);
            }
        }
        Ok(())
    }
}

/// The insertion batch at `step`: each block's particles due since the previous batch
/// (`step - world.insert_every`), placed among the particles now in the run. Returns how many
/// could not be placed; a block that has placed none of its particles and finds no place for
/// any due now stops the run ([`nothing_placed`]): it would insert nothing.
fn insert_batch(scene: &grains_scene::Scene, b: &mut Box<dyn Backend>, step: u64) -> Result<u64> {
    let world = &scene.world;
    let every = world.insert_every.max(1);
    let t = |s: u64| s as f64 * world.dt;
    let mut pos = b.snapshot().pos.into_owned();
    let mut placed = Vec::new();
    let mut given_up = 0u64;
    for (k, ins) in world.insertions.iter().enumerate() {
        let from = if step >= every {
            ins.due(t(step - every))
        } else {
            0
        };
        let to = ins.due(t(step));
        if to > from {
            let p = grains_core::insert::place(world, ins, &pos, from, to);
            let mine = ins.first as usize..ins.first as usize + ins.radii.len();
            if p.particles.is_empty() && pos[mine].iter().all(|x| x[3] <= 0.0) {
                bail!("{}", nothing_placed(scene, k, to));
            }
            given_up += p.given_up as u64;
            let v = ins.velocity.map(|x| x as f32);
            // Later blocks of this batch see these particles.
            for &(id, x) in &p.particles {
                if let Some(r) = world.insertion_radius(id) {
                    pos[id as usize] = [x[0], x[1], x[2], r];
                }
            }
            placed.extend(p.particles.into_iter().map(|(id, x)| (id, x, v)));
        }
    }
    if !placed.is_empty() {
        b.insert_particles(&placed)?;
    }
    Ok(given_up)
}

/// Why block `k` of the scene, `due` of whose particles are due and none placed, stops the run:
/// where its region is, its size and the particles' radii.
fn nothing_placed(scene: &grains_scene::Scene, k: usize, due: u32) -> String {
    let ins = &scene.world.insertions[k];
    let place = scene
        .places
        .inserts
        .get(k)
        .cloned()
        .unwrap_or_else(|| format!("{}: insert[{k}]", scene.path.display()));
    let (lo, hi) = ins
        .radii
        .iter()
        .fold((f32::INFINITY, 0.0f32), |(a, b), &r| (a.min(r), b.max(r)));
    let v = |x: [f64; 3]| format!("[{}, {}, {}]", sig4(x[0]), sig4(x[1]), sig4(x[2]));
    let region = match ins.region {
        grains_core::insert::Region::Box { min, max } => {
            format!("the box from {} to {} m", v(min), v(max))
        }
        grains_core::insert::Region::Cylinder {
            center,
            radius,
            height,
            ..
        } => format!(
            "the cylinder at {} m of radius {} and height {}",
            v(center),
            qty(radius, "m"),
            qty(height, "m")
        ),
    };
    format!(
        "{place}: insert[{k}] found no place for any of the {due} particle(s) due so far (radius {} to {}) \
         in {region}: every try ({} per particle) met a wall, another particle or the domain's \
         edge, so the block would insert nothing; expected a region clear of the walls with \
         room for its particles (larger, or moved off the walls)",
        qty(lo as f64, "m"),
        qty(hi as f64, "m"),
        grains_core::insert::ATTEMPTS
    )
}

/// Each of the first `pos.len()` particles' virial stress (Pa), and the mean stress of the box
/// `region` (the `stress` format: grains_core::stress).
fn stress_output(
    world: &grains_core::World,
    records: &[grains_core::ContactRecord],
    pos: &[[f32; 4]],
    region: [[f64; 3]; 2],
) -> (Vec<[f64; 6]>, grains_core::stress::RegionStress) {
    use grains_core::stress::{per_volume, region_stress};
    let moments = scene_moments(world, records, pos);
    let region = region_stress(&moments, pos, region[0], region[1]);
    (per_volume(&moments, pos), region)
}

/// Each of the scene's particles' virial stress (Pa), the first `pos.len()` particles of the
/// solver (the mesh walls' triangles after them are no particles of the scene).
pub fn particle_stress(
    world: &grains_core::World,
    records: &[grains_core::ContactRecord],
    pos: &[[f32; 4]],
) -> Vec<[f64; 6]> {
    grains_core::stress::per_volume(&scene_moments(world, records, pos), pos)
}

/// The virial moments `V sigma` of the particles at `pos` from the contact `records`.
fn scene_moments(
    world: &grains_core::World,
    records: &[grains_core::ContactRecord],
    pos: &[[f32; 4]],
) -> Vec<grains_core::stress::Sym6> {
    // A mesh wall's triangles are no particle of the scene: their contacts count for the
    // sphere that touches them only.
    let inside: Vec<_> = records
        .iter()
        .filter(|r| (r.i as usize) < pos.len())
        .map(|r| {
            let mut r = *r;
            if r.j >= pos.len() as i64 {
                r.j = -1;
            }
            r
        })
        .collect();
    grains_core::stress::virial_moments(&inside, pos, &world.domain.params())
}

/// Where a script's insertion puts its particles: `n` at free places of the block's region
/// (placed as its schedule would place them), or one at each given centre (m).
pub enum Placing {
    Free(u32),
    At(Vec<[f32; 3]>),
}

impl Runner {
    /// Insert particles of the scripted `[[insert]]` block `block` ([`Placing`]), the next of
    /// its dormant ones, moving at `velocity` (m/s; the block's own where `None`). Checked
    /// whole before anything changes: the block is scripted and has the particles left; given
    /// centres are finite, inside the domain and clear of the particles in the run and of each
    /// other. Returns the ids inserted and how many found no free place.
    pub fn insert_scripted(
        &mut self,
        block: usize,
        placing: Placing,
        velocity: Option<[f32; 3]>,
    ) -> Result<(Vec<u32>, u32)> {
        let world = &self.scene.world;
        let Some(ins) = world.insertions.get(block) else {
            bail!(
                "insert[{block}]: the scene has {} [[insert]] blocks",
                world.insertions.len()
            );
        };
        if !ins.scripted {
            bail!(
                "insert[{block}] inserts on its schedule; give it `scripted = true` (and no \
                 rate) to insert from a script"
            );
        }
        let pos = self.backend.snapshot().pos.into_owned();
        let (lo, hi) = (world.domain.min, world.domain.max);
        let first = ins.first as usize;
        // Past the last one woken: particles a free placement gave up on stay dormant.
        let block_pos = &pos[first..first + ins.radii.len()];
        let from = block_pos
            .iter()
            .rposition(|p| !grains_core::insert::is_dormant(*p, lo, hi))
            .map_or(0, |j| j + 1) as u32;
        let left = ins.radii.len() as u32 - from;
        let n = match &placing {
            Placing::Free(n) => *n,
            Placing::At(x) => x.len() as u32,
        };
        if n > left {
            bail!(
                "insert[{block}] has {left} particles left of its count {}: cannot insert {n}",
                ins.radii.len()
            );
        }
        let placed: Vec<(u32, [f32; 3])> = match placing {
            Placing::Free(n) => {
                grains_core::insert::place(world, ins, &pos, from, from + n).particles
            }
            Placing::At(x) => {
                let ids: Vec<u32> = (from..from + n).map(|j| ins.first + j).collect();
                check_clear(world, &pos, &ids, &x)?;
                ids.into_iter().zip(x).collect()
            }
        };
        let v = velocity.unwrap_or(ins.velocity.map(|x| x as f32));
        if v.iter().any(|x| !x.is_finite()) {
            bail!("velocity {v:?} is not finite");
        }
        let given_up = n - placed.len() as u32;
        let ids: Vec<u32> = placed.iter().map(|p| p.0).collect();
        let rows: Vec<_> = placed.into_iter().map(|(id, x)| (id, x, v)).collect();
        if !rows.is_empty() {
            self.backend.insert_particles(&rows)?;
        }
        Ok((ids, given_up))
    }
}

/// Particles `ids` (dormant, with their insertion radii) at centres `x`: finite, inside the
/// domain, and clear of the particles in the run (`pos`) and of each other. The check is
/// direct, over every particle in the run for each one inserted.
fn check_clear(
    world: &grains_core::World,
    pos: &[[f32; 4]],
    ids: &[u32],
    x: &[[f32; 3]],
) -> Result<()> {
    for (&id, c) in ids.iter().zip(x) {
        if c.iter().any(|v| !v.is_finite()) {
            bail!("particle {id} would be at {c:?}: not finite");
        }
        if let Some(k) = world.domain.outside_axis(&[c[0], c[1], c[2], 0.0]) {
            bail!(
                "particle {id} would be at {c:?}, outside the domain along axis {k} ({} to {} m)",
                world.domain.min[k],
                world.domain.max[k]
            );
        }
    }
    let mut placed: Vec<([f32; 3], f32, u32)> = Vec::with_capacity(ids.len());
    for (&id, c) in ids.iter().zip(x) {
        let r = world.insertion_radius(id).unwrap_or(0.0);
        let live = pos
            .iter()
            .enumerate()
            .filter(|(_, p)| p[3] > 0.0)
            .map(|(k, p)| ([p[0], p[1], p[2]], p[3], k as u32));
        for (q, rq, k) in live.chain(placed.iter().copied()) {
            let d2: f32 = (0..3).map(|a| (c[a] - q[a]) * (c[a] - q[a])).sum();
            if d2 < (r + rq) * (r + rq) {
                bail!(
                    "particle {id} at {c:?} (radius {r} m) would overlap particle {k} at {q:?} \
                     (radius {rq} m)"
                );
            }
        }
        placed.push((*c, r, id));
    }
    Ok(())
}
