"""Where report data comes from: a run directory (its monitor.mon) or a monitor file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..monitor import MonitorData, measure, read
from ..monitor.checks import check
from ..monitor.derive import Measurements, tod_datetime

MONITOR_FILE = "monitor.mon"
SUMMARY_FILE = "summary.json"


@dataclass
class Source:
    path: str
    label: str
    data: MonitorData
    m: Measurements
    # physical-bounds problems (monitor.checks): report notes, an error with --strict
    checks: list[str] = field(default_factory=list)
    # The run's summary.json when PATH is a run directory (response time, FCX112); None otherwise.
    summary: dict | None = None


def _summary(p: Path) -> dict | None:
    f = p / SUMMARY_FILE
    if not p.is_dir() or not f.is_file():
        return None
    try:
        s = json.loads(f.read_text())
    except (OSError, ValueError):
        return None  # the reports come from the monitor data; the summary only adds columns
    return s if isinstance(s, dict) else None


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
    elif p.exists():  # /dev/null, a FIFO, a socket: not read (a FIFO would wait for ever)
        raise InputError("is neither a regular file nor a directory", file=str(p),
                         fix="give a run directory or a monitor file (save piped data to a file first)")
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
    return Source(str(f), label, data, m, check(data, m), _summary(p))


def _instant(text: str, opt: str, m: Measurements) -> float:
    """--from/--to as seconds since the start of the data: a clock time HH:MM[:SS] (the data's
    first day, or the next if earlier than its start) or seconds, e.g. "90" or "90s"."""
    import datetime as dt
    t = text.strip()
    start = tod_datetime(m.start_tod)
    try:
        if ":" in t:
            parts = [int(x) for x in t.split(":")]
            if len(parts) not in (2, 3) or not (0 <= parts[0] < 24 and all(0 <= x < 60 for x in parts[1:])):
                raise ValueError
            h, mi, se = (parts + [0])[:3]
            when = start.replace(hour=h, minute=mi, second=se, microsecond=0)
            if when < start.replace(microsecond=0):
                when += dt.timedelta(days=1)
            return (when - start).total_seconds()
        v = float(t[:-1] if t.endswith("s") else t)
        if v < 0 or v != v:
            raise ValueError
        return v
    except ValueError:
        raise InputError(f"cannot read time '{text}'", field=opt,
                         fix="give a clock time HH:MM or HH:MM:SS, or seconds since the start of the data, "
                             "e.g. 90s") from None


def select(src: Source, frm: str | None, to: str | None) -> Source:
    """The source with only the intervals that end after --from and at or before --to."""
    if frm is None and to is None:
        return src
    m = src.m
    lo = _instant(frm, "--from", m) if frm is not None else float("-inf")
    hi = _instant(to, "--to", m) if to is not None else float("inf")
    t0 = m.intervals[0].start_ns if m.intervals else 0
    keep = [k for k, iv in enumerate(m.intervals) if lo < (iv.end_ns - t0) / 1e9 <= hi + 1e-9]
    if not keep:
        first, last = tod_datetime(m.start_tod), tod_datetime(m.intervals[-1].end_tod)
        raise InputError(f"no interval ends between --from {frm or 'start'} and --to {to or 'end'}",
                         file=src.path, fix=f"the data runs from {first:%H:%M:%S} to {last:%H:%M:%S} "
                                            f"({m.duration_ns / 1e9:g} s)")
    # the summary's figures are the whole run's: not shown for a window of it
    return Source(src.path, src.label, src.data, m.window(keep), src.checks, None)
