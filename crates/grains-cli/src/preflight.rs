//! What `grains check` and `grains run` verify before a run starts, and how a run that went
//! wrong is explained: memory and disk estimated from the counts, initial overlaps, and the
//! likely cause of a fault.

use anyhow::{bail, Result};
use grains_core::backend::{CONTACTS_PER_PARTICLE, ENTRIES_PER_PARTICLE};
use grains_core::cpu::CpuMemoryModel;
use grains_core::overlaps::{Other, OverlapReport};
use grains_core::units::{qty, qty_f32, sig4, sig4_f32};
use grains_core::Snapshot;
use grains_gpu::memory::GpuMemoryModel;
use grains_scene::{bytes, MemoryBudget, Scene};
use std::path::{Path, PathBuf};

/// The value of `key` (given in kB) in a `/proc` status file, in bytes.
fn proc_kib(file: impl AsRef<Path>, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A cgroup memory figure in bytes: `None` where the file is missing or unreadable, or says
/// "max" (cgroup v2's "no limit"), or holds a value past 2^60 (cgroup v1's "no limit" is the
/// largest page-aligned i64).
fn cgroup_bytes(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let v: u64 = text.trim().parse().ok()?;
    (v < 1 << 60).then_some(v)
}

/// What the container (the process's cgroup) still allows, `limit - usage` (bytes), and which
/// files said so: cgroup v2 (`memory.max`, `memory.current`) or v1 (`memory.limit_in_bytes`,
/// `memory.usage_in_bytes`) under `root/sys/fs/cgroup`; `None` without a limit.
fn cgroup_available(root: &Path) -> Option<(u64, String)> {
    let base = root.join("sys/fs/cgroup");
    let pairs = [
        ("", "memory.max", "memory.current"),
        ("memory", "memory.limit_in_bytes", "memory.usage_in_bytes"),
    ];
    pairs.iter().find_map(|(dir, limit, usage)| {
        let d = base.join(dir);
        let max = cgroup_bytes(&d.join(limit))?;
        let used = cgroup_bytes(&d.join(usage)).unwrap_or(0);
        let shown = Path::new("/sys/fs/cgroup").join(dir);
        Some((
            max.saturating_sub(used),
            format!(
                "the container's memory limit ({limit} less {usage} in {})",
                shown.display()
            ),
        ))
    })
}

/// The memory that can be allocated (bytes), with where the figure comes from: the least of
/// `MemAvailable` of `root/proc/meminfo` and the container's limit less its usage
/// ([`cgroup_available`]), where each exists. A process over its cgroup's limit is killed by
/// the kernel without a message, whatever the machine has free. `None` where neither is known.
pub fn available_memory_in(root: &Path) -> Option<(u64, String)> {
    let meminfo = proc_kib(root.join("proc/meminfo"), "MemAvailable:")
        .map(|b| (b, "MemAvailable in /proc/meminfo".to_string()));
    match (meminfo, cgroup_available(root)) {
        (Some(m), Some(c)) => Some(if c.0 < m.0 { c } else { m }),
        (m, c) => m.or(c),
    }
}

/// The memory this process can allocate (bytes): [`available_memory_in`] the root.
pub fn available_memory() -> Option<u64> {
    available_memory_in(Path::new("/")).map(|(bytes, _)| bytes)
}

/// The memory a scene may take: `--memory-limit` when given, else the memory available to the
/// process (none where it cannot be read, and then nothing is refused).
pub fn memory_budget(limit: Option<u64>) -> Option<MemoryBudget> {
    match limit {
        Some(bytes) => Some(MemoryBudget {
            bytes,
            what: "--memory-limit".into(),
        }),
        None => {
            available_memory_in(Path::new("/")).map(|(bytes, what)| MemoryBudget { bytes, what })
        }
    }
}

/// The process's peak resident set (`VmHWM` of `/proc/self/status`, bytes); `None` where
/// there is no such file.
pub fn peak_resident() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// The process's resident set now (`VmRSS` of `/proc/self/status`, bytes).
pub fn resident() -> Option<u64> {
    proc_kib("/proc/self/status", "VmRSS:")
}

/// What the first look for a hardware GPU added to the resident set (bytes): the Vulkan
/// drivers it loaded (lavapipe brings LLVM, about 60 MiB), which stay loaded for the run.
static PROBE_BYTES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Whether every GPU adapter is a CPU device (lavapipe) or there is none, measuring the first
/// time what loading the drivers to ask cost ([`probe_bytes`]).
pub fn no_hardware_gpu() -> bool {
    let before = resident();
    let cpu_only = grains_gpu::list_adapters()
        .iter()
        .all(|a| a.device_type == "Cpu");
    if let (Some(a), Some(b)) = (before, resident()) {
        let _ = PROBE_BYTES.set(b.saturating_sub(a));
    }
    cpu_only
}

/// The resident bytes the drivers took when [`no_hardware_gpu`] first asked; `None` if it never
/// did.
pub fn probe_bytes() -> Option<u64> {
    PROBE_BYTES.get().copied()
}

/// A byte count as given on the command line: `123456`, or with a binary suffix `K`, `M`, `G`,
/// `T` (an optional `iB` or `B` after it): `512M`, `2GiB`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("expected a byte count such as 2G or 512MiB, found \"{s}\""))?;
    let shift = match unit.trim().trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => {
            return Err(format!(
                "unknown unit in \"{s}\"; expected a byte count with K, M, G or T (binary), e.g. 2G"
            ))
        }
    };
    let v = x * (1u64 << shift) as f64;
    if !(v.is_finite() && v >= 1.0 && v < u64::MAX as f64) {
        return Err(format!("expected a positive byte count, found \"{s}\""));
    }
    Ok(v as u64)
}

