"""Performance Toolkit-style reports from monitor data (the simulator's or a real system's).

``source.load(path)`` reads a run directory or a MONWRITE file; ``reports.REPORTS`` is the
registry (FCX id -> builder); ``render`` shows reports as text, CSV, JSON or HTML, and two runs
side by side (``render.compare``).
"""

from .reports import REPORTS, build, build_all, find
from . import io_reports  # noqa: F401,E402  (registers FCX108, FCX109, FCX146, FCX113)
from . import lpar_reports  # noqa: F401,E402  (registers FCX304, FCX302, FCX126)
from . import chan_reports  # noqa: F401,E402  (registers FCX107, FCX131)
from . import pool_reports  # noqa: F401,E402  (registers FCX308, FCX309)
from . import sched_reports  # noqa: F401,E402  (registers FCX145)
from .source import Source, load, select

__all__ = ["REPORTS", "build", "build_all", "find", "Source", "load", "select"]
