//! The `grains` Python package's extension module: a [`Simulation`] over the same library as
//! the CLI (scene reading, overrides, backends, checkpoints), its state read and written as
//! NumPy arrays. The Python side (`python/grains/__init__.py`) re-exports it with its
//! documentation.

use std::path::{Path, PathBuf};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pyo3::create_exception!(
    _grains,
    SimulationError,
    pyo3::exceptions::PyRuntimeError,
    "A run that stopped: a particle that blew up or left the domain, output that could not be \
     written; the message is the CLI's."
);

pyo3::create_exception!(
    _grains,
    SceneError,
    PyValueError,
    "A scene that cannot be read: the message is the CLI's, `file:line:column: key: what`."
);

/// A simulation of one scene on one backend.
#[pyclass(unsendable, module = "grains")]
pub struct Simulation {
    /// The scene, its backend and its output, stepped as `grains run` steps them.
    runner: grains_cli::runner::Runner,
    /// Particles of the scene (the mesh walls' triangles follow them in the backend).
    n: usize,
    /// Each particle's mass (kg) and material index, and the materials' names.
    mass: Vec<f32>,
    material: Vec<u32>,
    materials: Vec<String>,
    /// The world's fingerprint, which checkpoints carry.
    fingerprint: u64,
    /// The time step (s).
    dt: f64,
    /// The scene's source and backend choice, to build the backend again with a capability
    /// its world was built without (applied forces, fixed particles).
    source: Source,
    choice: grains_cli::BackendArg,
}

/// Where a scene came from: a file, or TOML text.
#[derive(Clone)]
enum Source {
    File(PathBuf, Vec<grains_scene::overrides::Override>),
    Text(String, Vec<grains_scene::overrides::Override>),
}

impl Source {
    /// `scene` as a Python caller gives it: TOML text (several lines, or a table first), or
    /// else a path.
    fn of(scene: &str, sets: Vec<grains_scene::overrides::Override>) -> Source {
        if scene.contains('\n') || scene.trim_start().starts_with('[') {
            Source::Text(scene.to_string(), sets)
        } else {
            Source::File(PathBuf::from(scene), sets)
        }
    }
}

fn scene_error(e: impl std::fmt::Display) -> PyErr {
    SceneError::new_err(e.to_string())
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The overrides of a dict `{"material.glass.young": 1e7}`: each `PATH=VALUE` as `--set` reads
/// it (a Python string value is given as a TOML string).
fn overrides(d: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<grains_scene::overrides::Override>> {
    let Some(d) = d else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        let value = if let Ok(s) = v.extract::<String>() {
            format!("{s:?}")
        } else if let Ok(b) = v.extract::<bool>() {
            b.to_string()
        } else {
            v.str()?.to_string()
        };
        out.push(format!("{key}={value}").parse().map_err(value_error)?);
    }
    Ok(out)
}

fn read_scene(source: &Source) -> PyResult<grains_scene::Scene> {
    match source {
        Source::File(path, sets) => {
            grains_scene::load_scene_with(path, None, sets).map_err(scene_error)
        }
        Source::Text(text, sets) => {
            let path = Path::new("<scene>");
            let applied = grains_scene::overrides::apply(text, path, sets).map_err(scene_error)?;
            grains_scene::parse_scene(&applied.text, path)
                .map_err(|e| scene_error(applied.locate(e)))
        }
    }
}

fn backend_choice(name: &str) -> PyResult<grains_cli::BackendArg> {
    match name {
        "auto" => Ok(grains_cli::BackendArg::Auto),
        "cpu" => Ok(grains_cli::BackendArg::Cpu),
        "gpu" => Ok(grains_cli::BackendArg::Gpu),
        other => Err(value_error(format!(
            "backend {other:?}: expected \"auto\", \"cpu\" or \"gpu\""
        ))),
    }
}

/// `n` rows of three from `rows`, as an `(n, 3)` float64 array.
fn rows3<'py>(py: Python<'py>, rows: impl Iterator<Item = [f64; 3]>) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = rows.flatten().collect();
    let n = flat.len() / 3;
    Array2::from_shape_vec((n, 3), flat)
        .unwrap_or_else(|_| Array2::zeros((0, 3)))
        .into_pyarray(py)
}

/// The `x, y, z` of the first `n` rows of a backend's array, as an `(n, 3)` array.
fn xyz<'py>(py: Python<'py>, rows: &[[f32; 4]], n: usize) -> Bound<'py, PyArray2<f64>> {
    rows3(py, rows[..n].iter().map(|p| [0, 1, 2].map(|k| p[k] as f64)))
}