/// Refuse a scene whose estimated memory on the chosen backend exceeds the budget.
pub fn check_memory(
    scene: &Scene,
    estimate: u64,
    backend: &str,
    budget: Option<&MemoryBudget>,
) -> Result<()> {
    let Some(budget) = budget else {
        return Ok(());
    };
    if estimate > budget.bytes {
        let n = scene.world.particles.len() as u64;
        let per = estimate / n.max(1);
        bail!(
            "{}: {n} particles need about {} on the {backend} backend ({} per particle), more \
             than the {} available ({}); at most about {} particles fit",
            scene.path.display(),
            bytes(estimate),
            bytes(per),
            bytes(budget.bytes),
            budget.what,
            budget.bytes / per.max(1)
        );
    }
    Ok(())
}

/// One line on the initial overlaps, for `grains check`.
pub fn overlap_line(r: &OverlapReport) -> String {
    match r.worst {
        None => "overlaps    none at the start".to_string(),
        Some(w) => format!(
            "overlaps    {} particle pairs and {} particle-wall pairs at the start; the deepest is \
             {}% of the smaller radius ({})",
            r.pairs,
            r.wall_contacts,
            sig4(100.0 * w.relative),
            match w.other {
                Other::Particle(j) => format!("particles {} and {j}", w.i),
                Other::Wall(k) => format!("particle {} and wall plane {k}", w.i),
            }
        ),
    }
}

/// The initial overlaps, refused above the scene's `max_initial_overlap` with the worst pair.
pub fn check_overlaps(scene: &Scene) -> Result<OverlapReport> {
    let r = scene.overlaps;
    let limit = scene.guards.max_initial_overlap;
    if let Some(w) = r.worst.filter(|w| w.relative > limit) {
        let pos = &scene.world.particles.pos;
        let at = |i: u32| {
            let p = pos[i as usize];
            format!(
                "({}, {}, {}) m, radius {}",
                sig4_f32(p[0]),
                sig4_f32(p[1]),
                sig4_f32(p[2]),
                qty_f32(p[3], "m")
            )
        };
        let what = match w.other {
            Other::Particle(j) => format!("particles {} at {} and {j} at {}", w.i, at(w.i), at(j)),
            Other::Wall(k) => format!("particle {} at {} and wall plane {k}", w.i, at(w.i)),
        };
        bail!(
            "{}: {what} overlap by {} ({}% of the smaller radius) at the start, more than \
             `simulation.max_initial_overlap` = {}% allows ({} overlapping particle pairs, {} \
             particle-wall pairs in all): their contact would push them apart at a speed no \
             collision in the scene reaches; space the particles, or raise max_initial_overlap \
             (a fraction of the smaller radius) if the overlap is intended",
            scene.path.display(),
            qty(w.depth, "m"),
            sig4(100.0 * w.relative),
            sig4(100.0 * limit),
            r.pairs,
            r.wall_contacts
        );
    }
    Ok(r)
}

/// The output a run will write, estimated from the counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutputEstimate {
    /// Output frames (the initial one included).
    pub frames: u64,
    /// Bytes of all frames, energy lines and checkpoints.
    pub bytes: u64,
}

