"""Discharge a conical hopper from Python: fill it with beads on a closed gate, open the gate
when the bed has settled, count the beads that leave, and measure the discharge rate with
Beverloo's correlation (grains.post.discharge_rate and beverloo_coefficient).

The scene is scenes/hopper_cone.toml (a 30-degree cone whose orifice, D = 12 mm, is closed by
a disk gate), with fewer beads and the gate's own motion pushed out of the run: the script
decides when to open it. Run it from anywhere: `python examples/python/hopper_discharge.py`.
"""

import pathlib

import numpy as np

import grains

SCENE = str(pathlib.Path(__file__).resolve().parents[2] / "scenes" / "hopper_cone.toml")
ORIFICE = 0.012  # m, the cone's outlet diameter
GATE = 1  # the disk gate: the scene's second wall
GATE_Z = -0.0011  # m, the gate's plane


def fill(beads=300, backend="cpu"):
    """A hopper filled with `beads` beads settled on its closed gate: the simulation."""
    # The gate stands still until the script moves it: its scheduled motion becomes
    # `scripted = true`.
    text = pathlib.Path(SCENE).read_text()
    motion = "motion = { velocity = [0.5, 0.0, 0.0], start = 0.35, stop = 0.39 }"
    assert motion in text, "scenes/hopper_cone.toml's gate has changed"
    sim = grains.Simulation(
        text.replace(motion, "scripted = true"),
        backend=backend,
        overrides={"insert[0].count": beads, "simulation.duration": 100.0},
    )
    inserted = beads / 10000.0  # s, at the scene's 10000 beads/s
    sim.run(duration=inserted + 0.05)
    # Settled: the beads' kinetic energy a small share of what they fell through.
    drop = np.sum(sim.masses) * 9.81 * 0.01
    sim.run(steps=100000, every=200, callback=lambda s: s.energy()["kinetic"] > 1e-3 * drop)
    return sim


def discharged(sim):
    """Beads out of the hopper: below the gate's plane, or deleted on leaving the domain."""
    r, z = sim.radii, sim.positions[:, 2]
    return int(np.sum((r < 0) | (z < GATE_Z - 0.002)))


def discharge(sim, window=0.5, every=0.005):
    """Open the gate (it slides aside at 0.5 m/s for 40 ms), then count the beads out every
    `every` seconds for `window` seconds: `(times, counts)` from the opening."""
    sim.set_wall_velocity(GATE, [0.5, 0.0, 0.0])
    t0 = sim.time
    times, counts = [0.0], [discharged(sim)]
    steps = max(1, round(every / sim.dt))
    opened = True
    while sim.time - t0 < window:
        sim.step(steps)
        if opened and sim.time - t0 >= 0.04:
            sim.set_wall_velocity(GATE, [0.0, 0.0, 0.0])
            opened = False
        times.append(sim.time - t0)
        counts.append(discharged(sim))
        if counts[-1] == len(sim.radii):
            break
    return np.array(times), np.array(counts, dtype=np.int64)


def measure(beads=300, backend="cpu"):
    """The discharge of a filled hopper: a dict of the rate (beads/s), the mass rate (kg/s),
    Beverloo's coefficient for it, and the counts over time."""
    sim = fill(beads, backend)
    times, counts = discharge(sim)
    rate = grains.post.discharge_rate(times, counts, beads)
    if rate is None:
        raise RuntimeError(f"only {counts[-1]} of {beads} beads left in {times[-1]:.2f} s")
    mass = float(np.mean(sim.masses))
    d = 2.0 * float(np.max(sim.radii[sim.radii > 0], initial=0.001))
    w = rate[0] * mass
    c = grains.post.beverloo_coefficient(w, 0.6 * 2500.0, 9.81, ORIFICE, d)
    return {"rate": rate, "mass_rate": w, "beverloo": c, "times": times, "counts": counts}


if __name__ == "__main__":
    m = measure()
    r = m["rate"]
    print(f"discharge: {r[0]:.0f} beads/s between 20% and 80% out ({r[1]:.0f} then {r[2]:.0f} "
          f"in the two halves), {m['mass_rate']:.4g} kg/s, Beverloo's C = {m['beverloo']:.3f}")