/// Rows a caller passes: a float64 array, or anything numpy makes one of (a list, another
/// float or integer dtype), converted as `numpy.asarray(x, dtype=float64)` does.
type Rows<'py> = numpy::PyArrayLike2<'py, f64, numpy::AllowTypeChange>;

/// The rows of an `(n, 3)` array, checked for shape and finiteness, as f32.
fn rows_of(a: &PyReadonlyArray2<'_, f64>, n: usize, what: &str) -> PyResult<Vec<[f32; 3]>> {
    let a = a.as_array();
    if a.shape() != [n, 3] {
        return Err(value_error(format!(
            "{what} of shape {:?}: expected ({n}, 3)",
            a.shape()
        )));
    }
    let rows: Vec<[f32; 3]> = a
        .rows()
        .into_iter()
        .map(|r| [r[0] as f32, r[1] as f32, r[2] as f32])
        .collect();
    if let Some(k) = rows.iter().position(|r| r.iter().any(|x| !x.is_finite())) {
        return Err(value_error(format!(
            "{what} {k} is not finite: {:?}",
            rows[k]
        )));
    }
    Ok(rows)
}

impl Simulation {
    fn build(
        source: Source,
        choice: grains_cli::BackendArg,
        state: Option<grains_core::BackendState>,
        out: Option<&str>,
    ) -> PyResult<Simulation> {
        let scene = read_scene(&source)?;
        let world = &scene.world;
        let n = world.particles.len() - world.triangle_tail();
        let (mass, material) = (
            world.particles.mass[..n].to_vec(),
            world.particles.material[..n].to_vec(),
        );
        let materials = world.materials.iter().map(|m| m.name.clone()).collect();
        let fingerprint = world.fingerprint();
        let dt = world.dt;
        let runner =
            grains_cli::run::open_runner(scene, choice, state, (out.map(Path::new), false))
                .map_err(|e| scene_error(format!("{e:#}")))?;
        Ok(Simulation {
            source,
            choice,
            runner,
            n,
            mass,
            material,
            materials,
            fingerprint,
            dt,
        })
    }

    /// Apply `change` to the backend; where its world was built without what the change needs
    /// (applied forces, moving fixed particles), build the backend again from its state with
    /// that turned on (the scene read again, the state carried whole), then apply it.
    fn with_capability(
        &mut self,
        change: impl Fn(&mut dyn grains_core::Backend) -> Result<(), grains_core::CoreError>,
    ) -> PyResult<()> {
        match change(self.runner.backend.as_mut()) {
            Err(grains_core::CoreError::BuiltWithout { flag, .. }) => {
                let state = self.runner.backend.state();
                let mut world = read_scene(&self.source)?.world;
                match flag {
                    "applied_forces" => world.applied_forces = true,
                    _ => world.kinematic = true,
                }
                let resume = grains_cli::Resume::State(Box::new(state));
                let (backend, _) = grains_cli::make_backend_from(world, self.choice, Some(resume))
                    .map_err(|e| value_error(format!("{e:#}")))?;
                self.runner.backend = backend;
                // Another capability may be missing still (fixing needs the kinematic one).
                self.with_capability(change)
            }
            other => other.map_err(value_error),
        }
    }

    /// `ids` checked against the particles (all of them when `None`).
    fn checked_ids(&self, ids: Option<PyReadonlyArray1<'_, i64>>) -> PyResult<Vec<u32>> {
        match ids {
            None => Ok((0..self.n as u32).collect()),
            Some(a) => a
                .as_array()
                .iter()
                .map(|&i| {
                    if i < 0 || i as usize >= self.n {
                        Err(value_error(format!(
                            "id {i} is out of range: the scene has {} particles (0 to {})",
                            self.n,
                            self.n.saturating_sub(1)
                        )))
                    } else {
                        Ok(i as u32)
                    }
                })
                .collect(),
        }
    }
}

