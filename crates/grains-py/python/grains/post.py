"""Analyses on arrays, the functions ``grains post`` applies to a run's output folder:
``coordination(pairs, particles)``, ``packing_profile(centres, radii, axis, lo, hi, bins, area)``,
``angle_of_repose(centres, width, start, end, along=0, up=2)`` and
``radial_distribution(centres, rmax, bins, volume)``. SI units."""

from ._grains import angle_of_repose, coordination, packing_profile, radial_distribution

__all__ = ["coordination", "packing_profile", "angle_of_repose", "radial_distribution"]
