"""Analyses on arrays, the functions ``grains post`` applies to a run's output folder. SI units.

- ``coordination(pairs, particles)``: the mean coordination number;
- ``packing_profile(centres, radii, axis, lo, hi, bins, area)``: solid fraction in slabs;
- ``size_distribution(radii, bins)``: by number and by mass, with cumulative shares;
- ``angle_of_repose(centres, width, start, end, along=0, up=2)``: degrees, least squares;
- ``discharge_rate(times, discharged, total)`` and ``beverloo_coefficient(w, rho_b, g, d_o, d,
  k=1.5)``;
- ``radial_distribution(centres, rmax, bins, volume)``;
- ``velocity_profile(centres, velocities, axis, lo, hi, bins)``;
- ``mean_stress(centres, radii, stress, lo, hi)``: of a box, from ``Simulation.stress()``.
"""

from ._grains import (
    angle_of_repose,
    beverloo_coefficient,
    coordination,
    discharge_rate,
    mean_stress,
    packing_profile,
    radial_distribution,
    size_distribution,
    velocity_profile,
)

__all__ = [
    "coordination",
    "packing_profile",
    "size_distribution",
    "angle_of_repose",
    "discharge_rate",
    "beverloo_coefficient",
    "radial_distribution",
    "velocity_profile",
    "mean_stress",
]