#[pymethods]
impl Simulation {
    /// Read `scene` (a path to a scene file, or the TOML text of one) with `overrides`
    /// (`{"material.glass.young": 1e7}`, as `grains run --set`), and build its `backend`
    /// ("auto", "cpu" or "gpu"). With `out`, the run writes to that folder what `grains run`
    /// writes (frames, logs, checkpoints at the scene's cadence), from its first frame on.
    /// Raises `SceneError` with the CLI's message for a bad scene (and for one `grains run`
    /// refuses: an unstable time step, deep initial overlaps).
    #[new]
    #[pyo3(signature = (scene, backend = "auto", out = None, overrides = None))]
    fn new(
        scene: &str,
        backend: &str,
        out: Option<&str>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Simulation> {
        let source = Source::of(scene, self::overrides(overrides)?);
        Simulation::build(source, backend_choice(backend)?, None, out)
    }

    /// Resume the simulation of `scene` (as for `Simulation`) from the checkpoint at `path`
    /// that `checkpoint` wrote; a checkpoint of another scene is refused.
    #[staticmethod]
    /// With `out`, the resumed run writes its output there afresh, from the checkpoint's step.
    #[pyo3(signature = (scene, path, backend = "auto", out = None, overrides = None))]
    fn resume(
        scene: &str,
        path: &str,
        backend: &str,
        out: Option<&str>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Simulation> {
        let source = Source::of(scene, self::overrides(overrides)?);
        let (fingerprint, state) =
            grains_io::read_checkpoint(Path::new(path)).map_err(value_error)?;
        let sim = Simulation::build(source, backend_choice(backend)?, Some(state), out)?;
        if sim.fingerprint != fingerprint {
            return Err(value_error(format!(
                "{path} was written for a different scene (particles, materials, walls, laws, \
                 domain, dt or skin differ)"
            )));
        }
        Ok(sim)
    }

    /// Write the state to `path` (a checkpoint `Simulation.resume` and `grains run --resume`
    /// read).
    fn checkpoint(&mut self, path: &str) -> PyResult<()> {
        grains_io::write_backend_checkpoint(
            Path::new(path),
            self.fingerprint,
            self.runner.backend.as_mut(),
        )
        .map_err(value_error)
    }

    /// Take `n` steps, with the GIL released, doing what a run does between them: insertion,
    /// servos, deleting lost particles (where the scene says so) and, with an output folder,
    /// writing frames, logs and checkpoints at the scene's cadence. A particle that blows up or
    /// leaves the domain raises `SimulationError` with the CLI's message.
    #[pyo3(signature = (n = 1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<()> {
        let runner = &mut self.runner;
        let end = runner.backend.counters().steps + n;
        py.detach(|| runner.step_to(end))
            .map_err(|e| SimulationError::new_err(format!("{e:#}")))?;
        Ok(())
    }

    /// Write the output of this step now (frame, logs), off the scene's cadence; nothing
    /// without an output folder.
    fn write_frame(&mut self) -> PyResult<()> {
        self.runner
            .write_frame()
            .map_err(|e| SimulationError::new_err(format!("{e:#}")))
    }

    /// Flush the output folder's files (the frames' `.pvd` index, the CSV logs) and release
    /// the folder; the simulation can still step, without output.
    fn close(&mut self) -> PyResult<()> {
        self.runner
            .close()
            .map_err(|e| SimulationError::new_err(format!("{e:#}")))
    }

    /// Run `steps` steps (or `duration` seconds, rounded to whole steps; neither: on to the
    /// scene's last step, as `grains run` does), calling
    /// `callback(sim)` every `every` steps; a callback returning False stops the run. The GIL
    /// is released while stepping. Returns the steps taken.
    #[pyo3(signature = (steps = None, duration = None, every = None, callback = None))]
    fn run(
        slf: &Bound<'_, Self>,
        steps: Option<u64>,
        duration: Option<f64>,
        every: Option<u64>,
        callback: Option<Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let dt = slf.borrow().dt;
        let total = match (steps, duration) {
            (Some(s), None) => s,
            (None, Some(d)) if d >= 0.0 => (d / dt).round() as u64,
            (None, None) => {
                let sim = slf.borrow();
                let at = sim.runner.backend.counters().steps;
                sim.runner.scene.run.steps.saturating_sub(at)
            }
            _ => return Err(value_error("give steps or duration, not both")),
        };
        let every = every.unwrap_or(total).max(1);
        let mut done = 0;
        while done < total {
            let n = every.min(total - done);
            slf.borrow_mut().step(slf.py(), n)?;
            done += n;
            if let Some(cb) = &callback {
                let go = cb.call1((slf,))?;
                if go.extract::<bool>().ok() == Some(false) {
                    break;
                }
            }
        }
        Ok(done)
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.dt
    }

    /// Current time (s).
    #[getter]
    fn time(&self) -> f64 {
        self.runner.backend.time()
    }

    /// Steps taken.
    #[getter]
    fn step_count(&self) -> u64 {
        self.runner.backend.counters().steps
    }

    /// Centres (m), `(n, 3)`.
    #[getter]
    fn positions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        xyz(py, &self.runner.backend.snapshot().pos, self.n)
    }

