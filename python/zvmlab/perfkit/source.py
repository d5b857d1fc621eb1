"""Where report data comes from: a run directory (its monitor.mon) or a monitor file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..monitor import MonitorData, measure, read
from ..monitor.checks import check
from ..monitor.derive import Measurements

MONITOR_FILE = "monitor.mon"


@dataclass
class Source:
    path: str
    label: str
    data: MonitorData
    m: Measurements
    # physical-bounds problems (monitor.checks): report notes, an error with --strict
    checks: list[str] = field(default_factory=list)


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
    if not m.intervals:
        first = f"; first problem at {data.problems[0]}" if data.problems else ""
        what = ("no MONWRITE control record: this is not monitor data in MONWRITE format"
                if data.control_records == 0 else
                "no complete monitor interval (processor or user samples ended by an interval-end record)")
        raise InputError(f"{what}{first}", file=str(f),
                         fix="give a file written by `zvmlab run --out` or by CMS MONWRITE (RECFM F LRECL 4096)")
    return Source(str(f), label, data, m, check(data, m))
