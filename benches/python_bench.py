"""The Python package's benchmark: reading the positions of 1M particles from the CPU backend,
and a 100k-particle settle (scenes/settle_100k.toml) stepped from Python with a callback every
100 steps against the `grains` command on the same scene and steps, alternated, medians taken.

Run from the repository's folder with the package importable (built in release) and the
command's path in GRAINS_BIN:

    cargo build --release -p grains-cli -p grains-py
    mkdir -p target/bench-py/grains && cp crates/grains-py/python/grains/*.py target/bench-py/grains/
    cp target/release/lib_grains.so target/bench-py/grains/_grains.abi3.so
    PYTHONPATH=target/bench-py GRAINS_BIN=target/release/grains python3 benches/python_bench.py

ROUNDS (default 5) sets the alternations, STEPS (default 300) the settle's steps in each.
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import grains

ROUNDS = int(os.environ.get("ROUNDS", "5"))
STEPS = int(os.environ.get("STEPS", "300"))
SETTLE = os.path.join("scenes", "settle_100k.toml")
# Output at the end only, for both: the comparison is of stepping.
QUIET = {"output.every": 10.0, "output.energy": False}


def lattice_scene(side):
    """A cubic lattice of side**3 spheres at rest, without gravity: its TOML text."""
    span = 0.0022 * side + 0.01
    return f"""
[simulation]
duration = 1e-4
dt = 1e-6
gravity = [0.0, 0.0, 0.0]
[domain]
min = [-0.005, -0.005, -0.005]
max = [{span}, {span}, {span}]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.001
lattice = {{ spacing = 0.0022, count = [{side}, {side}, {side}] }}
[[interaction]]
between = ["glass", "glass"]
normal = {{ law = "hertz" }}
"""


def read_positions():
    """Median seconds of `sim.positions` on a 1M-particle CPU simulation."""
    sim = grains.Simulation(lattice_scene(100), backend="cpu")
    times = []
    for _ in range(max(ROUNDS, 5)):
        t0 = time.perf_counter()
        x = sim.positions
        times.append(time.perf_counter() - t0)
    assert x.shape == (1000000, 3)
    return statistics.median(times)


def python_rate(out):
    """Particle-steps per second of the settle stepped from Python, a callback every 100."""
    sim = grains.Simulation(SETTLE, backend="cpu", out=out, overrides=QUIET)
    calls = []
    t0 = time.perf_counter()
    sim.run(steps=STEPS, every=100, callback=lambda s: calls.append(s.step_count))
    seconds = time.perf_counter() - t0
    n = len(sim.radii)
    sim.close()
    return n * STEPS / seconds


def cli_rate(out):
    """Particle-steps per second of the same steps in the command (its own `done:` line,
    stepping only)."""
    bin = os.environ.get("GRAINS_BIN", "grains")
    sets = []
    for k, v in QUIET.items():
        sets += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    cmd = [bin, "run", SETTLE, "--backend", "cpu", "--steps", str(STEPS), "--out", out] + sets
    err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    m = re.search(r"\(([0-9.e+]+) particle-steps/s\)", err)
    if not m:
        sys.exit(f"no rate in the command's output:\n{err}")
    return float(m.group(1))


def main():
    read = read_positions()
    print(f"positions of 1M particles (CPU): median {read * 1e3:.2f} ms over {max(ROUNDS, 5)} reads")
    py, cli = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(ROUNDS):
            cli.append(cli_rate(os.path.join(tmp, f"cli{k}")))
            py.append(python_rate(os.path.join(tmp, f"py{k}")))
    p, c = statistics.median(py), statistics.median(cli)
    # Each round's two runs are neighbours in time: their ratio cancels the machine's drift.
    ratios = sorted(a / b for a, b in zip(py, cli))
    print(f"settle_100k, {STEPS} steps, CPU, {ROUNDS} alternated rounds: Python {p:.4g} "
          f"particle-steps/s, CLI {c:.4g} (medians), ratio of medians {p / c:.4f}; "
          f"per-round ratios: median {statistics.median(ratios):.4f}, "
          f"from {ratios[0]:.4f} to {ratios[-1]:.4f}")


if __name__ == "__main__":
    main()