    /// Velocities (m/s), `(n, 3)`.
    #[getter]
    fn velocities<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        xyz(py, &self.runner.backend.snapshot().vel, self.n)
    }

    /// Angular velocities (rad/s), `(n, 3)`.
    #[getter]
    fn angular_velocities<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        xyz(py, &self.runner.backend.snapshot().omega, self.n)
    }

    /// Contact forces of the last step (N), `(n, 3)`.
    #[getter]
    fn forces<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        xyz(py, &self.runner.backend.snapshot().force, self.n)
    }

    /// Radii (m); negative for a particle not in the run (dormant or deleted).
    #[getter]
    fn radii<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let s = self.runner.backend.snapshot();
        let r: Vec<f64> = s.pos[..self.n].iter().map(|p| p[3] as f64).collect();
        r.into_pyarray(py)
    }

    /// Masses (kg).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let m: Vec<f64> = self.mass.iter().map(|&m| m as f64).collect();
        m.into_pyarray(py)
    }

    /// Each particle's material index, into `material_names`.
    #[getter]
    fn materials<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let m: Vec<i64> = self.material.iter().map(|&m| m as i64).collect();
        m.into_pyarray(py)
    }

    /// The materials' names.
    #[getter]
    fn material_names(&self) -> Vec<String> {
        self.materials.clone()
    }

    /// Particle ids (their indices, as in `particles.csv`).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let v: Vec<i64> = (0..self.n as i64).collect();
        v.into_pyarray(py)
    }

    /// Set the velocities (m/s) of the particles `ids` (all when None) to the rows of `v`,
    /// `(len(ids), 3)`; checked whole before anything is set.
    #[pyo3(signature = (v, ids = None))]
    fn set_velocities(
        &mut self,
        v: Rows<'_>,
        ids: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let ids = self.checked_ids(ids)?;
        let rows = rows_of(&v, ids.len(), "velocity")?;
        self.runner
            .backend
            .set_velocities(&ids, &rows)
            .map_err(value_error)
    }

    /// Move the particles `ids` (all when None) to the rows of `x` (m), `(len(ids), 3)`, inside
    /// the domain; checked whole before anything is set. The neighbour list follows at the
    /// next step.
    #[pyo3(signature = (x, ids = None))]
    fn set_positions(
        &mut self,
        x: Rows<'_>,
        ids: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let ids = self.checked_ids(ids)?;
        let rows = rows_of(&x, ids.len(), "position")?;
        self.runner
            .backend
            .set_positions(&ids, &rows)
            .map_err(value_error)
    }

    /// Hold forces `f` (N), `(len(ids), 3)`, on the particles `ids` (all when None) from now
    /// on, added to their contact forces every step until set again (zero clears them); their
    /// work is booked in the ledger's `kinematic_work`. Checked whole before anything is set.
    #[pyo3(signature = (f, ids = None))]
    fn apply_forces(
        &mut self,
        f: Rows<'_>,
        ids: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let ids = self.checked_ids(ids)?;
        let rows = rows_of(&f, ids.len(), "force")?;
        self.with_capability(|b| b.apply_forces(&ids, &rows))
    }

    /// Fix the particles `ids`: from now on they move at `velocity` (m/s), `(len(ids), 3)` or
    /// one row for all (at rest when None), whatever acts on them, and their work on the
    /// others is booked in the ledger's `kinematic_work`. `release` frees them again.
    #[pyo3(signature = (ids, velocity = None))]
    fn set_fixed(
        &mut self,
        ids: PyReadonlyArray1<'_, i64>,
        velocity: Option<Rows<'_>>,
    ) -> PyResult<()> {
        let ids = self.checked_ids(Some(ids))?;
        let rows = match velocity {
            None => vec![[0.0; 3]; ids.len()],
            Some(v) if v.as_array().shape() == [1, 3] => {
                vec![rows_of(&v, 1, "velocity")?[0]; ids.len()]
            }
            Some(v) => rows_of(&v, ids.len(), "velocity")?,
        };
        self.with_capability(|b| b.set_fixed(&ids, Some(&rows)))
    }

    /// Free the fixed particles `ids`: their mass and inertia act again, from the velocity they
    /// had.
    fn release(&mut self, ids: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let ids = self.checked_ids(Some(ids))?;
        self.with_capability(|b| b.set_fixed(&ids, None))
    }

    /// Insert particles of the scene's scripted `[[insert]]` block `block` (`scripted = true`):
    /// `count` of them at free places of its region (placed as a schedule places them), or one
    /// at each row of `positions` (m), `(k, 3)`, clear of the particles in the run; moving at
    /// `velocity` (m/s; the block's own when None). Checked whole before anything is inserted.
    /// Returns the ids inserted (fewer than `count` where no free place was found).
    #[pyo3(signature = (block = 0, count = None, positions = None, velocity = None))]
    fn insert<'py>(
        &mut self,
        py: Python<'py>,
        block: usize,
        count: Option<u32>,
        positions: Option<Rows<'_>>,
        velocity: Option<[f64; 3]>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let placing = match (count, positions) {
            (Some(n), None) => grains_cli::runner::Placing::Free(n),
            (None, Some(x)) => {
                let k = x.as_array().shape()[0];
                grains_cli::runner::Placing::At(rows_of(&x, k, "position")?)
            }
            _ => return Err(value_error("give count or positions, one of them")),
        };
        let v = velocity.map(|v| v.map(|x| x as f32));
        let (ids, _) = self
            .runner
            .insert_scripted(block, placing, v)
            .map_err(|e| value_error(format!("{e:#}")))?;
        Ok(ids
            .into_iter()
            .map(|i| i as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py))
    }

    /// Remove the particles `ids` from the run (their radius becomes negative, as a deleted
    /// particle's; the ledger's `removed` takes their energy).
    fn remove(&mut self, ids: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let ids = self.checked_ids(Some(ids))?;
        self.runner
            .backend
            .remove_particles(&ids)
            .map_err(value_error)
    }

    /// Orientations (quaternions `x, y, z, w`), `(n, 4)`; the identity where none is kept.
    #[getter]
    fn orientations<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let s = self.runner.backend.snapshot();
        let flat: Vec<f64> = (0..self.n)
            .flat_map(|i| {
                s.quat
                    .get(i)
                    .copied()
                    .unwrap_or(grains_core::shapes::IDENTITY)
            })
            .map(f64::from)
            .collect();
        Array2::from_shape_vec((self.n, 4), flat)
            .unwrap_or_else(|_| Array2::zeros((0, 4)))
            .into_pyarray(py)
    }

    /// The walls' loads now: a dict of `(walls, 3)` arrays `force` (N, what the particles
    /// exert on each), `torque` (N m, about its centre) and `center` (m), in `walls.csv`'s
    /// order (the analytic walls, then the mesh walls).
    fn wall_loads<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let loads = self.runner.backend.wall_loads();
        let d = PyDict::new(py);
        d.set_item("force", rows3(py, loads.iter().map(|l| l.force)))?;
        d.set_item("torque", rows3(py, loads.iter().map(|l| l.torque)))?;
        d.set_item("center", rows3(py, loads.iter().map(|l| l.center)))?;
        Ok(d)
    }

    /// Move wall `wall` (its index in `wall_loads`) at `velocity` (m/s) from now on, taking
    /// over the motion the scene gave it; a wall the scene keeps at rest is moved where the
    /// scene says `scripted = true`.
    fn set_wall_velocity(&mut self, wall: usize, velocity: [f64; 3]) -> PyResult<()> {
        let walls = self.runner.backend.walls();
        let Some(w) = walls.get(wall) else {
            return Err(value_error(format!(
                "wall {wall}: the scene has {} walls",
                walls.len()
            )));
        };
        if !w.moves() {
            return Err(value_error(format!(
                "wall {wall} does not move in the scene: give it `scripted = true` (at rest \
                 until moved from here) or a `motion`, which this velocity then replaces"
            )));
        }
        if velocity.iter().any(|x| !x.is_finite()) {
            return Err(value_error(format!("velocity {velocity:?} is not finite")));
        }
        self.runner
            .backend
            .steer_wall(wall, velocity.map(|x| x as f32));
        Ok(())
    }

    /// The energy ledger now (J): a dict of `energy.csv`'s columns.
    fn energy<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let e = self.runner.backend.energy();
        let d = PyDict::new(py);
        for (k, v) in [
            ("kinetic", e.kinetic),
            ("rotational", e.rotational),
            ("gravitational", e.gravitational),
            ("elastic", e.elastic),
            ("damping_dissipated", e.damping_dissipated),
            ("friction_dissipated", e.friction_dissipated),
            ("total", e.total),
            ("removed", e.removed),
            ("wall_work", e.wall_work),
            ("kinematic_work", e.kinematic_work),
            ("inserted", e.inserted),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The contacts now: a dict of arrays `i`, `j` (a wall `w` as `-1 - w`), `overlap` (m),
    /// `normal_force` and `tangential_force` (N), `normal` (`(m, 3)`, from `i` to `j`), `bond`.
    fn contacts<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.runner.backend.contact_records();
        let d = PyDict::new(py);
        d.set_item(
            "i",
            r.iter()
                .map(|c| c.i as i64)
                .collect::<Vec<_>>()
                .into_pyarray(py),
        )?;
        d.set_item(
            "j",
            r.iter().map(|c| c.j).collect::<Vec<_>>().into_pyarray(py),
        )?;
        let f = |g: fn(&grains_core::ContactRecord) -> f32| {
            r.iter().map(|c| g(c) as f64).collect::<Vec<_>>()
        };
        d.set_item("overlap", f(|c| c.overlap).into_pyarray(py))?;
        d.set_item("normal_force", f(|c| c.normal_force).into_pyarray(py))?;
        d.set_item(
            "tangential_force",
            f(|c| c.tangential_force).into_pyarray(py),
        )?;
        d.set_item(
            "normal",
            rows3(py, r.iter().map(|c| c.normal.map(|x| x as f64))),
        )?;
        d.set_item("bond", r.iter().map(|c| c.bond).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Each particle's virial stress now (Pa), `(n, 6)`: `sxx, syy, szz, sxy, sxz, syz`,
    /// `sum_c (x_c - x_i) (x) F_c` over its contacts over its volume, compression negative (the
    /// `stress` format's columns).
    fn stress<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let b = &mut self.runner.backend;
        let records = b.contact_records();
        let pos = b.snapshot().pos[..self.n].to_vec();
        let s = grains_cli::runner::particle_stress(&self.runner.scene.world, &records, &pos);
        let flat: Vec<f64> = s.into_iter().flatten().collect();
        Array2::from_shape_vec((self.n, 6), flat)
            .unwrap_or_else(|_| Array2::zeros((0, 6)))
            .into_pyarray(py)
    }

    /// The backend's name.
    #[getter]
    fn backend(&self) -> String {
        self.runner.backend.name()
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation({} particles on {}, step {}, t = {} s)",
            self.n,
            self.runner.backend.name(),
            self.runner.backend.counters().steps,
            self.runner.backend.time()
        )
    }
}

