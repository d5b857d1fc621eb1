"""zvmlab: a performance laboratory for IBM z/VM in software.

The Python API (``zvmlab.api``; README "Python API")::

    import zvmlab
    sc = zvmlab.load("scenarios/showcase.toml").with_(processors=4)
    res = zvmlab.run(sc, seed=1)
    res.summary["response_ms"], res.users.to_pandas()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["__version__", "load", "loads", "run", "sweep", "replicate", "reports", "Scenario", "Result", "Report",
           "Frame", "InputError"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import Report, Result, Scenario, load, loads, replicate, reports, run, sweep
    from .errors import InputError
    from .tables import Frame


def __getattr__(name: str) -> Any:
    # Imported on first use: the command line does not pay for the API's imports.
    if name in ("load", "loads", "run", "sweep", "replicate", "reports", "Scenario", "Result", "Report"):
        from . import api

        return getattr(api, name)
    if name == "Frame":
        from .tables import Frame

        return Frame
    if name == "InputError":
        from .errors import InputError

        return InputError
    raise AttributeError(f"module 'zvmlab' has no attribute {name!r}")
