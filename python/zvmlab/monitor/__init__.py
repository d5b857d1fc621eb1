"""CP monitor data: read MONWRITE files (the simulator's or a real z/VM system's) into columns,
and derive per-interval figures from the cumulative counters.

``read_file(path)`` / ``read(bytes)`` decode; ``measure(data)`` gives per-interval processor,
user and application figures (see ``derive``). Layouts and their provenance are in ``layouts``.
"""

from .derive import Measurements, measure
from .reader import MonitorData, Problem, read, read_file

__all__ = ["MonitorData", "Problem", "read", "read_file", "Measurements", "measure"]