/// Two columns of a profile: where, and what.
type Columns<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

/// The mean coordination number of `particles` particles with `pairs` contacts between them.
#[pyfunction]
fn coordination(pairs: usize, particles: usize) -> f64 {
    grains_core::post::coordination(pairs, particles)
}

/// The solid fraction in `bins` slabs across `[lo, hi]` along `axis` (0, 1, 2) of cross-section
/// `area` (m^2), of spheres at `centres` `(n, 3)` with `radii`: `(slab middles, fractions)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn packing_profile<'py>(
    py: Python<'py>,
    centres: PyReadonlyArray2<'_, f64>,
    radii: PyReadonlyArray1<'_, f64>,
    axis: usize,
    lo: f64,
    hi: f64,
    bins: usize,
    area: f64,
) -> PyResult<Columns<'py>> {
    let r = radii.as_array();
    let x = points(&centres, r.len())?;
    if axis > 2 || bins == 0 || hi <= lo || area <= 0.0 {
        return Err(value_error(
            "expected axis 0 to 2, bins > 0, hi > lo and area > 0",
        ));
    }
    let spheres: Vec<([f64; 3], f64)> = x.into_iter().zip(r.iter().copied()).collect();
    let p = grains_core::post::packing_profile(&spheres, axis, (lo, hi), bins, area);
    Ok((
        p.iter().map(|q| q.0).collect::<Vec<_>>().into_pyarray(py),
        p.iter().map(|q| q.1).collect::<Vec<_>>().into_pyarray(py),
    ))
}

