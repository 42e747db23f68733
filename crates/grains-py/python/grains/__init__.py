"""grains: GPU-accelerated discrete element method, from Python.

The package wraps the library the ``grains`` command runs: a scene file (or its TOML text) is
read with the same checks and messages, run on the same backends, and checkpointed in the same
format, so ``grains run --resume`` takes up a checkpoint written from Python and the other way.

    import grains
    sim = grains.Simulation("scenes/settle.toml", backend="cpu",
                            overrides={"material.glass.young": 1e7})
    sim.run(steps=1000, every=100, callback=lambda s: print(s.time, s.energy()["total"]))
    x = sim.positions            # (n, 3) numpy array, m
    sim.set_velocities(v, ids)   # m/s, checked before anything is set
    sim.checkpoint("out/checkpoint.bin")

Units are SI throughout. A scene that cannot be read raises ``grains.SceneError`` with the
CLI's ``file:line:column: key: message``; bad arrays raise ``ValueError`` and change nothing.
"""

from . import post
from ._grains import SceneError, Simulation

__all__ = ["Simulation", "SceneError", "post"]
