"""Pull two adhesive spheres apart from Python and read the JKR pull-off force.

Two rubber spheres (R = 1 mm, E = 10 MPa) stuck together by the `jkr` law
(scenes/adhesion.toml) are pulled apart at 1 mm/s, the displacement imposed (both are fixed
particles moving at set velocities). The most tensile normal force on the way is the pull-off
force, which JKR theory gives as `(3/2) pi W R*` for the work of adhesion W and R* = R/2
(Johnson, Kendall and Roberts 1971). The script sweeps W by overriding the scene's key and
checks that proportionality. Run it: `python examples/python/jkr_pull_off.py`.
"""

import math
import pathlib

import numpy as np

import grains

SCENE = str(pathlib.Path(__file__).resolve().parents[2] / "scenes" / "adhesion.toml")
R_STAR = 0.0005  # m, half the spheres' radius


def pull_off(work, backend="cpu"):
    """The most tensile normal force (N, positive) met while pulling the spheres apart with
    work of adhesion `work` (J/m^2), and the step the contact broke at."""
    sim = grains.Simulation(
        SCENE, backend=backend, overrides={"interaction[0].normal.work_of_adhesion": work}
    )
    strongest, touched = 0.0, False
    while sim.time < 0.05:
        sim.step(1)
        f = sim.contacts()["normal_force"]
        if len(f) == 0:
            if touched:
                return strongest, sim.step_count
            continue
        touched = True
        # The contact's normal force is positive in compression.
        strongest = max(strongest, -float(np.min(f)))
    raise RuntimeError("the spheres never came apart")


def theory(work):
    """JKR's pull-off force, (3/2) pi W R* (N): the most tensile point of the JKR curve,
    which a pull under displacement control passes on its way to the break."""
    return 1.5 * math.pi * work * R_STAR


if __name__ == "__main__":
    for w in [0.5, 1.0, 2.0]:
        f, step = pull_off(w)
        print(f"W = {w} J/m^2: pull-off {f:.4e} N, JKR (3/2) pi W R* = {theory(w):.4e} N "
              f"({f / theory(w):.4f}), broke at step {step}")
