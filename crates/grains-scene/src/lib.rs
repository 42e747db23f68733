//! grains-scene: the TOML scene format of grains (docs/architecture.md), its validation with
//! `file:line:column: key: message` errors, and the particle generators.
//!
//! Units are SI throughout: metres, seconds, kilograms, pascals.
//!
//! ```no_run
//! let scene = grains_scene::load_scene(std::path::Path::new("scenes/settle.toml"))?;
//! println!("{}", scene.summary());
//! # Ok::<(), grains_scene::SceneError>(())
//! ```
//!
//! Defaults the contract leaves open, chosen here:
//! - `simulation.dt` defaults to `"auto"`, `gravity` to `[0, 0, 0]`, `backend` to `"auto"`,
//!   `skin` to 0.25 × the largest particle diameter.
//! - `domain.periodic` defaults to `[false, false, false]`.
//! - `lattice.origin` defaults to `domain.min + spacing/2` on each axis, so a lattice of
//!   `count` sites fills `[min, min + count*spacing]` with its sites centred in their cells
//!   (the layout of the peer benchmark scenes); `jitter` defaults to 0 and `seed` to 0; the
//!   optional `speed` (m/s) gives each site that speed in a random isotropic direction.
//! - `[output]`: `checkpoint_every` (s) or `checkpoint_every_steps` are optional (no
//!   checkpoints by default).
//! - `[output]`: `dir = "out"`, `every_steps = max(1, steps/100)`, `formats = ["vtk"]`,
//!   `energy = true`.
//! - A particle's velocity is, by priority: its `velocities` entry, its pack-file line's
//!   velocity, the block's `velocity`, zero.

mod checks;
mod error;
pub mod generators;
mod law_keys;
pub mod mesh_file;
mod messages;
mod motion_table;
pub mod overrides;
pub use sections::initial::Initial;
mod parse;
mod sections;
mod walk;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use grains_core::timestep::TimestepReport;
use grains_core::units::{qty, sig4};
use grains_core::World;

pub use error::SceneError;

/// Which backend a scene asks for (`simulation.backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when an adapter exists, else the CPU.
    Auto,
    /// The GPU, or fail.
    Gpu,
    /// The CPU reference backend.
    Cpu,
}

impl BackendChoice {
    /// The scene keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Cpu => "cpu",
        }
    }
}

/// How long and where to run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Number of steps: `steps`, or `ceil(duration / dt)`.
    pub steps: u64,
    /// Requested backend.
    pub backend: BackendChoice,
}

/// What to write and how often.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSettings {
    /// Output folder, as written in the scene (relative paths are relative to the current
    /// directory, not to the scene file); default `out`.
    pub dir: PathBuf,
    /// Write every this many steps: `every_steps`, or `round(every / dt)`, at least 1;
    /// default `max(1, steps / 100)`.
    pub every_steps: u64,
    /// Write ParaView `.vtu` frames and `particles.pvd`.
    pub vtk: bool,
    /// Write `particles.csv`.
    pub csv: bool,
    /// Write `contacts.csv` (and, with `vtk`, the contact-line frames).
    pub contacts: bool,
    /// The `stress` format: each particle's virial stress in the frames, and `stress.csv`, the
    /// mean stress of this box `[min, max]` (m).
    pub stress: Option<[[f64; 3]; 2]>,
    /// Write `energy.csv`.
    pub energy: bool,
    /// Write `checkpoint.bin` (the whole state, to resume with `grains run --resume`) every
    /// this many steps and at the end: `checkpoint_every_steps`, or `round(checkpoint_every /
    /// dt)`; none by default.
    pub checkpoint_every_steps: Option<u64>,
}

/// Most steps a scene may ask for: 1e15, some thirty years at a million steps per second; a
/// larger count is a typo, and output intervals derived from it would be meaningless.
pub const MAX_STEPS: u64 = 1_000_000_000_000_000;

/// Default of `simulation.max_initial_overlap`: the deepest initial overlap `grains run`
/// accepts, as a fraction of the smaller radius of the pair (5%).
pub const DEFAULT_MAX_INITIAL_OVERLAP: f64 = 0.05;

/// What a run does with a particle that leaves a non-periodic domain
/// (`simulation.lost_particles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostParticles {
    /// Stop the run with an error naming the particle (the default).
    Error,
    /// Remove it from the simulation and count it, as LIGGGHTS' `thermo_modify lost ignore`.
    Delete,
}

/// Checks a run makes of its state (`[simulation]` keys).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardSettings {
    /// Deepest initial overlap accepted, as a fraction of the smaller radius
    /// (`max_initial_overlap`, default [`DEFAULT_MAX_INITIAL_OVERLAP`]).
    pub max_initial_overlap: f64,
    /// What to do with particles that leave the domain (`lost_particles`).
    pub lost: LostParticles,
}

