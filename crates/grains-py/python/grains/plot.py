"""Figures of a run's output folder, as ``grains plot KIND OUT`` draws them.

``figure(kind, out)`` draws ``kind`` ("energy", "walls", "contacts" or "post") from the run's
CSV files: with matplotlib where it is installed (a ``matplotlib.figure.Figure`` is returned,
to show or save), else with the command's own plotter, which writes PNG and SVG files and the
CSV behind each into ``out`` (their paths are returned).
"""

import csv
import pathlib

from ._grains import main

KINDS = ("energy", "walls", "contacts", "post")
SOURCES = {"energy": "energy.csv", "walls": "walls.csv", "contacts": "contacts.csv"}


def _columns(path):
    """A CSV's numeric columns: ``{name: [values]}``."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    cols = {}
    for k, name in enumerate(head):
        try:
            cols[name] = [float(r[k]) for r in body]
        except (ValueError, IndexError):
            continue
    return cols


def figure(kind, out, use_matplotlib=None):
    """Draw ``kind`` of the run in folder ``out``. ``use_matplotlib``: None draws with
    matplotlib when it imports, False always with the command's plotter."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    out = pathlib.Path(out)
    plt = None
    if use_matplotlib is not False and kind in SOURCES:
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            if use_matplotlib:
                raise
    if plt is None:
        before = set(out.glob("*"))
        status = main(["grains", "plot", kind, str(out)])
        if status != 0:
            raise RuntimeError(f"grains plot {kind} {out} failed (status {status})")
        return sorted(set(out.glob("*")) - before) or sorted(out.glob(f"{kind}*"))
    cols = _columns(out / SOURCES[kind])
    fig, ax = plt.subplots()
    x = cols.pop("time", None) or cols.pop("step")
    cols.pop("step", None)
    for name, values in cols.items():
        if any(v != 0.0 for v in values):
            ax.plot(x, values, label=name)
    ax.set_xlabel("time (s)")
    ax.legend()
    ax.set_title(f"{kind}: {out}")
    return fig