/// Estimate the output of steps `start..=steps` of `scene` written every `every` steps; a
/// checkpoint is taken as `cpu_memory` bytes, the scene's CPU estimate
/// ([`CpuMemoryModel::dense_pack`], which a caller that has let the scene's positions go
/// computed before).
pub fn output_estimate(
    scene: &Scene,
    opts: &grains_io::OutputOptions,
    start: u64,
    cpu_memory: u64,
) -> OutputEstimate {
    let steps = scene.run.steps;
    let every = scene.output.every_steps.max(1);
    // Mesh walls' triangles are not written as particles.
    let n = (scene.world.particles.len() - scene.world.triangle_tail()) as u64;
    // As a run writes them: the first frame (of a fresh run), every multiple of `every` after
    // `start`, and the last step when it is not one.
    let from_here = (steps / every).saturating_sub(start / every)
        + u64::from(steps > start && !steps.is_multiple_of(every))
        + u64::from(start == 0);
    let sh = &scene.world.shells;
    let shells = if opts.vtk {
        grains_io::shell_frame_bytes_estimate(
            sh.nodes.iter().map(|n| n.1 as u64).sum(),
            sh.edges.len() as u64,
            sh.triangles.len() as u64,
        )
    } else {
        0
    };
    let frame = grains_io::frame_bytes_estimate(opts, n).saturating_add(shells);
    let mut bytes = from_here.saturating_mul(frame);
    // A checkpoint is rewritten in place: one at a time on disk (and its temporary copy).
    if scene.output.checkpoint_every_steps.is_some() {
        bytes = bytes.saturating_add(2 * cpu_memory);
    }
    OutputEstimate {
        frames: from_here,
        bytes,
    }
}

/// Free space (bytes) for an unprivileged user on the disk that holds `dir`, or the nearest
/// existing folder above it.
pub fn free_space(dir: &Path) -> Option<u64> {
    let mut d: PathBuf = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir.to_path_buf()
    };
    loop {
        if d.exists() {
            return fs4::available_space(&d).ok();
        }
        if !d.pop() || d.as_os_str().is_empty() {
            return fs4::available_space(".").ok();
        }
    }
}

/// Refuse a run whose output would not fit on the output disk.
pub fn check_disk(scene: &Scene, dir: &Path, est: &OutputEstimate) -> Result<()> {
    if let Some(free) = free_space(dir) {
        if est.bytes > free {
            bail!(
                "{}: the run would write about {} ({} frames to {}), more than the {} free on \
                 that disk; write fewer frames (`output.every`), fewer formats \
                 (`output.formats`), or run fewer steps",
                scene.path.display(),
                bytes(est.bytes),
                est.frames,
                dir.display(),
                bytes(free)
            );
        }
    }
    Ok(())
}

/// The time step against the scene's critical times, for the likely cause of a blow-up, with a
/// smaller step to try (never the one in use: [`grains_core::timestep::TimestepReport::suggested`]).
fn dt_figures(scene: &Scene) -> String {
    let t = &scene.timestep;
    let dt = scene.world.dt;
    let try_dt = t.suggested(dt);
    let advice = if try_dt == t.auto_dt {
        format!(
            "`dt = \"auto\"` would choose {} (set by {})",
            qty(try_dt, "s"),
            t.limit.describe()
        )
    } else {
        format!(
            "it is `dt = \"auto\"`'s own choice (set by {}): try a smaller step, such as {}",
            t.limit.describe(),
            qty(try_dt, "s")
        )
    };
    format!(
        "dt = {} is {}% of the Rayleigh time ({}) and resolves a collision in {} steps; {advice}",
        qty(dt, "s"),
        sig4(100.0 * dt / t.rayleigh),
        qty(t.rayleigh, "s"),
        sig4(t.collision / dt),
    )
}

/// The line of `grains check` that says which limit chose `dt = "auto"`, with the dashpot and
/// travel times it weighed.
pub fn timestep_line(scene: &Scene) -> String {
    let t = &scene.timestep;
    let finite = |x: f64| {
        if x.is_finite() {
            qty(x, "s")
        } else {
            "none".into()
        }
    };
    if matches!(
        scene.world.dynamics.mode,
        grains_core::dynamics::Mode::Overdamped | grains_core::dynamics::Mode::Static
    ) {
        // Without inertia there are no dashpot relaxations or impacts to weigh.
        return format!(
            "dt limit    `dt = \"auto\"` = {} is set by {}",
            qty(t.auto_dt, "s"),
            t.limit.describe()
        );
    }
    format!(
        "dt limit    `dt = \"auto\"` = {} is set by {} (dashpot relaxation m*/c: {}; travel \
         of the smallest radius at {}: {})",
        qty(t.auto_dt, "s"),
        t.limit.describe(),
        finite(t.damping),
        qty(t.impact_speed, "m/s"),
        finite(t.travel)
    )
}

