"""What `zvmlab serve` shows: run directories, result stores and replicate pages under a root.

Everything the web view opens is a path *inside* the root, named relative to it; anything that
resolves outside (``..``, an absolute path, a symbolic link leading out) is refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 5
MAX_ENTRIES = 2000


@dataclass(frozen=True)
class RunDir:
    rel: str
    title: str
    level: str
    processors: int
    etr: float
    resp_ms: float | None
    has_monitor: bool


@dataclass(frozen=True)
class Found:
    runs: list[RunDir]
    stores: list[str]
    replicates: list[str]


def inside(root: Path, rel: str) -> Path | None:
    """``root / rel`` if it stays inside ``root`` once resolved, else None."""
    if not rel or rel.startswith(("/", "\\")) or "\x00" in rel:
        return None
    p = (root / rel).resolve()
    try:
        p.relative_to(root.resolve())
    except ValueError:
        return None
    return p


def _run(root: Path, d: Path) -> RunDir | None:
    try:
        s = json.loads((d / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(s, dict):
        return None
    r = s.get("response_ms") or {}
    return RunDir(str(d.relative_to(root)), str(s.get("title") or s.get("scenario") or d.name), str(s.get("level", "")),
                  int(s.get("processors") or 0), float(s.get("etr") or 0.0),
                  r.get("mean") if r.get("count") else None, (d / "monitor.mon").is_file())


def scan(root: Path, store_file: Path | None = None) -> Found:
    """Run directories (with summary.json), stores (*.duckdb) and replicate pages (index.html beside
    results.json) under ``root``, at most MAX_DEPTH levels down, in name order."""
    runs: list[RunDir] = []
    stores: list[str] = []
    reps: list[str] = []
    base = len(root.parts)
    n = 0
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = sorted(x for x in dirnames if not x.startswith(".")) if len(d.parts) - base < MAX_DEPTH else []
        n += 1
        if n > MAX_ENTRIES:
            break
        if "summary.json" in filenames:
            r = _run(root, d)
            if r:
                runs.append(r)
        if "index.html" in filenames and "results.json" in filenames:
            reps.append(str((d / "index.html").relative_to(root)))
        stores += [str((d / f).relative_to(root)) for f in sorted(filenames) if f.endswith(".duckdb")]
    if store_file is not None:
        stores = [str(store_file.relative_to(root))]
    return Found(sorted(runs, key=lambda r: r.rel), sorted(stores), sorted(reps))
