"""Where report data comes from: a run directory (its monitor.mon) or a monitor file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..monitor import MonitorData, measure, read
from ..monitor.derive import Measurements

MONITOR_FILE = "monitor.mon"
SUMMARY_FILE = "summary.json"


@dataclass
class Source:
    path: str
    label: str
    data: MonitorData
    m: Measurements


def _tx_unit(run_dir: Path) -> float:
    """The run's transaction unit ([run] tx_unit, kept in its summary.json); 1 when absent."""
    try:
        unit = json.loads((run_dir / SUMMARY_FILE).read_text()).get("tx_unit", 1.0)
    except (OSError, ValueError, AttributeError):
        return 1.0
    return float(unit) if isinstance(unit, (int, float)) and unit > 0 else 1.0


def load(path: str) -> Source:
    """Read PATH (a run directory or a MONWRITE file); InputError if nothing can be reported."""
    p = Path(path)
    if p.is_dir():
        f = p / MONITOR_FILE
        if not f.is_file():
            raise InputError(f"no {MONITOR_FILE} in this directory", file=str(p),
                             fix="give a run directory written by `zvmlab run --out` (runs from before monitor "
                                 "data was written need a rerun) or a monitor file")
        label = p.name or str(p)
    elif p.is_file():
        f, label = p, p.name
    else:
        raise InputError("no such file or directory", file=str(p), fix="give a run directory or a monitor file")
    try:
        raw = f.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=str(f)) from None
    data = read(raw, str(f))
    m = measure(data)
    m.tx_unit = _tx_unit(p) if p.is_dir() else 1.0
    if not m.intervals:
        first = f"; first problem at {data.problems[0]}" if data.problems else ""
        what = ("no MONWRITE control record: this is not monitor data in MONWRITE format"
                if data.control_records == 0 else
                "no complete monitor interval (processor or user samples ended by an interval-end record)")
        raise InputError(f"{what}{first}", file=str(f),
                         fix="give a file written by `zvmlab run --out` or by CMS MONWRITE (RECFM F LRECL 4096)")
    return Source(str(f), label, data, m)
