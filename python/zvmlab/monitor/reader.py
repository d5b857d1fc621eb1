"""Read monitor data in MONWRITE format into columns.

The file is a sequence of 4096-byte blocks: a MONWRITE control record (MWTBK: a 40-byte IUCV
buffer, then 12-byte control-area entries: type X'E2' sample / X'C5' event, domain bits, start
and end address in the monitor DCSS), followed by the DCSS frames holding the records of each
entry, from frame floor(start/4096) to floor(end/4096), the first record at start mod 4096
(this frame rule is inferred, see shared/research/monitor-data.md). Records carry a 20-byte
header (length, zeros, domain, record number, TOD) and never span a frame; D1R13 ends a frame,
D1R11 ends an interval (and the initial configuration set). A control record whose control
area is all zeros is the end-of-data block zvmlab writes last; data after it (concatenated
files) is read on.

The reader never raises on bad data: it records each problem with the byte offset where it
found it, skips what it cannot read (a frame, a control record) and carries on. Records without
a layout are counted by domain and record number and skipped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import layouts as L

_TYPES = {0xE2: "sample", 0xC5: "event"}
_MAX_ENTRIES = (L.FRAME - 40) // 12
# A control-area entry spanning more than this is not believed (a monitor DCSS is < 2 GB).
_MAX_SPAN = 1 << 31
# Problems beyond this many are counted, not listed.
_MAX_PROBLEMS = 200


@dataclass
class Problem:
    offset: int
    message: str

    def __str__(self) -> str:
        return f"offset {self.offset} (X'{self.offset:X}'): {self.message}"


@dataclass
class MonitorData:
    """Decoded monitor data: one column table per record name, plus where each interval ended."""

    source: str = ""
    size: int = 0
    origin: str = ""
    release: str | None = None
    # Each closed group (ended by D1R11): TOD and file offset of its interval-end record.
    groups: list[dict] = field(default_factory=list)
    # record name -> column name -> values; every table has group, tod and offset columns.
    tables: dict[str, dict[str, list]] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    problems_dropped: int = 0
    control_records: int = 0
    records: int = 0
    # end-of-data blocks (offsets); each configuration set's system id and level, with offset
    end_of_data: list[int] = field(default_factory=list)
    systems: list[tuple[int, str]] = field(default_factory=list)
    levels: list[tuple[int, str]] = field(default_factory=list)

    def problem(self, offset: int, message: str) -> None:
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(Problem(offset, message))
        else:
            self.problems_dropped += 1

    @property
    def n_problems(self) -> int:
        return len(self.problems) + self.problems_dropped

    def column(self, record: str, name: str) -> list:
        return self.tables.get(record, {}).get(name, [])

    def rows(self, record: str) -> list[dict]:
        """The table of ``record`` as a list of dicts (one per record)."""
        t = self.tables.get(record, {})
        n = len(t.get("offset", []))
        return [{k: v[i] for k, v in t.items() if i < len(v)} for i in range(n)]

    def describe(self) -> dict:
        """What was read: counts, skipped records, problems (JSON-ready)."""
        return {
            "source": self.source,
            "bytes": self.size,
            "origin": self.origin or "unknown",
            "control_records": self.control_records,
            "records": self.records,
            "intervals_closed": len(self.groups),
            "tables": {k: len(v.get("offset", [])) for k, v in sorted(self.tables.items())},
            "skipped": {f"D{d}R{r} {L.record_name((d, r))}": n for (d, r), n in sorted(self.skipped.items())},
            "problems": [{"offset": p.offset, "message": p.message} for p in self.problems],
            "problems_not_listed": self.problems_dropped,
        }


def _u(b: bytes, o: int, n: int) -> int:
    return int.from_bytes(b[o:o + n], "big")


def _decode(kind: str, raw: bytes):
    if kind == "char":
        return raw.decode("cp037").rstrip(" \x00")
    if kind == "sint":
        return int.from_bytes(raw, "big", signed=True)
    return int.from_bytes(raw, "big")


class _Reader:
    def __init__(self, data: bytes, source: str):
        self.b = data
        self.m = MonitorData(source=source, size=len(data))
        self.layouts = L.table()
        self.open_records = 0  # records read since the last interval end

    # -- control records ---------------------------------------------------------------------

    def control(self, pos: int) -> list[tuple[str, int, int, int]] | None:
        """The entries of the control record at ``pos`` ([] for the end-of-data block), or None
        if it is not one."""
        b = self.b
        if not any(b[pos + 40:pos + L.FRAME]):
            return []
        entries = []
        for i in range(_MAX_ENTRIES):
            o = pos + 40 + 12 * i
            flag = b[o]
            if flag == 0:
                if _u(b, o, 12) != 0:
                    return None
                break
            if flag not in _TYPES:
                return None
            doms, start, end = _u(b, o + 1, 2), _u(b, o + 4, 4), _u(b, o + 8, 4)
            if doms == 0 or start > end or end - start > _MAX_SPAN:
                return None
            entries.append((_TYPES[flag], doms, start, end))
        return entries or None

    def run(self) -> MonitorData:
        b, m = self.b, self.m
        n = len(b)
        if n == 0:
            m.problem(0, "empty file: no monitor data")
            return m
        if n % L.FRAME:
            m.problem(n - n % L.FRAME, f"file length {n} is not a multiple of 4096 (MONWRITE writes 4096-byte "
                                       f"records); the last {n % L.FRAME} bytes are ignored")
        pos = 0
        bad_from = None
        while pos + L.FRAME <= n:
            entries = self.control(pos)
            if entries is None:
                if bad_from is None:
                    bad_from = pos
                pos += L.FRAME
                continue
            if bad_from is not None:
                self.not_control(bad_from, pos)
                bad_from = None
            if not entries:
                m.end_of_data.append(pos)
                pos += L.FRAME
                continue
            m.control_records += 1
            fpos = pos + L.FRAME
            for kind, _doms, start, end in entries:
                nfr = end // L.FRAME - start // L.FRAME + 1
                avail = (n - fpos) // L.FRAME
                if nfr > avail:
                    m.problem(fpos + avail * L.FRAME, f"data ends inside the {nfr} frames the control record at "
                                                      f"offset {pos} announces ({avail} present): truncated file")
                    nfr = avail
                rel_end = end - (start // L.FRAME) * L.FRAME
                self.frames(fpos, nfr, start % L.FRAME, rel_end)
                fpos += nfr * L.FRAME
            pos = fpos
        if bad_from is not None:
            self.not_control(bad_from, pos)
        if self.open_records:
            m.problem(n, f"{self.open_records} records after the last interval-end record (D1R11): the last "
                         f"interval is incomplete and not reported")
        if m.control_records == 0:
            m.problem(0, "no MONWRITE control record found: this is not monitor data in MONWRITE format")
        return m

    def not_control(self, start: int, end: int) -> None:
        nb = (end - start) // L.FRAME
        what = "the 4096-byte block" if nb == 1 else f"{nb} blocks up to offset {end}"
        self.m.problem(start, f"expected a MONWRITE control record (type X'E2' or X'C5' entries at offset 40), "
                              f"found none; skipped {what}")

    # -- records -----------------------------------------------------------------------------

    def frames(self, fpos: int, nfr: int, first: int, rel_end: int) -> None:
        b, m = self.b, self.m
        limit = min(rel_end + 1, nfr * L.FRAME)
        rel = first
        while rel < limit:
            fo = rel % L.FRAME
            next_frame = rel - fo + L.FRAME
            if fo + L.HEADER_LEN > L.FRAME:
                rel = next_frame
                continue
            at = fpos + rel
            ln, zer, dom, rec = _u(b, at, 2), _u(b, at + 2, 2), b[at + 4], _u(b, at + 6, 2)
            if ln < L.HEADER_LEN or fo + ln > L.FRAME:
                m.problem(at, f"record length {ln} " + ("is shorter than the 20-byte header"
                                                       if ln < L.HEADER_LEN else "runs past its 4096-byte frame")
                          + "; rest of the frame skipped")
                rel = next_frame
                continue
            if zer != 0:
                m.problem(at, f"not a record header (bytes 2-3 are X'{zer:04X}', must be zero); rest of the frame "
                              f"skipped")
                rel = next_frame
                continue
            if rel + ln > limit:
                m.problem(at, f"record D{dom}R{rec} (length {ln}) runs past the end address of its control-area "
                              f"entry; skipped")
                return
            key = (dom, rec)
            tod = _u(b, at + 8, 8)
            if key == L.D1R13_END_OF_FRAME:
                rel = next_frame
                continue
            if key == L.D1R11_INTERVAL_END:
                m.groups.append({"tod": tod, "offset": at})
                self.open_records = 0
                rel += ln
                continue
            m.records += 1
            self.open_records += 1
            self.record(key, at, ln, tod)
            rel += ln

    def record(self, key: tuple[int, int], at: int, ln: int, tod: int) -> None:
        m = self.m
        raw = self.b[at:at + ln]
        lay = self.layouts.get(key)
        if lay is None:
            m.skipped[key] += 1
            return
        values = {f.name: (_decode(f.kind, raw[f.offset:f.end]) if f.end <= ln else None) for f in lay.fields}
        if key in ((1, 4), (L.ZVM_DOMAIN, 1)):
            self.configure(key, at, values)
        if lay.array is None:
            self.row(lay.name, at, ln, tod, values)
            return
        for eat, entry in self.entries(lay, at, raw, values):
            self.row(lay.name, eat, ln, tod, {**values, **entry})

    def entries(self, lay: L.Record, at: int, raw: bytes, values: dict):
        """The entries of an array record: (offset, values) each; problems for bad headers."""
        a = lay.array
        n, size, first = values.get(a.count), values.get(a.size), values.get(a.first)
        if n is None or size is None or first is None:
            self.m.problem(at, f"{lay.name} too short for its entry header; entries skipped")
            return
        need = max((f.end for f in a.fields), default=0)
        if size < need or first < L.HEADER_LEN or first + n * size > len(raw):
            self.m.problem(at, f"{lay.name} header says {n} entries of {size} bytes from offset {first}, which "
                               f"do not fit its {len(raw)} bytes (entries need {need}); entries skipped")
            return
        for i in range(n):
            o = first + i * size
            yield at + o, {f.name: _decode(f.kind, raw[o + f.offset:o + f.end]) for f in a.fields}

    def row(self, name: str, at: int, ln: int, tod: int, values: dict) -> None:
        m = self.m
        t = m.tables.setdefault(name, {"group": [], "tod": [], "offset": [], "length": []})
        n = len(t["offset"])
        t["group"].append(len(m.groups))
        t["tod"].append(tod)
        t["offset"].append(at)
        t["length"].append(ln)
        for k, v in values.items():
            t.setdefault(k, [None] * n).append(v)
        for col in t.values():  # columns this record lacks stay aligned
            if len(col) < n + 1:
                col.append(None)

    def configure(self, key: tuple[int, int], at: int, v: dict) -> None:
        """MTRSYS says which system wrote the data; zvmlab's ZVMSYS which level it simulated."""
        m = self.m
        if key == (1, 4):
            sysid = v.get("MTRSYS_SYSTMID") or ""
            m.systems.append((at, sysid))
            if v.get("MTRSYS_HCPCPEID") == L.ORIGIN_ZVMLAB:
                m.origin = L.ORIGIN_ZVMLAB
            return
        level = full_level(v.get("ZVMSYS_LEVEL"))
        if level:
            m.levels.append((at, level))
            m.release = level
            self.layouts = L.table(level)


def full_level(name: str | None) -> str | None:
    """ZVMSYS_LEVEL holds 16 characters: a longer level's name is cut there
    (``zvm-6.4-vm65988-vm66063``). A full field that begins exactly one known level's name is
    that level (its case ignored)."""
    if not name or len(name) < 16:
        return name
    from .. import engine

    known = [lv["name"] for lv in engine.levels() if lv["name"].startswith(name.lower())]
    if len(known) != 1:
        return name
    return known[0].upper() if name.isupper() else known[0]  # in the data's case (EBCDIC names are upper)


def read(data: bytes, source: str = "") -> MonitorData:
    """Decode MONWRITE-format bytes. Never raises on bad data; see ``MonitorData.problems``."""
    return _Reader(bytes(data), source).run()


def read_file(path: str | Path) -> MonitorData:
    p = Path(path)
    return read(p.read_bytes(), str(p))
