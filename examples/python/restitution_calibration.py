"""Calibrate a contact law from Python: find the viscous dashpot's `restitution` key that makes
two glass spheres meeting head on (scenes/two_spheres_head_on.toml) rebound with a measured
coefficient of restitution, by bisection over runs of the scene with that key overridden.

The dashpot's key is the restitution it is tuned for in a linear contact; on Hertz's nonlinear
spring the rebound differs a little, which is what a calibration corrects. Run it from the
repository's folder: `python examples/python/restitution_calibration.py [target]`.
"""

import pathlib
import sys

import numpy as np

import grains

SCENE = str(pathlib.Path(__file__).resolve().parents[2] / "scenes" / "two_spheres_head_on.toml")


def rebound(key, backend="cpu"):
    """The coefficient of restitution of one head-on impact with `restitution = key`: the
    spheres' separating speed over their approach speed, once they are apart again."""
    sim = grains.Simulation(
        SCENE,
        backend=backend,
        overrides={"interaction[0].damping.restitution": key},
    )
    v0 = sim.velocities[:, 0].copy()
    approach = v0[0] - v0[1]
    touched = False
    for _ in range(4000):
        sim.step(1)
        touching = len(sim.contacts()["i"]) > 0
        touched = touched or touching
        if touched and not touching:
            break
    v = sim.velocities[:, 0]
    return (v[1] - v[0]) / approach


def calibrate(target, tolerance=1e-3, backend="cpu"):
    """The key giving a rebound within `tolerance` of `target`, by bisection on (0.01, 0.99):
    `(key, rebound, runs)`."""
    lo, hi, runs = 0.01, 0.99, 0
    while True:
        key = 0.5 * (lo + hi)
        e = rebound(key, backend)
        runs += 1
        if abs(e - target) < tolerance or runs >= 30:
            return key, e, runs
        if e < target:
            lo = key
        else:
            hi = key


if __name__ == "__main__":
    target = float(sys.argv[1]) if len(sys.argv) > 1 else 0.6
    key, e, runs = calibrate(target)
    print(f"restitution = {key:.4f} gives a rebound of {e:.4f} (target {target}) after {runs} runs")
    np.testing.assert_allclose(e, target, atol=1e-3)
