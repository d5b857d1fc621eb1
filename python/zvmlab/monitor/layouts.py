"""Monitor record layouts, table-driven: which bytes of which record mean what.

The table is the engine's (``crates/engine/src/monwrite/layouts.rs``, exported as JSON): the
writer and this reader share one source of truth. Each field carries its provenance:

- ``ibm:<release>``: offset read on IBM's monitor-record page of that release (confirmed);
- ``zpmd:5.3``: field order of the open-source zpmd decoder for z/VM 5.3, offsets computed
  from it (inferred; IBM's pages give the record and its structure, the public excerpts stop
  before the field);
- ``zvmlab``: a field of zvmlab's own records, domain 15 (``ZVM_DOMAIN``), which IBM does not
  use. They are decoded wherever they appear (a real system never writes them).

Record lengths grow between releases: a field is decoded only when the record is long enough
to hold it (MRHDRLEN decides), unknown trailing bytes are ignored and records without a layout
are counted and skipped. ``RELEASES`` holds per-release additions: a release's table is the
base table plus its additions, so transcribing a new release's page is adding rows there.
docs/research/monitor-layouts.md gives the sources.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER_LEN = 20
FRAME = 4096

# TOD clock: bit 51 = 1 microsecond; 4096 units per microsecond; epoch 1900-01-01.
TOD_PER_US = 4096
TOD_1970 = 0x7D91048BCA000000
# A descending CPU-timer field starts here (SYTPRP_PFXPRBTM, ibm:mon640) ...
CPU_TIMER_START = 0x7FFFFFFF00000000
# ... and older zvmlab files wrote all ones in one the simulator did not measure.
NOT_MEASURED = 0xFFFFFFFFFFFFFFFF

ORIGIN_ZVMLAB = "ZVMLAB"
ZVM_DOMAIN = 15  # zvmlab's own records (IBM's domains are 0..11)
# Codes of zvmlab's records (crates/engine/src/monwrite/mod.rs): ZVMDVC_TYPE and ZVMDVC_FLAGS.
DEVTYPES = {1: "3390", 2: "EDEV", 3: "SCSI"}
DEVFLAG_PAGING = 0x80
DEVFLAG_MINIDISK = 0x40
# ZVMPRP_POLAR, ZVMPRP_FLAGS (parked, PFXPRBTM apportioned, core times measured), ZVMCUP_FLAGS.
POLARS = {0: "", 1: "Vh", 2: "Vm", 3: "Vl", 4: "Hz", 5: "Ded"}
PRPFLAG_PARKED = 0x80
PRPFLAG_PRB_APPORTIONED = 0x40
PRPFLAG_CORETM = 0x20
CUPFLAG_SELF = 0x80
CUPFLAG_DEDICATED = 0x40
CUPFLAG_HORIZONTAL = 0x20
HPPFLAG_PAGING = 0x80  # ZVMHPP_FLAGS: SET PAGING ALIAS ON in effect
CPLFLAG_LIMITED = 0x80  # ZVMCPL_FLAGS: the pool was limited at the sample
CPLFLAG_CAPACITY = 0x40  # ZVMCPL_FLAGS: a CAPACITY limit (else LIMITHARD)
CPLFLAG_DELETED = 0x20  # ZVMCPL_FLAGS: DELETE CPUPOOL done
CAPFLAG_INITIAL = 0x80  # ZVMCAP_FLAGS: initial capping (at the weight's share)
CAPFLAG_ABSOLUTE = 0x40  # ZVMCAP_FLAGS: an absolute cap
CAPFLAG_GROUP = 0x20  # ZVMCAP_FLAGS: a member of an absolute capping group
STOFLAG_PAGING = 0x80  # ZVMSTO_FLAGS: the storage and paging fields are measured
STOFLAG_MDC = 0x40  # ZVMSTO_FLAGS: the minidisk cache fields are

# Control records (confirmed: mon420 .. mon750).
D1R11_INTERVAL_END = (1, 11)
D1R13_END_OF_FRAME = (1, 13)

DOMAINS = {0: "System", 1: "Monitor", 2: "Scheduler", 3: "Storage", 4: "User", 5: "Processor", 6: "I/O",
           7: "Seek", 8: "Virtual Network", 9: "ISFC", 10: "APPLDATA", 11: "SSI", 15: "zvmlab"}


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    length: int
    kind: str  # uint | sint | char | tod | timerdown
    source: str

    @property
    def end(self) -> int:
        return self.offset + self.length


@dataclass(frozen=True)
class Array:
    """Entries after a record's fixed part: header fields give their count, size and the
    displacement of the first; entry fields' offsets are from the entry's start."""

    count: str
    size: str
    first: str
    entry_len: int
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class Record:
    domain: int
    number: int
    name: str
    title: str
    fields: tuple[Field, ...]
    array: Array | None = None
    length: int = 0  # what zvmlab writes (arrays: the fixed part)
    source: str = ""

    @property
    def key(self) -> tuple[int, int]:
        return (self.domain, self.number)


def _load() -> tuple[Record, ...]:
    from .. import engine  # the engine's export; imported here so the layout module stays light

    out = []
    for r in engine.monitor_layouts():
        fields = tuple(Field(f["name"], f["offset"], f["len"], f["kind"], f["source"]) for f in r["fields"])
        a = r.get("array")
        arr = None
        if a:
            arr = Array(a["count"], a["size"], a["first"], a["entry_len"],
                        tuple(Field(f["name"], f["offset"], f["len"], f["kind"], f["source"]) for f in a["fields"]))
        out.append(Record(r["domain"], r["record"], r["name"], r["title"], fields, arr, r["len"], r["source"]))
    return tuple(out)


# The base table: the records zvmlab writes and decodes, from the engine's export.
BASE: tuple[Record, ...] = _load()

# Per-release additions (fields IBM added in that release, transcribed from its pages), by
# release name as the data reports it. Empty until someone transcribes the current pages
# (.../pubs/mon750/mruseact.html etc.); the base table is what zvmlab writes.
RELEASES: dict[str, tuple[Record, ...]] = {}

# Names of records zvmlab has no layout for (so a skip report can say what was skipped).
NAMES: dict[tuple[int, int], str] = {
    (0, 1): "MRSYTSYP", (0, 3): "MRSYTRSG", (0, 4): "MRSYTRSP", (0, 6): "MRSYTASG", (0, 7): "MRSYTSHS",
    (0, 8): "MRSYTUSR", (0, 9): "MRSYTCPC", (0, 10): "MRSYTSCG", (0, 11): "MRSYTCOM", (0, 12): "MRSYTUWT",
    (0, 13): "MRSYTSCP", (0, 14): "MRSYTXSG", (0, 15): "MRSYTCUG", (0, 16): "MRSYTCUP", (0, 17): "MRSYTCUM",
    (0, 18): "MRSYTCPM", (0, 19): "MRSYTSYG", (0, 20): "MRSYTEPM", (0, 21): "MRSYTSXG", (0, 22): "MRSYTSXP",
    (0, 23): "MRSYTLCK", (0, 24): "MRSYTSPT",
    (1, 1): "MRMTREPR", (1, 2): "MRMTRECM", (1, 3): "MRMTRSUS", (1, 5): "MRMTRPRP", (1, 7): "MRMTRMEM",
    (1, 8): "MRMTRPAG", (1, 9): "MRMTRSPR", (1, 10): "MRMTRSCM", (1, 12): "MRMTRSOS", (1, 14): "MRMTRDDR",
    (1, 15): "MRMTRUSR", (1, 16): "MRMTRSCH",
    (2, 3): "MRSCLWRR", (2, 4): "MRSCLADL", (2, 5): "MRSCLDDL", (2, 10): "MRSCLSQD",
    (3, 1): "MRSTORSG", (3, 2): "MRSTORSP", (3, 4): "MRSTOASP", (3, 5): "MRSTOSHS", (3, 7): "MRSTOATC",
    (4, 1): "MRUSELON", (4, 2): "MRUSELOF", (4, 4): "MRUSEINT", (4, 9): "MRUSEATE", (4, 10): "MRUSEITE",
    (5, 3): "MRPRCPRP", (5, 16): "MRPRCPUP", (5, 17): "MRPRCRCD", (5, 18): "MRPRCDHF",
    (6, 3): "MRIODDEV", (6, 13): "MRIODMON", (6, 15): "MRIODDDV", (6, 16): "MRIODMDV",
    (10, 1): "MRAPLEDT",
}


def record_name(key: tuple[int, int]) -> str:
    for r in BASE:
        if r.key == key:
            return r.name
    return NAMES.get(key, f"D{key[0]}R{key[1]}")


def table(release: str | None = None) -> dict[tuple[int, int], Record]:
    """The layouts to decode data of ``release`` (the base table plus that release's additions).

    The same for every origin: IBM's records hold only published or inferred fields, and
    zvmlab's own records are in a domain IBM does not use.
    """
    out: dict[tuple[int, int], Record] = {}
    for r in BASE + RELEASES.get(release or "", ()):
        fields = r.fields
        if r.key in out:  # a release's addition extends the base record
            fields = out[r.key].fields + tuple(f for f in fields if f.name not in {g.name for g in out[r.key].fields})
        out[r.key] = Record(r.domain, r.number, r.name, r.title, fields, r.array, r.length, r.source)
    return out