/// The angle of repose (degrees) of a bed whose particles are at `centres` `(n, 3)`: the
/// highest centre along `up` in columns of `width` (m) along `along`, between `start` and
/// `end`, fitted by least squares; None with fewer than two columns.
#[pyfunction]
#[pyo3(signature = (centres, width, start, end, along = 0, up = 2))]
fn angle_of_repose(
    centres: PyReadonlyArray2<'_, f64>,
    width: f64,
    start: f64,
    end: f64,
    along: usize,
    up: usize,
) -> PyResult<Option<f64>> {
    let n = centres.as_array().shape()[0];
    let x = points(&centres, n)?;
    if along > 2 || up > 2 || width <= 0.0 {
        return Err(value_error("expected axes 0 to 2 and width > 0"));
    }
    Ok(grains_core::post::angle_of_repose(
        &x,
        (along, up),
        width,
        (start, end),
    ))
}

/// The radial distribution of `centres` `(n, 3)` in a region of `volume` (m^3): `bins` shells
/// out to `rmax`, as `(shell middles, g)`.
#[pyfunction]
fn radial_distribution<'py>(
    py: Python<'py>,
    centres: PyReadonlyArray2<'_, f64>,
    rmax: f64,
    bins: usize,
    volume: f64,
) -> PyResult<Columns<'py>> {
    let n = centres.as_array().shape()[0];
    let x = points(&centres, n)?;
    if rmax <= 0.0 || bins == 0 || volume <= 0.0 {
        return Err(value_error("expected rmax > 0, bins > 0 and volume > 0"));
    }
    let g = grains_core::post::radial_distribution(&x, rmax, bins, volume);
    Ok((
        g.iter().map(|q| q.0).collect::<Vec<_>>().into_pyarray(py),
        g.iter().map(|q| q.1).collect::<Vec<_>>().into_pyarray(py),
    ))
}

