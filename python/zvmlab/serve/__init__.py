"""`zvmlab serve`: a local web view of runs, stores (suites, sweeps), reports and replicate pages.

``make_app(root)`` is the Starlette application (``app.py``); ``discover`` finds what is under
the root and keeps every opened path inside it; ``figures`` draws Plotly charts.
"""

from .app import make_app

__all__ = ["make_app"]
