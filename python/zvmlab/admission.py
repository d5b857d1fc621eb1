"""Resource admission: a run's memory, estimated from the scenario before anything is allocated.

A run that would not fit is refused with a located message (the field that costs the most)
instead of aborting on allocation minutes later. The estimate is linear in what the engine
keeps (measured 2026-11-25 with ``ru_maxrss`` on runs of 1-1000 users and 200-20000 intervals,
README "What you can rely on"):

* per monitor interval about 24 KB (monitor frames, summary) plus about 1.1 KB per user and
  device; estimated as 32 KB + 1.5 KB per user/device (the run's summary keeps every interval);
* per guest page with page references 2 bits of page state plus a 2-byte resident count per
  1 MB segment (0.27 bytes);
* per resident page (at most the frames of real storage) a 4-byte list entry, twice that
  while a list grows (measured 4.4 bytes at 2 TB; 5 bytes);
* 64 MB for the program itself.

The limit is ``--max-memory`` (on ``run`` and ``validate``), else ``ZVMLAB_MAX_MEMORY``, else
the memory available on this machine (``MemAvailable`` of /proc/meminfo).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .errors import InputError

BASE = 64 << 20
PER_INTERVAL = 32 << 10
PER_INTERVAL_USER = 1536
PER_GUEST_PAGE = 0.27
PER_FRAME = 5

_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([KMGT]?)B?\s*$", re.IGNORECASE)


@dataclass
class Estimate:
    """Bytes a run needs, by part: {name: (bytes, field, (table, key, index))}."""

    parts: dict[str, tuple[int, str, tuple]] = field(default_factory=dict)

    @property
    def bytes(self) -> int:
        return BASE + sum(b for b, _, _ in self.parts.values())

    def largest(self) -> tuple[str, int, str, tuple]:
        name = max(self.parts, key=lambda k: self.parts[k][0])
        return (name, *self.parts[name])


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PB"


def estimate(sc) -> Estimate:
    """The memory a run of scenario ``sc`` needs (see the module's docstring)."""
    est = Estimate()
    intervals = -(-sc.duration_ns // max(1, sc.interval_ns))
    users = len(sc.userids())
    devices = 0
    if sc.storage:
        devices += sum(int(v.get("count", 1)) for v in sc.storage.get("paging_volumes", []))
    devices += len({g.workload.dasd["volume"] for g in sc.guests if getattr(g.workload, "dasd", None)})
    est.parts["intervals"] = (intervals * (PER_INTERVAL + PER_INTERVAL_USER * (users + devices)), "run.interval",
                              ("run", "interval", 0))
    pages = [(g.storage_pages or 0) * g.count if g.refs is not None else 0 for g in sc.guests]
    if any(pages):
        i = max(range(len(pages)), key=pages.__getitem__)
        est.parts["guest pages"] = (round(sum(pages) * PER_GUEST_PAGE), f"guest[{i}].storage", ("guest", "storage", i))
    if sc.storage:
        frames = int(sc.storage.get("frames", 0))
        resident = min(frames, sum(pages))  # only referenced pages take frames
        est.parts["real storage"] = (resident * PER_FRAME, "storage.real", ("storage", "real", 0))
    return est


def parse_bytes(text: str, *, where: str) -> int:
    m = _SIZE.match(text or "")
    if not m:
        raise InputError(f"{text!r} is not a size", field=where, fix='e.g. "8G" or "512M" (binary units)')
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()])


def available() -> int | None:
    """MemAvailable of this machine (Linux), else None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def limit(max_memory: str | None = None) -> tuple[int | None, str]:
    """(bytes, where the limit comes from)."""
    if max_memory:
        return parse_bytes(max_memory, where="--max-memory"), "--max-memory"
    env = os.environ.get("ZVMLAB_MAX_MEMORY")
    if env:
        return parse_bytes(env, where="ZVMLAB_MAX_MEMORY"), "ZVMLAB_MAX_MEMORY"
    return available(), "the memory available on this machine"


def admit(sc, max_memory: str | None = None, *, has_option: bool = False) -> Estimate:
    """The estimate of ``sc``; InputError naming the costliest field when it exceeds the limit
    (``has_option``: the command has ``--max-memory``, which the fix then names)."""
    est = estimate(sc)
    cap, source = limit(max_memory)
    if cap is not None and est.bytes > cap:
        name, b, where, (table, key, index) = est.largest()
        line = _line(sc.path, table, key, index)
        fixes = {"intervals": "use a longer run.interval or a shorter run.duration",
                 "guest pages": "give the guests less storage or fewer guests page references",
                 "real storage": "give [storage] less real storage, or prefill = false"}
        raise InputError(f"the run needs about {human(est.bytes)} of memory ({name}: {human(b)}), above "
                         f"{human(cap)} ({source})", file=sc.path, line=line, field=where,
                         fix=f"{fixes[name]}; or raise the limit with "
                             + ("--max-memory / ZVMLAB_MAX_MEMORY" if has_option else "ZVMLAB_MAX_MEMORY=SIZE"))
    return est


def _line(path: str, table: str, key: str, index: int) -> int | None:
    from .scenario import MAX_SCENARIO_BYTES, _Lines

    try:
        with open(path, "rb") as f:
            text = f.read(MAX_SCENARIO_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    return _Lines(text).find(table, key, index)
