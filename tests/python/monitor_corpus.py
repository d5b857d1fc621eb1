"""An independent MONWRITE writer for tests: records from layout tables transcribed here from
IBM's published pages (docs/research/monitor-layouts.md), not from the engine's table, with
values the test chooses. A file built here is what a real system's MONWRITE file looks like
as far as the public layouts go: IBM's records only, no zvmlab records.
"""

from __future__ import annotations

import struct

FRAME = 4096
TOD_1970 = 0x7D91048BCA000000
US = 4096  # TOD units per microsecond

# name -> (domain, record, length written, {field: (offset, length, kind)}), as IBM documents
# them (ibm: confirmed offsets; zpmd 5.3: inferred). kind: u (unsigned), c (EBCDIC), d (counts
# down from the CPU timer's start).
LAYOUTS = {
    "MRMTRSYS": (1, 4, 168, {"HCPCPEID": (28, 8, "c"), "SYSTODST": (36, 8, "u"), "SYSTMID": (88, 8, "c"),
                             "CPUCOUNT": (152, 2, "u"), "LPARNAME": (160, 8, "c")}),
    "MRSYTPRP": (0, 2, 108, {"PFXCPUAD": (20, 2, "u"), "PFXPRBTM": (24, 8, "d"), "PFXUTIME": (32, 8, "u"),
                             "PFXTMSYS": (40, 8, "u"), "PFXTOTWT": (68, 8, "u"), "PFXCPUTY": (104, 1, "u")}),
    "MRUSEACT": (4, 3, 440, {"VMDUSER": (20, 8, "c"), "VMDCPUAD": (28, 2, "u")}),
    "MRMTRDEV": (1, 6, 320, {"RDEVDEV": (26, 2, "u")}),
    "MRSTOASP": (3, 4, 172, {"CALVSER": (20, 6, "c"), "RDEVDEV": (26, 2, "u"), "CALPAGE": (36, 4, "u")}),
    # mon440 gives 140 bytes and SRMCDISP..SRMC3DSP; zpmd's later branch the next nine
    "MRSYTSCG": (0, 10, 140, {"SRMCDISP": (20, 2, "u"), "SRMCDLDG": (22, 2, "u"), "SRMC1DSP": (24, 2, "u"),
                              "SRMC2DSP": (26, 2, "u"), "SRMC3DSP": (28, 2, "u"), "SRMC1ELG": (30, 2, "u"),
                              "SRMC2ELG": (32, 2, "u"), "SRMC3ELG": (34, 2, "u"), "SRMC1DLD": (36, 2, "u"),
                              "SRMC2DLD": (38, 2, "u"), "SRMC3DLD": (40, 2, "u"), "SRMC1ELD": (42, 2, "u"),
                              "SRMC2ELD": (44, 2, "u"), "SRMC3ELD": (46, 2, "u")}),
}
# MRSYTLCK: a 32-byte header (number of locks, entry size, displacement of the first), then
# 32-byte entries: lock id, exclusive spin count and time, shared spin count and time.
LOCK_ENTRY = {"CALLCKID": (0, 8, "c"), "CALXSCNT": (8, 4, "u"), "CALXTIME": (12, 8, "u"),
              "CALSSCNT": (20, 4, "u"), "CALSTIME": (24, 8, "u")}
CPU_TIMER_START = 0x7FFFFFFF00000000


def tod(seconds: float) -> int:
    """The TOD clock `seconds` after 2024-01-01 00:00:00 UTC."""
    return TOD_1970 + (1_704_067_200 * 10**6 + round(seconds * 10**6)) * US


def _put(r: bytearray, base: int, fields: dict, values: dict) -> None:
    for name, v in values.items():
        o, n, kind = fields[name]
        if kind == "c":
            r[base + o:base + o + n] = v.ljust(n)[:n].encode("cp037")
        elif kind == "d":
            r[base + o:base + o + n] = (CPU_TIMER_START - v).to_bytes(n, "big")
        else:
            r[base + o:base + o + n] = v.to_bytes(n, "big")


def header(dom: int, rec: int, ln: int, at: int) -> bytes:
    return struct.pack(">HHBxHQI", ln, 0, dom, rec, at, 0)


def record(name: str, at: int, **values) -> bytes:
    dom, rec, ln, fields = LAYOUTS[name]
    r = bytearray(ln)
    r[:20] = header(dom, rec, ln, at)
    _put(r, 0, fields, values)
    return bytes(r)


def locks(at: int, entries: list[dict]) -> bytes:
    ln = 32 + 32 * len(entries)
    r = bytearray(ln)
    r[:20] = header(0, 23, ln, at)
    struct.pack_into(">IHH", r, 20, len(entries), 32, 32)
    for i, e in enumerate(entries):
        _put(r, 32 + 32 * i, LOCK_ENTRY, e)
    return bytes(r)


def monwrite(groups: list[tuple[int, list[bytes]]], base: int = 0x300000) -> bytes:
    """A MONWRITE file: per group (its interval-end TOD, its records) one control record and its
    frames, records packed back to back, D1R13 ending a full frame, D1R11 the group; then the
    end-of-data block."""
    out = b""
    for end_tod, recs in groups:
        frames, pos = [bytearray(FRAME)], 0
        for r in recs:
            if pos + len(r) + 20 > FRAME:
                frames[-1][pos:pos + 20] = header(1, 13, 20, end_tod)
                frames.append(bytearray(FRAME))
                pos = 0
            frames[-1][pos:pos + len(r)] = r
            pos += len(r)
        frames[-1][pos:pos + 20] = header(1, 11, 20, end_tod)
        end = base + FRAME * (len(frames) - 1) + pos + 19
        cr = bytearray(FRAME)
        cr[40:52] = bytes([0xE2, 0xFF, 0xF0, 0]) + struct.pack(">II", base, end)
        out += bytes(cr) + b"".join(bytes(f) for f in frames)
    return out + bytes(FRAME)