/// What the energy audit's figure is relative to, as the run measures it.
pub const AUDIT_SCALE: &str = "relative to the larger of its starting total and the work walls, \
     kinematic particles and insertion put in, or the energy it dissipated";

/// The warning when the energy ledger's total moved by `worst` (relative) during a run: the
/// ledger books every energy that enters or leaves (moving walls', kinematic particles' and
/// inserted particles' work, removed particles' energy), so what moves its total is the
/// integration; the warning proposes a smaller time step (never a larger one, nor the one in
/// use: [`grains_core::timestep::TimestepReport::suggested`]).
pub fn ledger_warning(scene: &Scene, worst: f64) -> String {
    let dt = scene.world.dt;
    let smaller = qty(scene.timestep.suggested(dt), "s");
    format!(
        "the energy ledger's total moved by {}% during the run ({AUDIT_SCALE}): if the time \
         step ({}) is too large for these contacts, a smaller one such as {smaller} closes it",
        sig4(100.0 * worst),
        qty(dt, "s")
    )
}

/// Refuse a scene whose expected impacts overlap deeper than the particles' radius: outside
/// what the contact laws describe ([`grains_core::timestep::TimestepReport::overlap_refusal`]),
/// located at the material's `young`.
pub fn check_impact_overlap(scene: &Scene) -> Result<()> {
    let Some(m) = scene.timestep.overlap_refusal() else {
        return Ok(());
    };
    let place = scene
        .timestep
        .impact_overlap
        .as_ref()
        .and_then(|o| {
            let k = scene
                .world
                .materials
                .iter()
                .position(|x| x.name == o.material)?;
            scene.places.young.get(k).cloned()
        })
        .unwrap_or_else(|| scene.path.display().to_string());
    bail!("{place}: {m}")
}

/// The refusals of a scene outside the contact laws' validity or the integrator's stability,
/// which `grains run` and `grains check` make alike unless `--allow-unstable` is given:
/// impacts deeper than the radius, and a dt the time-step report warns of (with the step it
/// recommends).
pub fn check_stability(scene: &Scene) -> Result<()> {
    check_impact_overlap(scene)?;
    match scene.timestep.warning(scene.world.dt) {
        Some(w) => bail!(
            "{}: {w}; refusing to run it: give --allow-unstable to run anyway",
            scene.path.display()
        ),
        None => Ok(()),
    }
}

/// Whether particle `id` of `snap` has a finite position and velocity, and its speed (m/s).
fn finite_and_speed(snap: &Snapshot, id: u32) -> (bool, f64) {
    let (p, v) = (snap.pos[id as usize], snap.vel[id as usize]);
    let speed = ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) as f64).sqrt();
    (p.iter().chain(v.iter()).all(|x| x.is_finite()), speed)
}

/// Free particles of `snap` outside the domain on a non-periodic axis, in index order.
pub fn lost_particles(scene: &Scene, snap: &Snapshot) -> Vec<u32> {
    let d = &scene.world.domain;
    let p = &scene.world.particles;
    // A clump's members go with their body (whose centre decides).
    (0..snap.pos.len() as u32)
        .filter(|&i| {
            snap.vel[i as usize][3] > 0.0
                && p.shape_of(i as usize).kind != grains_core::shapes::KIND_MEMBER
                && d.outside_axis(&snap.pos[i as usize]).is_some()
        })
        .collect()
}

/// Whether particle `id` is finite and within the speed limit: a lost particle that is not has
/// blown up, and deleting it would hide the blow-up.
pub fn healthy(scene: &Scene, snap: &Snapshot, id: u32) -> bool {
    let (finite, speed) = finite_and_speed(snap, id);
    finite && speed <= scene.world.speed_limit
}

/// The output options of a run of `scene` into `dir`.
pub fn output_options(scene: &Scene, dir: &Path) -> grains_io::OutputOptions {
    grains_io::OutputOptions {
        dir: dir.to_path_buf(),
        vtk: scene.output.vtk,
        csv: scene.output.csv,
        energy: scene.output.energy,
        contacts: scene.output.contacts,
        // The division pairs of a colony are fixed pairs too, but no bonds.
        bonds: scene.world.fixed_pairs.len()
            > scene.world.cells.as_ref().map_or(0, |c| c.pairs as usize),
        walls: scene.world.logs_wall_loads(),
        stress: scene.output.stress.is_some(),
        cells: scene.world.cells.is_some(),
    }
}

