"""The grains package against the library it wraps: two spheres meeting head on (the
repository's scenes/two_spheres_head_on.toml), a scene error with the CLI's message, velocities
set mid-run and a resume from a Python checkpoint reproducing the uninterrupted run."""

import os
import pathlib

import numpy as np
import pytest

import grains

ROOT = pathlib.Path(__file__).resolve().parents[3]
HEAD_ON = str(ROOT / "scenes" / "two_spheres_head_on.toml")
BACKENDS = ["cpu"] + (["gpu"] if os.environ.get("GRAINS_PY_GPU") == "1" else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_have_the_scenes_shapes_and_units(backend):
    sim = grains.Simulation(HEAD_ON, backend=backend)
    x = sim.positions
    assert x.shape == (2, 3) and x.dtype == np.float64
    assert sim.velocities.shape == (2, 3)
    assert sim.radii.shape == (2,) and np.all(sim.radii > 0)
    assert np.allclose(sim.masses, 4.0 / 3.0 * np.pi * sim.radii**3 * 2500.0, rtol=1e-6)
    assert sim.material_names == ["glass"]
    assert list(sim.ids) == [0, 1]
    assert sim.step_count == 0 and sim.time == 0.0


# The backends' parity is the Rust tests' (tests/gpu); here the package on the CPU.
@pytest.mark.parametrize("backend", ["cpu"])
def test_two_spheres_approach_then_touch_and_the_ledger_holds(backend):
    sim = grains.Simulation(HEAD_ON, backend=backend)
    x0 = sim.positions.copy()
    v0 = sim.velocities.copy()
    sim.step(2)
    # Apart (0.4 mm, closing at 2 m/s), they move at their velocities: x = x0 + v t.
    assert np.allclose(sim.positions, x0 + v0 * sim.time, atol=1e-9)
    e0 = sim.energy()["total"]
    seen = []
    sim.run(steps=40, every=5, callback=lambda s: seen.append(s.step_count))
    assert seen == list(range(7, 43, 5))
    # Through a collision of a few steps at dt = "auto" the ledger holds to about 1e-3.
    assert abs(sim.energy()["total"] - e0) < 2e-3 * abs(e0)


def test_a_callback_returning_false_stops_the_run():
    sim = grains.Simulation(HEAD_ON, backend="cpu")
    taken = sim.run(steps=1000, every=100, callback=lambda s: s.step_count < 300)
    assert taken == 300 and sim.step_count == 300


def test_overrides_change_the_key_named():
    soft = grains.Simulation(HEAD_ON, backend="cpu", overrides={"simulation.dt": 1e-6})
    assert soft.dt == 1e-6


def test_a_bad_scene_raises_the_clis_message(tmp_path):
    text = pathlib.Path(HEAD_ON).read_text().replace("young = ", "young = -")
    with pytest.raises(grains.SceneError, match=r"<scene>:\d+:\d+: material\[0\]\.young"):
        grains.Simulation(text, backend="cpu")
    with pytest.raises(grains.SceneError, match="nothing.toml"):
        grains.Simulation(str(tmp_path / "nothing.toml"), backend="cpu")


def test_bad_velocities_are_refused_and_change_nothing():
    sim = grains.Simulation(HEAD_ON, backend="cpu")
    v = sim.velocities.copy()
    with pytest.raises(ValueError, match="shape"):
        sim.set_velocities(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="not finite"):
        sim.set_velocities(np.array([[0.0, 0.0, np.nan], [0.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="out of range"):
        sim.set_velocities(np.zeros((1, 3)), ids=np.array([7]))
    assert np.array_equal(sim.velocities, v)


def test_velocities_set_mid_run_then_a_checkpoint_resumes_the_uninterrupted_run(tmp_path):
    def drive(sim):
        sim.step(200)
        sim.set_velocities(np.array([[0.0, 0.05, 0.0]]), ids=np.array([1]))
        sim.step(200)

    whole = grains.Simulation(HEAD_ON, backend="cpu")
    drive(whole)
    assert whole.velocities[1][1] != 0.0
    path = str(tmp_path / "checkpoint.bin")
    whole.checkpoint(path)
    whole.step(1000)
    resumed = grains.Simulation.resume(HEAD_ON, path, backend="cpu")
    assert resumed.step_count == 400
    resumed.step(1000)
    assert np.array_equal(resumed.positions, whole.positions)
    assert np.array_equal(resumed.velocities, whole.velocities)


def test_contacts_are_arrays():
    sim = grains.Simulation(HEAD_ON, backend="cpu")
    sim.run(duration=0.0)
    c = sim.contacts()
    assert set(c) >= {"i", "j", "overlap", "normal_force", "tangential_force", "normal"}
    while len(sim.contacts()["i"]) == 0 and sim.step_count < 200:
        sim.step(1)
    c = sim.contacts()
    assert len(c["i"]) == 1 and c["normal"].shape == (1, 3)
    assert c["overlap"][0] > 0 and c["normal_force"][0] > 0


def test_positions_are_set_inside_the_domain_and_particles_removed():
    sim = grains.Simulation(HEAD_ON, backend="cpu")
    sim.set_positions(np.array([[0.0, 0.03, 0.0]]), ids=np.array([1]))
    assert np.allclose(sim.positions[1], [0.0, 0.03, 0.0])
    before = sim.positions.copy()
    with pytest.raises(ValueError, match="outside the domain"):
        sim.set_positions(np.array([[0.0, 0.3, 0.0]]), ids=np.array([1]))
    assert np.array_equal(sim.positions, before)
    sim.step(5)
    # Far apart now: particle 0 moves on at 1 m/s, alone.
    assert len(sim.contacts()["i"]) == 0
    sim.remove(np.array([0]))
    assert sim.radii[0] < 0 and sim.radii[1] > 0
    assert sim.orientations.shape == (2, 4)
    assert np.array_equal(sim.orientations[:, 3], [1.0, 1.0])


FLOOR = """
[simulation]
steps = 1
dt = 1e-6
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.02, -0.02, -0.01]
max = [0.02, 0.02, 0.02]

[[material]]
name = "glass"
density = 2500.0
young = 1.0e7
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.002
positions = [[0.0, 0.0, 0.00199]]

[[wall]]
material = "glass"
plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }
motion = { velocity = [0.0, 0.0, 0.0001] }

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
"""


def test_a_wall_is_loaded_and_moved_from_python():
    sim = grains.Simulation(FLOOR, backend="cpu")
    sim.step(200)
    loads = sim.wall_loads()
    assert loads["force"].shape == (1, 3)
    # The bead presses the floor down: the force on the wall points along -z.
    assert loads["force"][0, 2] < 0
    z0 = sim.positions[0, 2]
    sim.set_wall_velocity(0, [0.0, 0.0, 0.5])
    sim.step(2000)
    # The floor has risen by about 1 mm (0.5 m/s for 2 ms) and carried the bead up.
    assert sim.positions[0, 2] - z0 > 5e-4
    with pytest.raises(ValueError, match="wall 3"):
        sim.set_wall_velocity(3, [0.0, 0.0, 0.0])


def test_post_functions_on_arrays():
    n, r = 6, 0.001
    k = np.indices((n, n, n)).reshape(3, -1).T
    centres = r + 2.0 * r * k.astype(float)
    side = 2.0 * r * n
    mids, phi = grains.post.packing_profile(centres, np.full(len(centres), r), 2, 0.0, side, n, side * side)
    assert np.allclose(phi, np.pi / 6.0, atol=1e-12) and len(mids) == n
    assert grains.post.coordination(3 * n**3, n**3) == 6.0
    x = np.linspace(-0.04, 0.04, 21)
    heap = np.stack([x, np.zeros_like(x), np.tan(np.radians(25.0)) * x], axis=1)
    angle = grains.post.angle_of_repose(heap, 0.004, -0.04, 0.04)
    assert abs(angle - 25.0) < 0.5
    with pytest.raises(ValueError, match="shape"):
        grains.post.angle_of_repose(np.zeros((4, 2)), 0.004, -0.04, 0.04)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_run_from_python_writes_the_clis_output_bit_for_bit(backend, tmp_path):
    # The pour inserts beads in batches between steps: Python steps them as the CLI does.
    scene = str(ROOT / "scenes" / "pour.toml")
    short = {"simulation.duration": 0.004, "output.every": 0.001, "output.formats": ["csv"]}
    sets = []
    for k, v in short.items():
        sets += ["--set", f"{k}={v}".replace("'", '"')]
    cli = tmp_path / "cli"
    assert grains.main(["grains", "run", scene, "-q", "--backend", backend, "--out", str(cli)] + sets) == 0
    py = tmp_path / "py"
    sim = grains.Simulation(scene, backend=backend, out=str(py), overrides=short)
    # In uneven pieces, with a callback: the output follows the scene's cadence, not the calls.
    sim.step(7)
    sim.run(every=13, callback=lambda s: s.positions is not None)
    sim.close()
    for name in ["particles.csv", "energy.csv"]:
        assert (py / name).read_bytes() == (cli / name).read_bytes(), name
    # Five output steps (0 to 4 ms) below the header, and beads inserted in them.
    assert (cli / "energy.csv").read_text().count("\n") == 6
    assert (cli / "particles.csv").read_text().count("\n") > 6


def test_python_m_grains_is_the_command(tmp_path):
    assert grains.main(["grains", "check", HEAD_ON]) == 0
    assert grains.main(["grains", "check", str(tmp_path / "missing.toml")]) != 0


def test_a_resting_sphere_carries_its_weight_as_stress():
    sim = grains.Simulation(str(ROOT / "scenes" / "sphere_on_plane.toml"), backend="cpu")
    sim.run(duration=0.1)
    r, m = sim.radii[0], sim.masses[0]
    volume = 4.0 / 3.0 * np.pi * r**3
    s = sim.stress()
    assert s.shape == (1, 6)
    # One contact below the centre carrying m g up: sigma_zz = -(R - delta/2) m g / V, the lever
    # shorter than R by half the overlap (delta / R ~ 2e-4 here); the settled sphere's force
    # holds its weight to about 1e-4 (the dashpot has damped the bounce).
    want = -r * m * 9.81 / volume
    assert abs(s[0, 2] / want - 1.0) < 1e-3, (s[0], want)
    assert np.all(np.abs(s[0, [0, 1, 3, 4, 5]]) < 1e-6 * abs(want))
    # The box around the sphere: its stress times its share of the box.
    lo, hi = [-0.05, -0.05, -0.02], [0.05, 0.05, 0.05]
    mean = grains.post.mean_stress(sim.positions, sim.radii, s, lo, hi)
    assert np.allclose(mean, s[0] * volume / (0.1 * 0.1 * 0.07), rtol=1e-12)


def test_post_distributions_and_profiles_on_arrays():
    # Half the beads of radius 1 mm, half of 2 mm: by number 1/2 each, by mass 1/9 and 8/9.
    radii = np.array([0.001] * 50 + [0.002] * 50)
    d = grains.post.size_distribution(radii, 2)
    assert np.allclose(d["number"], [0.5, 0.5]) and np.allclose(d["mass"], [1 / 9, 8 / 9])
    assert d["cumulative_mass"][-1] == pytest.approx(1.0)
    # A shear flow v_x = 2 z: the slabs' mean velocities follow it.
    z = np.linspace(0.0, 0.999, 1000)
    x = np.stack([np.zeros_like(z), np.zeros_like(z), z], axis=1)
    v = np.stack([2.0 * z, np.zeros_like(z), np.zeros_like(z)], axis=1)
    mid, count, mean = grains.post.velocity_profile(x, v, 2, 0.0, 1.0, 4)
    assert list(count) == [250] * 4
    assert np.allclose(mean[:, 0], 2.0 * mid, atol=2e-3)
    # A steady discharge of 10 beads a second: the rate and its halves.
    t = np.arange(11, dtype=float)
    assert grains.post.discharge_rate(t, (10 * t).astype(np.int64), 100) == pytest.approx((10, 10, 10))
    with pytest.raises(ValueError):
        grains.post.size_distribution(np.array([0.001, -0.001]), 2)


def test_a_scripted_wall_rests_until_moved_and_takes_no_motion():
    text = (ROOT / "scenes" / "sphere_on_plane.toml").read_text()
    plane = 'plane = { point = [0.0, 0.0, -0.02], normal = [0.0, 0.0, 1.0] }'
    sim = grains.Simulation(text.replace(plane, plane + "\nscripted = true"), backend="cpu")
    sim.run(duration=0.05)
    z = sim.positions[0, 2]
    sim.run(duration=0.01)
    assert abs(sim.positions[0, 2] - z) < 1e-6  # at rest on the resting floor
    sim.set_wall_velocity(0, [0.0, 0.0, 0.1])
    sim.run(duration=0.01)
    assert sim.positions[0, 2] - z == pytest.approx(1e-3, rel=0.05)  # carried up 1 mm
    both = text.replace(plane, plane + "\nscripted = true\nmotion = { velocity = [0.0, 0.0, 0.1] }")
    with pytest.raises(grains.SceneError, match=r"<scene>:\d+:\d+: wall\[0\]\.motion: a scripted wall"):
        grains.Simulation(both, backend="cpu")


def test_particles_are_inserted_from_a_scripted_block(tmp_path):
    text = (ROOT / "scenes" / "pour.toml").read_text()
    text = text.replace("rate = 3000.0\n", "scripted = true\n").replace("count = 1500", "count = 40")
    sim = grains.Simulation(text, backend="cpu")
    sim.run(steps=50)
    assert np.all(sim.radii < 0)  # nothing inserted on a schedule
    ids = sim.insert(count=10)
    assert len(ids) == 10 and np.all(sim.radii[ids] > 0)
    assert np.allclose(sim.velocities[ids], [0.0, 0.0, -0.5])
    # At given places, clear of the others: the next dormant ids.
    at = np.array([[0.0, 0.0, 0.05], [0.005, 0.0, 0.05]])
    more = sim.insert(positions=at, velocity=[0.0, 0.0, 0.0])
    assert list(more) == [ids[-1] + 1, ids[-1] + 2]
    assert np.allclose(sim.positions[more], at, atol=1e-7)
    # Refused whole: an overlap, too many, a block on a schedule.
    with pytest.raises(ValueError, match="would overlap particle"):
        sim.insert(positions=np.array([[0.0, 0.0, 0.02], [0.0, 0.0, 0.0505]]))
    with pytest.raises(ValueError, match="28 particles left"):
        sim.insert(count=29)
    assert np.sum(sim.radii > 0) == 12
    sim.step(20)
    scheduled = grains.Simulation(str(ROOT / "scenes" / "pour.toml"), backend="cpu")
    with pytest.raises(ValueError, match="inserts on its schedule"):
        scheduled.insert(count=1)


ONE_SPHERE = """
[simulation]
duration = 0.01
dt = 1e-5
gravity = [0.0, 0.0, 0.0]
[domain]
min = [-0.1, -0.1, -0.1]
max = [0.1, 0.1, 0.1]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.001
positions = [[0.0, 0.0, 0.0], [0.05, 0.0, 0.0]]
[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
"""


# The GPU backend's applied forces and fixings are tested in tests/applied.rs.
@pytest.mark.parametrize("backend", ["cpu"])
def test_an_applied_force_accelerates_a_free_sphere_as_newton_says(backend, tmp_path):
    sim = grains.Simulation(ONE_SPHERE, backend=backend)
    m = sim.masses[0]
    f = np.array([[1e-4, 0.0, -2e-4]])
    sim.apply_forces(f, ids=np.array([0]))
    e0 = sim.energy()["total"]
    sim.step(500)
    t = sim.time
    # Velocity Verlet is exact for a constant force: f32 rounding over 500 steps only.
    assert np.allclose(sim.velocities[0], f[0] / m * t, rtol=1e-4)
    assert np.allclose(sim.positions[0], f[0] / (2 * m) * t**2, rtol=1e-4, atol=1e-9)
    assert np.array_equal(sim.velocities[1], [0.0, 0.0, 0.0])
    # The force's work is booked: the ledger's total holds while the kinetic energy grows.
    e = sim.energy()
    assert e["kinetic"] == pytest.approx(np.sum(f**2) * t**2 / (2 * m), rel=1e-4)
    assert abs(e["total"] - e0) < 1e-3 * e["kinetic"]
    # The held force goes through a checkpoint.
    path = str(tmp_path / "held.bin")
    sim.checkpoint(path)
    sim.step(200)
    resumed = grains.Simulation.resume(ONE_SPHERE, path, backend=backend)
    resumed.step(200)
    assert np.array_equal(resumed.positions, sim.positions)
    # Cleared, the sphere coasts.
    sim.apply_forces(np.zeros((1, 3)), ids=np.array([0]))
    v = sim.velocities[0].copy()
    sim.step(100)
    assert np.array_equal(sim.velocities[0], v)


@pytest.mark.parametrize("backend", ["cpu"])
def test_a_fixed_sphere_moves_at_its_velocity_and_falls_once_released(backend):
    sim = grains.Simulation(str(ROOT / "scenes" / "sphere_on_plane.toml"), backend=backend)
    sim.run(duration=0.05)
    z0 = sim.positions[0, 2]
    sim.set_fixed(np.array([0]), velocity=np.array([[0.0, 0.0, 0.02]]))
    t0 = sim.time
    sim.run(duration=0.01)
    # Carried at its velocity, whatever the floor's contact pushes: f32 rounding of the sum.
    assert sim.positions[0, 2] - z0 == pytest.approx(0.02 * (sim.time - t0), rel=1e-4)
    assert np.allclose(sim.velocities[0], [0.0, 0.0, 0.02])
    sim.release(np.array([0]))
    v0 = sim.velocities[0, 2]
    sim.step(100)
    # Off the floor, free again: it decelerates at g.
    assert sim.velocities[0, 2] - v0 == pytest.approx(-9.81 * 100 * sim.dt, rel=1e-3)


def test_bad_forces_and_fixings_are_refused_whole():
    sim = grains.Simulation(ONE_SPHERE, backend="cpu")
    x = sim.positions.copy()
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):
        sim.apply_forces(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="not finite"):
        sim.apply_forces(np.array([[0.0, 1.0, 0.0], [np.nan, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="id 7 is out of range"):
        sim.set_fixed(np.array([0, 7]))
    sim.step(10)
    assert np.array_equal(sim.positions, x)


def test_figures_of_a_run_are_drawn_with_or_without_matplotlib(tmp_path):
    out = tmp_path / "run"
    sim = grains.Simulation(HEAD_ON, backend="cpu", out=str(out))
    sim.run()
    sim.close()
    written = grains.plot.figure("energy", out, use_matplotlib=False)
    names = {p.name for p in written}
    assert {"energy.png", "energy.svg", "energy_plot.csv"} <= names
    assert (out / "energy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    fig = grains.plot.figure("energy", out, use_matplotlib=True)
    assert "kinetic" in [line.get_label() for line in fig.axes[0].lines]


def test_rows_are_taken_from_lists_and_other_dtypes_and_bad_ones_refused():
    sim = grains.Simulation(HEAD_ON, backend="cpu")
    sim.set_velocities([[1, 0, 0], [0, 0, 0]])  # a list of integers, m/s
    assert np.array_equal(sim.velocities, [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    sim.set_velocities(np.array([[0.5, 0, 0], [0, 0, 0]], dtype=np.float32))
    assert sim.velocities[0, 0] == 0.5
    v = sim.velocities.copy()
    with pytest.raises((TypeError, ValueError)):
        sim.set_velocities([["a", "b", "c"], ["d", "e", "f"]])
    with pytest.raises(TypeError):
        sim.set_velocities(np.zeros((2, 3)), ids=np.array([0.5, 1.0]))  # ids are integers
    with pytest.raises(ValueError, match="not finite"):
        sim.set_positions([[0.0, 0.0, np.nan], [0.0, 0.0, 0.0]])
    assert np.array_equal(sim.velocities, v)


def test_a_negative_radius_raises_the_clis_message():
    text = (ROOT / "scenes" / "sphere_on_plane.toml").read_text().replace("radius = 0.01", "radius = -0.01")
    with pytest.raises(grains.SceneError, match=r"<scene>:\d+:\d+: particles\[0\]\.radius"):
        grains.Simulation(text, backend="cpu")
