"""Physical-bounds checks on decoded monitor data: what no real system can produce.

A report shows these as notes (``--strict`` makes them an error): a processor more than 100 %
busy, a user using more CPU than its virtual CPUs can, a figure that is negative, time running
backwards, and two systems or two levels in one file. A figure that fails a check is still
shown (the note says which); the checks never change a figure.
"""

from __future__ import annotations

from .derive import Measurements, base_busy, tod_datetime
from .layouts import TOD_PER_US
from .reader import MonitorData

# Rounding of TOD units to nanoseconds may put an idle processor's busy time a few ns over
# the interval: a figure is out of bounds beyond this fraction of the interval.
_SLACK = 1e-6
# Notes beyond this many are counted, not listed.
_MAX_NOTES = 20


def _when(m: Measurements, k: int) -> str:
    return tod_datetime(m.intervals[k].end_tod).strftime("%H:%M:%S")


def _processors(m: Measurements) -> list[str]:
    out = []
    for c in m.cpus:
        for k, iv in enumerate(m.intervals):
            ln = iv.len_ns * (1 + _SLACK)
            for what, s in (("busy", m.busy_ns), ("in wait", m.wait_ns), ("in emulation", m.emul_ns)):
                v = s.get(c, [None] * len(m.intervals))[k]
                if v is not None and v > ln:
                    out.append(f"processor {c:X} {100.0 * v / iv.len_ns:.1f} % {what} in the interval ending "
                               f"{_when(m, k)} (above 100 %)")
    return out


def _users(m: Measurements) -> list[str]:
    out = []
    for u in m.users:
        n = m.vcpus.get(u) or 0
        for k, iv in enumerate(m.intervals):
            t, v = m.total_ns.get(u, [None] * (k + 1))[k], m.virt_ns.get(u, [None] * (k + 1))[k]
            if n and t is not None and t > n * iv.len_ns * (1 + _SLACK):
                out.append(f"user {u} used {100.0 * t / iv.len_ns:.1f} % CPU with {n} virtual CPU(s) in the "
                           f"interval ending {_when(m, k)} (above {100 * n} %)")
            if t is not None and v is not None and v > t * (1 + _SLACK) + 1:
                out.append(f"user {u}: virtual CPU time above total CPU time in the interval ending "
                           f"{_when(m, k)}")
    return out


def _devices(m: Measurements) -> list[str]:
    """A device's own exposures busy above 100 %, or its I/Os on HyperPAV aliases busier than the
    whole alias pool. ZVMDEV_BUSYTM counts every I/O in service, those run on aliases too
    (ZVMDEV_ALIASTM): the base exposures' own busy time is the difference, as FCX108 %Busy.
    The pool bound applies with a HyperPAV pool (ZVMHPP); static and dynamic PAV bind aliases
    to bases, and no record gives a base's bound aliases over a whole interval."""
    out = []
    pool = (m.hpp_info or {}).get("aliases")
    for d in m.devs:
        n = m.dev_info.get(d, {}).get("exposures") or 1
        for k, iv in enumerate(m.intervals):
            c = {key: s[k] for key, s in m.dev.get(d, {}).items()}
            b, a = base_busy(c), c.get("alias") or 0
            if b is not None and b > n * iv.len_ns * (1 + _SLACK):
                out.append(f"device {d:04X} busy {100.0 * b / (n * iv.len_ns):.1f} % per exposure in the "
                           f"interval ending {_when(m, k)} (above 100 %)")
            if pool is not None and a > pool * iv.len_ns * (1 + _SLACK):
                out.append(f"device {d:04X} ran I/O on HyperPAV aliases {100.0 * a / iv.len_ns:.1f} % of the "
                           f"interval ending {_when(m, k)}, more than its pool of {pool} alias(es) can")
    return out


def _file(data: MonitorData) -> list[str]:
    out = []
    systems = sorted({s for _, s in data.systems})
    if len(systems) > 1:
        out.append(f"two or more systems in one file ({', '.join(systems)}): report them separately")
    levels = sorted({lv for _, lv in data.levels})
    if len(levels) > 1:
        out.append(f"two or more levels in one file ({', '.join(levels)}): report them separately")
    tods = [g["tod"] for g in data.groups]
    back = [i for i in range(1, len(tods)) if tods[i] < tods[i - 1]]
    if back:
        g = data.groups[back[0]]
        out.append(f"time runs backwards at offset {g['offset']}: an interval ends at "
                   f"{tod_datetime(tods[back[0]]).isoformat()}, before the previous one "
                   f"({len(back)} time(s) in the file)")
    return out


# An interval this many times the file's usual one is a clock jump or two recordings in one file.
_JUMP = 100


def _jumps(data: MonitorData, m: Measurements) -> list[str]:
    """Interval ends far apart: measured against the sample interval the data states (ZVMSYS),
    else against the file's median interval."""
    tods = [g["tod"] for g in data.groups]
    gaps = sorted(b - a for a, b in zip(tods, tods[1:]) if b > a)
    stated = m.system.get("interval_s")
    if stated:
        usual = round(stated * 1e6 * TOD_PER_US)
    elif len(gaps) >= 2:
        usual = gaps[len(gaps) // 2]
    else:
        return []
    far = [i for i in range(1, len(tods)) if tods[i] - tods[i - 1] > _JUMP * usual]
    if not far:
        return []
    g = data.groups[far[0]]
    return [f"time jumps at offset {g['offset']}: an interval ends at {tod_datetime(tods[far[0]]).isoformat()}, "
            f"more than {_JUMP} times the file's usual interval after the previous one ({len(far)} time(s) "
            f"in the file)"]


def check(data: MonitorData, m: Measurements) -> list[str]:
    """The problems no real system's data can have, as sentences (empty: none found)."""
    found = _file(data) + _jumps(data, m) + _processors(m) + _users(m) + _devices(m)
    found += [f"offset {p.offset}: {p.message}" for p in m.problems]
    if len(found) > _MAX_NOTES:
        found = found[:_MAX_NOTES] + [f"... and {len(found) - _MAX_NOTES} more"]
    return found