/// A validated scene, ready to run.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene file.
    pub path: PathBuf,
    /// The initial state, with `world.dt` (s) already chosen.
    pub world: World,
    /// Steps and backend.
    pub run: RunSettings,
    /// Output settings.
    pub output: OutputSettings,
    /// Rayleigh and collision times of the world (s).
    pub timestep: TimestepReport,
    /// Whether `dt` was chosen automatically (`dt = "auto"`).
    pub dt_auto: bool,
    /// The run's checks of its state.
    pub guards: GuardSettings,
    /// The initial overlaps (particle pairs and particle-wall pairs).
    pub overlaps: grains_core::overlaps::OverlapReport,
    /// What the scene holds that a run accepts but the user should know of (a mesh wall's
    /// degenerate triangles left out, its needles), each `file:line:column: key: message`;
    /// [`Scene::summary`] lists them.
    pub warnings: Vec<String>,
    /// Where the keys that checks after parsing name are (`file:line:column: key`).
    pub places: Places,
    /// Wall blocks (`[[wall]]`): a box is one block of six planes, a mesh one of many
    /// triangles.
    pub wall_blocks: usize,
    /// The earlier run this scene starts from (`[initial] from`): its spheres are the
    /// world's first particles.
    pub initial: Option<Initial>,
    /// Whether `output.every_steps` was the default (so a step override rescales it).
    every_default: bool,
}

/// `file:line:column: key` of the scene's keys that the run's checks name, as a located
/// error starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// Each material's `young`, in `[[material]]` order.
    pub young: Vec<String>,
    /// Each `[[insert]]` block's region (`box` or `cylinder`), in block order.
    pub inserts: Vec<String>,
}

/// The memory a scene may take (bytes), and how to name that budget in a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes available.
    pub bytes: u64,
    /// What the budget is, completing "but ...": e.g. `"this machine has available"`.
    pub what: String,
}

/// Read a scene file and validate it.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    load_scene_within(path, None)
}

/// As [`load_scene`], refusing before any particle is generated a scene whose particles would
/// not fit in `memory` (see [`memory_per_particle_at_least`]).
pub fn load_scene_within(path: &Path, memory: Option<&MemoryBudget>) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|err| SceneError::Read {
        path: path.to_path_buf(),
        err,
    })?;
    parse_scene_within(&text, path, memory)
}

/// As [`load_scene_within`], with the overrides `sets` (`grains run --set PATH=VALUE`) applied
/// to the file's text first; errors are located in the file, and an error at an overridden
/// value names its `--set`.
pub fn load_scene_with(
    path: &Path,
    memory: Option<&MemoryBudget>,
    sets: &[overrides::Override],
) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|err| SceneError::Read {
        path: path.to_path_buf(),
        err,
    })?;
    let applied = overrides::apply(&text, path, sets)?;
    parse_scene_within(&applied.text, path, memory).map_err(|e| applied.locate(e))
}

/// Validate scene text. `path` names the file in messages and anchors relative `file =`
/// paths (relative to the folder holding `path`).
pub fn parse_scene(text: &str, path: &Path) -> Result<Scene, SceneError> {
    parse_scene_within(text, path, None)
}

/// As [`parse_scene`], with a memory budget (see [`load_scene_within`]).
pub fn parse_scene_within(
    text: &str,
    path: &Path,
    memory: Option<&MemoryBudget>,
) -> Result<Scene, SceneError> {
    let p = parse::parse(text, path, memory)?;
    let steps = p.steps;
    let (every_steps, every_default) = match p.every_steps {
        Some(n) => (n, false),
        None => (default_every(steps), true),
    };
    Ok(Scene {
        path: path.to_path_buf(),
        world: p.world,
        run: RunSettings {
            steps,
            backend: p.backend,
        },
        output: OutputSettings {
            dir: p.dir,
            every_steps,
            vtk: p.vtk,
            csv: p.csv,
            contacts: p.contacts,
            stress: p.stress,
            energy: p.energy,
            checkpoint_every_steps: p.checkpoint_every_steps,
        },
        timestep: p.timestep,
        dt_auto: p.dt_auto,
        guards: GuardSettings {
            max_initial_overlap: p.max_initial_overlap,
            lost: p.lost,
        },
        overlaps: p.overlaps,
        warnings: p.warnings,
        places: p.places,
        wall_blocks: p.wall_blocks,
        initial: p.initial,
        every_default,
    })
}

fn default_every(steps: u64) -> u64 {
    (steps / 100).max(1)
}

/// `bytes` in binary units with four significant digits (`1.953 GiB`).
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{} {}", grains_core::units::sig4(x), UNITS[u])
    }
}