/// Why a guarded run stopped at particle `id` of `snap`: what is wrong with it, where, and the
/// likely cause.
pub fn fault_message(scene: &Scene, snap: &Snapshot, id: u32) -> String {
    let p = snap.pos[id as usize];
    let w = &scene.world;
    let at = format!("step {} (t = {})", snap.step, qty(snap.time, "s"));
    let (finite, speed) = finite_and_speed(snap, id);
    let place = format!(
        "({}, {}, {}) m",
        sig4_f32(p[0]),
        sig4_f32(p[1]),
        sig4_f32(p[2])
    );
    let unstable = scene.timestep.warning(w.dt).is_some();
    if !finite {
        return format!(
            "particle {id} has a non-finite position or velocity at {at}: the run is unstable; {}",
            dt_figures(scene)
        );
    }
    if speed > w.speed_limit {
        return format!(
            "particle {id} moves at {} at {at}, at {place}, over the guard's limit of {} (100 \
             times the fastest the scene can move a particle: impacts at up to {}, and what its \
             initial overlaps can release): the run is blowing up; {}",
            qty(speed, "m/s"),
            qty(w.speed_limit, "m/s"),
            qty(scene.timestep.impact_speed, "m/s"),
            dt_figures(scene)
        );
    }
    let axis = w.domain.outside_axis(&p).unwrap_or(0);
    let side = if (p[axis] as f64) < w.domain.min[axis] {
        format!(
            "domain.min.{} = {}",
            ["x", "y", "z"][axis],
            qty(w.domain.min[axis], "m")
        )
    } else {
        format!(
            "domain.max.{} = {}",
            ["x", "y", "z"][axis],
            qty(w.domain.max[axis], "m")
        )
    };
    let cause = if unstable || speed > 0.1 * w.speed_limit {
        format!(
            "likely cause: the time step is too large for these contacts; {}",
            dt_figures(scene)
        )
    } else {
        format!(
            "likely cause: nothing holds it in on that side (its speed, {}, is physical, and {}); \
             add a wall there, make the axis periodic, or set `simulation.lost_particles = \
             \"delete\"` to remove such particles and count them",
            qty(speed, "m/s"),
            dt_figures(scene)
        )
    };
    format!("particle {id} left the domain at {at}: it is at {place}, beyond {side}; {cause}")
}

/// The summary's memory lines (`grains check`): the CPU and GPU backends' estimates and
/// where their bytes go.
pub fn memory_lines(scene: &Scene) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let s = &mut s;
    let w = &scene.world;
    // Beside the dense pack the estimate assumes (and a settled bed reaches), the list the
    // run starts from: a falling or loose start holds less until it packs.
    let start = grains_core::overlaps::initial_list(w);
    let contacts = (scene.overlaps.pairs + scene.overlaps.wall_contacts) as usize;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let _ = write!(
        s,
        "memory      ~{:.1} MiB (CPU backend estimate, for a dense pack: {ENTRIES_PER_PARTICLE} \
         list entries and {CONTACTS_PER_PARTICLE} pairs in contact per particle); ~{:.1} MiB \
         for the list at the start ({} entries, {contacts} pairs in contact)",
        mib(CpuMemoryModel::dense_pack(w).total()),
        mib(CpuMemoryModel::of(w).at(start.entries, start.records, contacts)),
        start.entries,
    );
    // Where a dense pack's bytes go, so that a user can see what a change would save (a
    // smaller skin shortens the list; contacts are the pack's own).
    let parts = CpuMemoryModel::dense_pack(w);
    let per = |b: u64| b as f64 / w.particles.len().max(1) as f64;
    let _ = write!(
        s,
        "\n            per particle, dense pack: {:.0} B particle arrays, {:.0} B list, {:.0} B \
         pairs in contact (slots and history), {:.0} B walls, bonds, shells and cells, and \
         {:.0} B more during a rebuild",
        per(parts.particles),
        per(parts.list),
        per(parts.contacts),
        per(parts.other),
        per(parts.rebuild),
    );
    // The GPU backend's device buffers, for the same pack and list: its list buffers grow
    // by an eighth past what they must hold.
    let gpu = GpuMemoryModel::dense_pack(w);
    let _ =
        write!(
        s,
        "\n            ~{:.1} MiB (GPU backend device buffers, for a dense pack); ~{:.1} MiB for \
         the list at the start\n            per particle, dense pack on the GPU: {:.0} B \
         particle arrays, {:.0} B list, {:.0} B pairs in contact (slots, history, their \
         pairs and the ring of slots given back), {:.0} B walls, bonds, shells and cells",
        mib(gpu.total()),
        mib(GpuMemoryModel::of(w).grown_to(start.entries, start.records, contacts).total()),
        per(gpu.particles),
        per(gpu.list),
        per(gpu.contacts),
        per(gpu.other),
    );
    s.clone()
}