/// The size distribution of spheres of `radii` (m) in `bins` equal bins of diameter: a dict of
/// arrays `lo`, `hi` (m), `number`, `mass` (shares) and `cumulative_number`,
/// `cumulative_mass`.
#[pyfunction]
fn size_distribution<'py>(
    py: Python<'py>,
    radii: PyReadonlyArray1<'_, f64>,
    bins: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let r: Vec<f64> = radii.as_array().to_vec();
    if bins == 0 || r.is_empty() || r.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
        return Err(value_error(
            "expected bins > 0 and at least one radius, every one positive and finite",
        ));
    }
    let d = grains_core::post::size_distribution(&r, bins);
    let out = PyDict::new(py);
    let col = |f: fn(&grains_core::post::SizeBin) -> f64| d.iter().map(f).collect::<Vec<_>>();
    out.set_item("lo", col(|b| b.lo).into_pyarray(py))?;
    out.set_item("hi", col(|b| b.hi).into_pyarray(py))?;
    out.set_item("number", col(|b| b.number).into_pyarray(py))?;
    out.set_item("mass", col(|b| b.mass).into_pyarray(py))?;
    out.set_item(
        "cumulative_number",
        col(|b| b.cumulative_number).into_pyarray(py),
    )?;
    out.set_item(
        "cumulative_mass",
        col(|b| b.cumulative_mass).into_pyarray(py),
    )?;
    Ok(out)
}

/// A discharge's rate (particles/s) from `times` (s) and the particles discharged by each,
/// of `total`: `(rate, rate over 20-50 %, rate over 50-80 %)`, measured between 20 % and 80 %
/// discharged; None before 80 % is reached.
#[pyfunction]
fn discharge_rate(
    times: PyReadonlyArray1<'_, f64>,
    discharged: PyReadonlyArray1<'_, i64>,
    total: u64,
) -> PyResult<Option<(f64, f64, f64)>> {
    let (t, n) = (times.as_array(), discharged.as_array());
    if t.len() != n.len() || n.iter().any(|&k| k < 0) {
        return Err(value_error(
            "expected as many counts as times, none negative",
        ));
    }
    let counts: Vec<(f64, u64)> = t
        .iter()
        .zip(n.iter())
        .map(|(&t, &k)| (t, k as u64))
        .collect();
    Ok(grains_core::post::discharge_rate(&counts, total))
}

/// Beverloo's coefficient `C` of a mass rate `w` (kg/s): `W = C rho_b sqrt(g) (D - k d)^(5/2)`
/// (Beverloo, Leniger and van de Velde 1961), with the bulk density `rho_b` (kg/m^3), gravity
/// `g` (m/s^2), the orifice's diameter `d_o` and the particles' `d` (m).
#[pyfunction]
#[pyo3(signature = (w, rho_b, g, d_o, d, k = 1.5))]
fn beverloo_coefficient(w: f64, rho_b: f64, g: f64, d_o: f64, d: f64, k: f64) -> f64 {
    grains_core::post::beverloo_coefficient(w, rho_b, g, d_o, d, k)
}

