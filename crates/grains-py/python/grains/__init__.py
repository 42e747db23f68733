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

With ``out="folder"`` a simulation writes what ``grains run`` writes there, at the scene's
cadence and bit for bit the same for the same steps; ``sim.run()`` with no argument runs on to
the scene's last step, and ``sim.close()`` flushes the folder. ``python -m grains ARGS`` is the
``grains`` command itself.

Units are SI throughout. A scene that cannot be read raises ``grains.SceneError`` with the
CLI's ``file:line:column: key: message``; bad arrays raise ``ValueError`` and change nothing; a
run that stops (a particle that blows up or leaves the domain) raises ``grains.SimulationError``.
"""

from . import plot, post
from ._grains import SceneError, Simulation, SimulationError, main

__all__ = ["Simulation", "SceneError", "SimulationError", "main", "plot", "post"]
