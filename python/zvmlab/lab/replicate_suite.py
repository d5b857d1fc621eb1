"""Replicate rows measured on a whole regression suite (row F1: IBM's ~120-scenario 6.3 vs 6.4
regression, seed 000).

The row's suite runs at the row's two levels (one seed per level, into a temporary results
store), and the metrics are read from a small result document:

* ``summary.etrr.mean``, ``summary.itrr.mean``, ``summary.etrr.sd`` ... (the suite summary);
* ``by.AXIS.VALUE.etrr_mean`` / ``itrr_mean`` / ``etrr_geomean`` / ``cells``: the same per value
  of a matrix axis (e.g. ``by.storage.constrained.etrr_mean``);
* ``gap.AXIS.A-B.etrr`` / ``itrr``: mean ratio of cells with AXIS = A minus that of AXIS = B
  (e.g. ``gap.storage.constrained-rich.etrr``: do storage-constrained scenarios gain most?).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any


def measure(suite_name: str, base: str, compare: str, seed: int | None = None, jobs: int = 1) -> dict[str, Any]:
    """Run the suite once per level and return the document the row's metrics read."""
    from . import executor as ex
    from . import suite as st
    from .store import Store

    s = st.load(suite_name)
    if seed is not None:
        s.seed = seed
    executor = ex.make(None, jobs)
    try:
        with tempfile.TemporaryDirectory(prefix="zvmlab-f1-") as d, Store.open(Path(d) / "f1.duckdb") as store:
            res, _ = st.run(s, base, compare, 1, executor, store)
    finally:
        executor.close()
    return document(res)


def document(res: dict) -> dict[str, Any]:
    """The suite result reshaped for metric paths (pure; tested on its own)."""
    rows = res["scenarios"]
    by: dict[str, dict[str, dict[str, float]]] = {}
    axes = sorted({a for r in rows for a in r["axes"]})
    for a in axes:
        for v in sorted({str(r["axes"][a]) for r in rows}):
            sel = [r for r in rows if str(r["axes"][a]) == v]
            by.setdefault(a, {})[v] = _group(sel)
    gap: dict[str, dict[str, dict[str, float]]] = {}
    for a, vals in by.items():
        for x in vals:
            for y in vals:
                if x != y:
                    gap.setdefault(a, {})[f"{x}-{y}"] = {
                        k: vals[x][f"{k}_mean"] - vals[y][f"{k}_mean"] for k in ("etrr", "itrr")}
    return {"summary": res["summary"], "by": by, "gap": gap, "cells": len(rows)}


def _group(rows: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {"cells": float(len(rows))}
    for k in ("etrr", "itrr"):
        xs = [r[k]["ratio"] for r in rows if r[k]["ratio"] is not None and math.isfinite(r[k]["ratio"])]
        out[f"{k}_mean"] = sum(xs) / len(xs) if xs else math.nan
        out[f"{k}_geomean"] = math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs and min(xs) > 0 else math.nan
    return out