impl Scene {
    /// The same scene run for `n` steps (the CLI's `--steps`). A default output interval
    /// (`steps / 100`) follows the new count; an explicit one is kept.
    pub fn with_steps(mut self, n: u64) -> Scene {
        self.run.steps = n;
        if self.every_default {
            self.output.every_steps = default_every(n);
        }
        self
    }

    /// A multi-line human summary: counts, domain, time step and its limits, steps, and the
    /// scene's [`warnings`](Scene::warnings).
    pub fn summary(&self) -> String {
        self.summary_with("")
    }

    /// [`Scene::summary`] with `lines` (the backends' memory estimates, which the backends'
    /// crates model) after the run settings, before the warnings.
    pub fn summary_with(&self, lines: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "scene       {}", self.path.display());
        self.summarise_particles(&mut s);
        self.summarise_walls_and_blocks(&mut s);
        self.summarise_run(&mut s);
        if lines.is_empty() {
            // The run lines end with a newline that the memory lines would follow.
            s.truncate(s.trim_end_matches('\n').len());
        }
        s.push_str(lines);
        for warning in &self.warnings {
            let _ = write!(s, "\nwarning: {warning}");
        }
        s
    }

    /// The scene's bodies as `grains check` and `grains run` both state them: its particles
    /// (those an `[[insert]]` block will place included), its mesh walls' triangles (which
    /// the solver holds as fixed particles) and its `[[wall]]` blocks.
    pub fn counts(&self) -> String {
        let tris = self.world.triangle_tail();
        let n = self.world.particles.len() - tris;
        let plural =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{}, {}, {}",
            plural(n, "particle", "particles"),
            plural(tris, "mesh triangle", "mesh triangles"),
            plural(self.wall_blocks, "wall", "walls")
        )
    }

    /// The summary's particle lines: counts of bodies, particles by shape, radii,
    /// orientation, materials.
    fn summarise_particles(&self, s: &mut String) {
        let _ = writeln!(s, "counts      {}", self.counts());
        let w = &self.world;
        let tris = w.triangle_tail();
        let n = w.particles.len() - tris;
        let count = |k: u32| {
            (0..n)
                .filter(|&i| w.particles.shape_of(i).kind == k)
                .count()
        };
        let (capsules, clumps) = (
            count(grains_core::shapes::KIND_CAPSULE),
            count(grains_core::shapes::KIND_CLUMP),
        );
        let mut shapes = Vec::new();
        if capsules > 0 {
            shapes.push(format!("{capsules} capsules"));
        }
        if clumps > 0 {
            let members = count(grains_core::shapes::KIND_MEMBER);
            shapes.push(format!("{clumps} clumps of {members} spheres"));
        }
        let _ = if shapes.is_empty() {
            writeln!(s, "particles   {n}")
        } else {
            writeln!(s, "particles   {n} ({})", shapes.join(", "))
        };
        // Dormant particles to insert count with the radius they will have.
        let (rmin, rmax) = w.particles.pos[..n]
            .iter()
            .map(|p| p[3])
            .filter(|&r| r > 0.0)
            .chain(w.insertions.iter().flat_map(|i| i.radii.iter().copied()))
            .fold((f32::INFINITY, 0.0f32), |(lo, hi), r| {
                (lo.min(r), hi.max(r))
            });
        let _ = writeln!(
            s,
            "radius      {} .. {}",
            sig4(rmin as f64),
            qty(rmax as f64, "m")
        );
        // Frames write the identity for a sphere that keeps no orientation: say which it is.
        if count(grains_core::shapes::ShapeKind::Sphere as u32) > 0 {
            let _ = writeln!(
                s,
                "orientation {}",
                if w.particles.sphere_orientation() {
                    "spheres' tracked (simulation.sphere_orientation = true)"
                } else {
                    "none kept for spheres (the identity in frames; simulation.sphere_orientation \
                     = true tracks it)"
                }
            );
        }
        let names: Vec<&str> = w.materials.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(
            s,
            "materials   {} ({})",
            w.materials.len(),
            names.join(", ")
        );
    }

    /// The summary's wall (by block, with what they hold), bond, insertion, shell and chain
    /// lines.
    fn summarise_walls_and_blocks(&self, s: &mut String) {
        let w = &self.world;
        let tris = w.triangle_tail();
        let kinds = |k: u32| w.walls.iter().filter(|x| x.kind == k).count();
        let mut what: Vec<String> = grains_core::kernels::walls::WallKind::ALL
            .iter()
            .map(|k| (k.id(), k.keyword()))
            .filter(|(k, _)| kinds(*k) > 0)
            .map(|(k, name)| format!("{} {name}{}", kinds(k), if kinds(k) > 1 { "s" } else { "" }))
            .collect();
        let moving = w.walls.iter().filter(|x| x.moves()).count();
        if moving > 0 {
            what.push(format!("{moving} moving"));
        }
        if tris > 0 {
            what.push(format!("mesh walls of {tris} triangles"));
        }
        let _ = if what.is_empty() {
            writeln!(s, "walls       {}", self.wall_blocks)
        } else {
            writeln!(s, "walls       {} ({})", self.wall_blocks, what.join(", "))
        };
        if !w.fixed_pairs.is_empty() {
            let _ = writeln!(s, "bonds       {}", w.fixed_pairs.len());
        }
        for (k, ins) in w.insertions.iter().enumerate() {
            let _ = writeln!(
                s,
                "insert[{k}]   {} particles at {} particles/s from t = {}, batches every {} steps",
                ins.radii.len(),
                sig4(ins.rate),
                qty(ins.start, "s"),
                w.insert_every
            );
        }
        if !w.shells.is_empty() {
            let sh = &w.shells;
            let nodes: u32 = sh.nodes.iter().map(|n| n.1).sum();
            let _ = writeln!(
                s,
                "shells      {} ({nodes} nodes, {} edges, {} triangles; element time {})",
                sh.shells.len(),
                sh.edges.len(),
                sh.triangles.len(),
                sh.element_time(&w.particles)
                    .map_or("none".to_string(), |t| qty(t, "s"))
            );
        }
        let _ = writeln!(s, "chains      {}", w.table.chains.len());
        for c in &w.table.chains {
            let _ = writeln!(s, "            {}", c.name());
        }
    }

    /// The summary's domain, gravity, time-step, step-count, backend and output lines.
    fn summarise_run(&self, s: &mut String) {
        let w = &self.world;
        let per: Vec<&str> = w
            .domain
            .periodic
            .iter()
            .map(|&p| if p { "periodic" } else { "open" })
            .collect();
        let (lo, hi) = (&w.domain.min, &w.domain.max);
        let _ = writeln!(
            s,
            "domain      [{}, {}] x [{}, {}] x [{}, {}] m ({}){}",
            sig4(lo[0]),
            sig4(hi[0]),
            sig4(lo[1]),
            sig4(hi[1]),
            sig4(lo[2]),
            sig4(hi[2]),
            per.join(", "),
            if w.planar {
                "; 2-D: particles in z = 0"
            } else {
                ""
            }
        );
        let _ = writeln!(
            s,
            "gravity     [{}, {}, {}] m/s^2",
            sig4(w.gravity[0]),
            sig4(w.gravity[1]),
            sig4(w.gravity[2])
        );
        let _ = writeln!(
            s,
            "dt          {} ({})",
            qty(w.dt, "s"),
            if self.dt_auto { "auto" } else { "given" }
        );
        let t = &self.timestep;
        let d = &w.dynamics;
        use grains_core::dynamics::Mode;
        match d.mode {
            Mode::Inertial | Mode::Underdamped => {
                let _ = writeln!(
                    s,
                    "rayleigh    {} (dt = {}% of it)",
                    qty(t.rayleigh, "s"),
                    sig4(100.0 * w.dt / t.rayleigh)
                );
                let _ = writeln!(
                    s,
                    "collision   {} at impact speed {} ({:.0} steps per collision)",
                    qty(t.collision, "s"),
                    qty(t.impact_speed, "m/s"),
                    t.collision / w.dt
                );
            }
            Mode::Overdamped => {
                let _ = writeln!(
                    s,
                    "relaxation  gamma_0/k = {} ({} steps per relaxation time)",
                    qty(t.relaxation, "s"),
                    sig4(t.relaxation / w.dt)
                );
            }
            Mode::Static => {}
        }
        if d.implicit() {
            let _ = writeln!(
                s,
                "dynamics    {}, implicitness {}, solver tolerance {:.1e} in at most {} \
                 conjugate-gradient iterations",
                d.mode.keyword(),
                d.implicitness,
                d.tolerance,
                d.max_iterations
            );
        }
        let _ = writeln!(s, "skin        {}", qty(w.skin, "m"));
        let _ = writeln!(
            s,
            "steps       {} ({} simulated)",
            self.run.steps,
            qty(self.run.steps as f64 * w.dt, "s")
        );
        let _ = writeln!(s, "backend     {}", self.run.backend.keyword());
        let mut formats = Vec::new();
        if self.output.vtk {
            formats.push("vtk");
        }
        if self.output.csv {
            formats.push("csv");
        }
        if self.output.contacts {
            formats.push("contacts");
        }
        if self.output.stress.is_some() {
            formats.push("stress");
        }
        if self.output.energy {
            formats.push("energy");
        }
        let _ = writeln!(
            s,
            "output      {} every {} steps ({})",
            self.output.dir.display(),
            self.output.every_steps,
            if formats.is_empty() {
                "nothing".to_string()
            } else {
                formats.join(", ")
            }
        );
    }
}