/// The mean velocity of particles at `centres` `(n, 3)` moving at `velocities` `(n, 3)` in
/// `bins` slabs across `[lo, hi]` along `axis`: `(slab middles, counts, mean velocities (m, 3))`.
#[pyfunction]
fn velocity_profile<'py>(
    py: Python<'py>,
    centres: PyReadonlyArray2<'_, f64>,
    velocities: PyReadonlyArray2<'_, f64>,
    axis: usize,
    lo: f64,
    hi: f64,
    bins: usize,
) -> PyResult<VelocityProfile<'py>> {
    let n = centres.as_array().shape()[0];
    let (x, v) = (points(&centres, n)?, points(&velocities, n)?);
    if axis > 2 || bins == 0 || hi <= lo {
        return Err(value_error("expected axis 0 to 2, bins > 0 and hi > lo"));
    }
    let p = grains_core::post::velocity_profile(&x, &v, axis, (lo, hi), bins);
    Ok((
        p.iter().map(|q| q.0).collect::<Vec<_>>().into_pyarray(py),
        p.iter()
            .map(|q| q.1 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
        rows3(py, p.iter().map(|q| q.2)),
    ))
}

/// Where, how many and at what velocity: a velocity profile's columns.
type VelocityProfile<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<f64>>,
);

/// The mean stress (Pa, `sxx, syy, szz, sxy, sxz, syz`, compression negative) of the box
/// `[lo, hi]` from the particles at `centres` `(n, 3)` with `radii` and stresses `stress`
/// `(n, 6)` (`Simulation.stress()`): `sum V_i sigma_i` of those whose centres lie in it, over
/// the box's volume, as `grains post stress` and `stress.csv`.
#[pyfunction]
fn mean_stress<'py>(
    py: Python<'py>,
    centres: PyReadonlyArray2<'_, f64>,
    radii: PyReadonlyArray1<'_, f64>,
    stress: PyReadonlyArray2<'_, f64>,
    lo: [f64; 3],
    hi: [f64; 3],
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let r = radii.as_array();
    let x = points(&centres, r.len())?;
    let s = stress.as_array();
    if s.shape() != [r.len(), 6] {
        return Err(value_error(format!(
            "stress of shape {:?}: expected ({}, 6)",
            s.shape(),
            r.len()
        )));
    }
    if (0..3).any(|k| hi[k] <= lo[k]) {
        return Err(value_error("expected a box with hi > lo on every axis"));
    }
    let rows: Vec<[f64; 6]> = s
        .rows()
        .into_iter()
        .map(|q| [q[0], q[1], q[2], q[3], q[4], q[5]])
        .collect();
    let radii: Vec<f64> = r.to_vec();
    let region = grains_core::stress::region_stress_of(&x, &radii, &rows, lo, hi);
    Ok(region.stress.to_vec().into_pyarray(py))
}

/// `(n, 3)` rows of an array, checked.
fn points(a: &PyReadonlyArray2<'_, f64>, n: usize) -> PyResult<Vec<[f64; 3]>> {
    let a = a.as_array();
    if a.shape() != [n, 3] {
        return Err(value_error(format!(
            "an array of shape {:?}: expected ({n}, 3)",
            a.shape()
        )));
    }
    Ok(a.rows().into_iter().map(|r| [r[0], r[1], r[2]]).collect())
}

/// Run the `grains` command with `args` (its name first, as `sys.argv`): what
/// `python -m grains` does. Returns the exit status the command would.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<String>) -> i32 {
    py.detach(|| grains_cli::exit_status(grains_cli::main_with_args(args)))
}

/// The extension module.
#[pymodule]
fn _grains(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(coordination, m)?)?;
    m.add_function(wrap_pyfunction!(packing_profile, m)?)?;
    m.add_function(wrap_pyfunction!(angle_of_repose, m)?)?;
    m.add_function(wrap_pyfunction!(radial_distribution, m)?)?;
    m.add_function(wrap_pyfunction!(size_distribution, m)?)?;
    m.add_function(wrap_pyfunction!(discharge_rate, m)?)?;
    m.add_function(wrap_pyfunction!(beverloo_coefficient, m)?)?;
    m.add_function(wrap_pyfunction!(velocity_profile, m)?)?;
    m.add_function(wrap_pyfunction!(mean_stress, m)?)?;
    m.add("SceneError", m.py().get_type::<SceneError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
