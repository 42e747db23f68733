"""A rotating drum's dynamic angle of repose, from Python.

The drum of scenes/drum.toml (radius 50 mm, 20 mm deep, 440 glass beads of 4 mm, friction
0.5) turns at 2 rad/s, here from t = 0.1 s (the beads have fallen onto its floor by then).
The script runs it, reads the beads' centres every 50 ms once the bed flows, and fits the
free surface's slope with
grains.post.angle_of_repose (the highest bead centre in columns across the drum, least
squares). Run it: `python examples/python/drum_repose.py`.
"""

import pathlib

import numpy as np

import grains

SCENE = str(pathlib.Path(__file__).resolve().parents[2] / "scenes" / "drum.toml")
BEAD = 0.004  # m, the beads' diameter


def repose(friction=0.5, settle=0.6, window=0.3, backend="cpu"):
    """The mean and the spread (degrees) of the bed's angle over `window` seconds, after
    `settle` seconds (the drum starts turning at 0.1 s), with the beads' `friction`."""
    turn = {f"wall[{k}].motion.start": 0.1 for k in range(3)}
    # Three times the automatic step (15% of the Rayleigh time, a collision in about 13
    # steps): coarse for a collision's details, fine for a bed's slope, and three times faster.
    sim = grains.Simulation(
        SCENE,
        backend=backend,
        overrides={
            "interaction[0].tangential.friction": friction,
            "simulation.dt": 3.44e-5,
            **turn,
        },
    )
    sim.run(duration=settle)
    angles = []
    every = max(1, round(0.05 / sim.dt))

    def measure(s):
        # Across the middle of the drum, clear of the walls' curvature, 2.5 beads a column.
        a = grains.post.angle_of_repose(s.positions, 2.5 * BEAD, -0.03, 0.03, along=0, up=2)
        if a is not None:
            angles.append(abs(a))

    sim.run(duration=window, every=every, callback=measure)
    return float(np.mean(angles)), float(np.std(angles)), len(angles)


if __name__ == "__main__":
    for mu in [0.2, 0.5]:
        mean, spread, n = repose(mu)
        print(f"friction {mu}: dynamic angle of repose {mean:.1f} deg (spread {spread:.1f} over {n} frames)")
