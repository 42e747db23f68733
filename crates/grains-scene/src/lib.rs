//! grains-scene: the TOML scene format of grains (DESIGN.md §5), its validation with
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

mod error;
pub mod generators;
mod law_keys;
mod parse;
mod walk;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use grains_core::timestep::TimestepReport;
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
    /// Write `energy.csv`.
    pub energy: bool,
    /// Write `checkpoint.bin` (the whole state, to resume with `grains run --resume`) every
    /// this many steps and at the end: `checkpoint_every_steps`, or `round(checkpoint_every /
    /// dt)`; none by default.
    pub checkpoint_every_steps: Option<u64>,
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
    /// Whether `output.every_steps` was the default (so a step override rescales it).
    every_default: bool,
}

/// Read a scene file and validate it.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_scene(&text, path)
}

/// Validate scene text. `path` names the file in messages and anchors relative `file =`
/// paths (relative to the folder holding `path`).
pub fn parse_scene(text: &str, path: &Path) -> Result<Scene, SceneError> {
    let p = parse::parse(text, path)?;
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
            energy: p.energy,
            checkpoint_every_steps: p.checkpoint_every_steps,
        },
        timestep: p.timestep,
        dt_auto: p.dt_auto,
        every_default,
    })
}

fn default_every(steps: u64) -> u64 {
    (steps / 100).max(1)
}

/// Neighbour-list entries per particle assumed by the memory estimate: a dense pack has about
/// 6-8 partners within a skin of a quarter diameter, and the list stores each pair from both
/// sides.
const ENTRIES_PER_PARTICLE: usize = 16;

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

    /// Estimated memory of the CPU backend for this scene (bytes): the backend state (every
    /// array of [`grains_core::state::STATE_ARRAYS`], with a dense-pack neighbour list), the
    /// world's copy of the particles, the broad-phase scratch and cells.
    pub fn cpu_memory_estimate(&self) -> u64 {
        let w = &self.world;
        let n = w.particles.len();
        let sizes = grains_core::state::Sizes::of(w, n * ENTRIES_PER_PARTICLE);
        // World copy (4 vec4 arrays + material, mass, inertia), broad-phase scratch (cell,
        // sorted index and count per particle).
        let per_particle = (4 * 16 + 3 * 4 + 3 * 4) as u64;
        let cells = w.grid().map(|g| g.n_cells as u64 * 2 * 4).unwrap_or(0);
        grains_core::state::state_bytes(&sizes) + n as u64 * per_particle + cells
    }

    /// A multi-line human summary: counts, domain, time step and its limits, steps, memory.
    pub fn summary(&self) -> String {
        let w = &self.world;
        let mut s = String::new();
        let _ = writeln!(s, "scene       {}", self.path.display());
        let _ = writeln!(s, "particles   {}", w.particles.len());
        let (rmin, rmax) = w
            .particles
            .pos
            .iter()
            .fold((f32::INFINITY, 0.0f32), |(lo, hi), p| {
                (lo.min(p[3]), hi.max(p[3]))
            });
        let _ = writeln!(s, "radius      {rmin:.4e} .. {rmax:.4e} m");
        let names: Vec<&str> = w.materials.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(
            s,
            "materials   {} ({})",
            w.materials.len(),
            names.join(", ")
        );
        let _ = writeln!(s, "walls       {}", w.walls.len());
        let _ = writeln!(s, "chains      {}", w.table.chains.len());
        for c in &w.table.chains {
            let _ = writeln!(s, "            {}", c.name());
        }
        let per: Vec<&str> = w
            .domain
            .periodic
            .iter()
            .map(|&p| if p { "periodic" } else { "open" })
            .collect();
        let _ = writeln!(
            s,
            "domain      [{:.4e}, {:.4e}] x [{:.4e}, {:.4e}] x [{:.4e}, {:.4e}] m ({})",
            w.domain.min[0],
            w.domain.max[0],
            w.domain.min[1],
            w.domain.max[1],
            w.domain.min[2],
            w.domain.max[2],
            per.join(", ")
        );
        let _ = writeln!(
            s,
            "gravity     [{}, {}, {}] m/s^2",
            w.gravity[0], w.gravity[1], w.gravity[2]
        );
        let _ = writeln!(
            s,
            "dt          {:.4e} s ({})",
            w.dt,
            if self.dt_auto { "auto" } else { "given" }
        );
        let t = &self.timestep;
        let _ = writeln!(
            s,
            "rayleigh    {:.4e} s (dt = {:.1}% of it)",
            t.rayleigh,
            100.0 * w.dt / t.rayleigh
        );
        let _ = writeln!(
            s,
            "collision   {:.4e} s at impact speed {:.4} m/s ({:.0} steps per collision)",
            t.collision,
            t.impact_speed,
            t.collision / w.dt
        );
        if let Some(warn) = t.warning(w.dt) {
            let _ = writeln!(s, "warning     {warn}");
        }
        let _ = writeln!(s, "skin        {:.4e} m", w.skin);
        let _ = writeln!(
            s,
            "steps       {} ({:.4e} s simulated)",
            self.run.steps,
            self.run.steps as f64 * w.dt
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
        let _ = write!(
            s,
            "memory      ~{:.1} MiB (CPU backend estimate)",
            self.cpu_memory_estimate() as f64 / (1024.0 * 1024.0)
        );
        s
    }
}
