"""Monitor record layouts, table-driven: which bytes of which record mean what.

A layout lists fields by offset and length, each with its provenance:

- ``ibm:<release>``: offset read on IBM's monitor-record page of that release (confirmed);
- ``zpmd:5.3``: field order of the open-source zpmd decoder for z/VM 5.3, offsets computed
  from it (inferred; verify against IBM's pages before trusting them on real data);
- ``zvmlab``: placed by zvmlab where IBM's offsets are not yet transcribed. Used only for data
  that zvmlab wrote (MTRSYS_HCPCPEID = 'ZVMLAB'), never to decode a real system's data.

Record lengths grow between releases: a field is decoded only when the record is long enough
to hold it (MRHDRLEN decides), unknown trailing bytes are ignored and records without a layout
are counted and skipped. ``RELEASES`` holds per-release additions: a release's table is the
base table plus its additions, so transcribing a new release's page is adding rows here.
shared/research/monitor-data.md gives the sources.
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
# ... and zvmlab writes all ones in one the simulator does not measure.
NOT_MEASURED = 0xFFFFFFFFFFFFFFFF

ORIGIN_ZVMLAB = "ZVMLAB"
# zvmlab's MRIODDEV codes: IODDEV_RDEVTYPE and IODDEV_CALFLAG1 bits (crates/engine/src/monwrite.rs).
DEVTYPES = {1: "3390", 2: "EDEV", 3: "SCSI"}
DEVFLAG_PAGING = 0x80
DEVFLAG_MINIDISK = 0x40
# zvmlab's PR/SM codes: SYTPRP_POLAR, SYTPRP_FLAGS (parked), SYTCUP_FLAGS (this LPAR, dedicated).
POLARS = {0: "", 1: "Vh", 2: "Vm", 3: "Vl", 4: "Hz", 5: "Ded"}
PRPFLAG_PARKED = 0x80
CUPFLAG_SELF = 0x80
HPPFLAG_PAGING = 0x80  # IODHPP_FLAGS: SET PAGING ALIAS ON in effect
STOFLAG_PAGING = 0x80  # STORSG_ZVMFLAGS: the storage and paging fields are measured
STOFLAG_MDC = 0x40  # STORSG_ZVMFLAGS: the minidisk cache fields are
CUPFLAG_DEDICATED = 0x40
APPL_PRODID_ZVMLAB = "ZVMLAB  WORKLOAD"

# Control records (confirmed: mon420 .. mon750).
D1R11_INTERVAL_END = (1, 11)
D1R13_END_OF_FRAME = (1, 13)

DOMAINS = {0: "System", 1: "Monitor", 2: "Scheduler", 3: "Storage", 4: "User", 5: "Processor", 6: "I/O",
           7: "Seek", 8: "Virtual Network", 9: "ISFC", 10: "APPLDATA", 11: "SSI"}


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
class Record:
    domain: int
    number: int
    name: str
    title: str
    fields: tuple[Field, ...]

    @property
    def key(self) -> tuple[int, int]:
        return (self.domain, self.number)


def _f(name, offset, length, kind, source) -> Field:
    return Field(name, offset, length, kind, source)


# The base table: the records zvmlab decodes, every field with its source. Keep it in step with
# crates/engine/src/monwrite.rs (tests/python/test_monitor.py compares the two).
BASE: tuple[Record, ...] = (
    Record(1, 4, "MRMTRSYS", "System Configuration Data", (
        _f("MTRSYS_HCPCPEID", 28, 8, "char", "zpmd:5.3"),
        _f("MTRSYS_SYSTODST", 36, 8, "tod", "zpmd:5.3"),
        _f("MTRSYS_SYSZONE", 80, 4, "uint", "zpmd:5.3"),
        _f("MTRSYS_SYSTMID", 88, 8, "char", "zpmd:5.3"),
        _f("MTRSYS_CPUCOUNT", 152, 2, "uint", "zpmd:5.3"),
        _f("MTRSYS_CPUCFGCT", 154, 2, "uint", "zpmd:5.3"),
        _f("MTRSYS_LPARNAME", 160, 8, "char", "zpmd:5.3"),
        _f("MTRSYS_ZVMLEVEL", 184, 16, "char", "zvmlab"),
    )),
    Record(0, 2, "MRSYTPRP", "Processor Data (per processor)", (
        _f("SYTPRP_PFXCPUAD", 20, 2, "uint", "ibm:mon640"),
        _f("SYTPRP_PLSCUHAF", 22, 2, "uint", "ibm:mon640"),
        _f("SYTPRP_PFXPRBTM", 24, 8, "timerdown", "ibm:mon640"),
        _f("SYTPRP_PFXUTIME", 32, 8, "tod", "ibm:mon640"),
        _f("SYTPRP_PFXTMSYS", 40, 8, "tod", "zpmd:5.3"),
        _f("SYTPRP_PFXTOTWT", 68, 8, "tod", "zpmd:5.3"),
        _f("SYTPRP_PFXCPUTY", 104, 1, "uint", "zpmd:5.3"),
        _f("SYTPRP_CORE", 108, 2, "uint", "zvmlab"),
        _f("SYTPRP_POLAR", 110, 1, "uint", "zvmlab"),
        _f("SYTPRP_FLAGS", 111, 1, "uint", "zvmlab"),
        _f("SYTPRP_SUSPTM", 112, 8, "tod", "zvmlab"),
        _f("SYTPRP_PARKTM", 120, 8, "tod", "zvmlab"),
        _f("SYTPRP_CORE1TM", 128, 8, "tod", "zvmlab"),
        _f("SYTPRP_CORE2TM", 136, 8, "tod", "zvmlab"),
    )),
    Record(4, 3, "MRUSEACT", "User Activity Data", (
        _f("USEACT_VMDUSER", 20, 8, "char", "ibm:mon520"),
        _f("USEACT_VMDCPUAD", 28, 2, "uint", "ibm:mon520"),
        _f("USEACT_VMDTTIME", 40, 8, "tod", "zvmlab"),
        _f("USEACT_VMDVTIME", 48, 8, "tod", "zvmlab"),
        _f("USEACT_VCPUCNT", 56, 2, "uint", "zvmlab"),
        _f("USEACT_PGREADS", 64, 8, "uint", "zvmlab"),
        _f("USEACT_PGSTEALS", 72, 8, "uint", "zvmlab"),
        _f("USEACT_RESPAGES", 80, 8, "uint", "zvmlab"),
        _f("USEACT_STDORM", 88, 8, "tod", "zvmlab"),
        _f("USEACT_STELIG", 96, 8, "tod", "zvmlab"),
        _f("USEACT_STLIMIT", 104, 8, "tod", "zvmlab"),
        _f("USEACT_STCPUWT", 112, 8, "tod", "zvmlab"),
        _f("USEACT_STRUN", 120, 8, "tod", "zvmlab"),
        _f("USEACT_STPGWT", 128, 8, "tod", "zvmlab"),
        _f("USEACT_STIOWT", 136, 8, "tod", "zvmlab"),
        _f("USEACT_STTIDL", 144, 8, "tod", "zvmlab"),
    )),
    Record(10, 2, "MRAPLSDT", "Application Data Sample Record", (
        _f("APLSDT_USERID", 20, 8, "char", "zvmlab"),
        _f("APLSDT_CALDATOF", 28, 2, "uint", "zvmlab"),
        _f("APLSDT_DATALEN", 30, 2, "uint", "zvmlab"),
        _f("APLSDT_PRODID", 32, 16, "char", "zvmlab"),
        _f("ADATA_TXDONE", 52, 8, "uint", "zvmlab"),
        _f("ADATA_TXSTART", 60, 8, "uint", "zvmlab"),
    )),
    Record(0, 23, "MRSYTLCK", "Formal Spin Lock Data", (
        _f("SYTLCK_LOCKNAME", 20, 8, "char", "zvmlab"),
        _f("SYTLCK_ACQEXCL", 28, 8, "uint", "zvmlab"),
        _f("SYTLCK_ACQSHR", 36, 8, "uint", "zvmlab"),
        _f("SYTLCK_COLLEXCL", 44, 8, "uint", "zvmlab"),
        _f("SYTLCK_COLLSHR", 52, 8, "uint", "zvmlab"),
        _f("SYTLCK_SPINEXCL", 60, 8, "tod", "zvmlab"),
        _f("SYTLCK_SPINSHR", 68, 8, "tod", "zvmlab"),
    )),
    # D6R3: IBM's offsets are not transcribed (monitor-data.md 1.5), every field is zvmlab's.
    Record(6, 3, "MRIODDEV", "Device Activity", (
        _f("IODDEV_RDEVDEV", 20, 2, "uint", "zvmlab"),
        _f("IODDEV_RDEVSER", 22, 6, "char", "zvmlab"),
        _f("IODDEV_RDEVTYPE", 28, 1, "uint", "zvmlab"),
        _f("IODDEV_CALFLAG1", 29, 1, "uint", "zvmlab"),
        _f("IODDEV_EXPOSURES", 30, 2, "uint", "zvmlab"),
        _f("IODDEV_SCMSSCH", 32, 8, "uint", "zvmlab"),
        _f("IODDEV_BLOCKS", 40, 8, "uint", "zvmlab"),
        _f("IODDEV_RDEVRDCT", 48, 8, "uint", "zvmlab"),
        _f("IODDEV_RDEVWRCT", 56, 8, "uint", "zvmlab"),
        _f("IODDEV_SCMFPTIM", 64, 8, "tod", "zvmlab"),
        _f("IODDEV_SCMDDTIM", 72, 8, "tod", "zvmlab"),
        _f("IODDEV_SCMCNTIM", 80, 8, "tod", "zvmlab"),
        _f("IODDEV_QUEUETIM", 88, 8, "tod", "zvmlab"),
        _f("IODDEV_BUSYTIM", 96, 8, "tod", "zvmlab"),
        _f("IODDEV_MAXQUEUE", 104, 8, "uint", "zvmlab"),
        _f("IODDEV_ALIASTIM", 112, 8, "tod", "zvmlab"),
    )),
    # D3R4: field order of zpmd 5.3 (inferred offsets).
    Record(3, 4, "MRSTOASP", "Auxiliary Storage Management (per exposure)", (
        _f("STOASP_CALVSER", 20, 6, "char", "zpmd:5.3"),
        _f("STOASP_RDEVDEV", 26, 2, "uint", "zpmd:5.3"),
        _f("STOASP_CALPAGE", 36, 4, "uint", "zpmd:5.3"),
        _f("STOASP_CALFLAG1", 70, 1, "uint", "zpmd:5.3"),
    )),
    # D3R1: zvmlab's fields after IBM's first ones (CALSSUBT, RSASAVFR, RSAMAXPP: mon630).
    Record(3, 1, "MRSTORSG", "Real Storage Management (global)", (
        _f("STORSG_FRAMES", 40, 8, "uint", "zvmlab"),
        _f("STORSG_RESIDENT", 48, 8, "uint", "zvmlab"),
        _f("STORSG_PGREADS", 56, 8, "uint", "zvmlab"),
        _f("STORSG_PGWRITES", 64, 8, "uint", "zvmlab"),
        _f("STORSG_FAULTS", 72, 8, "uint", "zvmlab"),
        _f("STORSG_FIRSTTCH", 80, 8, "uint", "zvmlab"),
        _f("STORSG_SLOTS", 88, 8, "uint", "zvmlab"),
        _f("STORSG_SLOTSUSED", 96, 8, "uint", "zvmlab"),
        _f("STORSG_ZVMFLAGS", 104, 1, "uint", "zvmlab"),
        _f("STORSG_MDCMAX", 112, 8, "uint", "zvmlab"),
        _f("STORSG_MDCTARGT", 120, 8, "uint", "zvmlab"),
        _f("STORSG_MDCBELOW", 128, 8, "uint", "zvmlab"),
        _f("STORSG_MDCABOVE", 136, 8, "uint", "zvmlab"),
        _f("STORSG_MDCREADS", 144, 8, "uint", "zvmlab"),
        _f("STORSG_MDCHITS", 152, 8, "uint", "zvmlab"),
        _f("STORSG_MDCINS", 160, 8, "uint", "zvmlab"),
        _f("STORSG_MDCSTEAL", 168, 8, "uint", "zvmlab"),
    )),
    # D0R16 / D0R17: LPAR data; IBM's offsets are not transcribed, every field is zvmlab's.
    Record(0, 16, "MRSYTCUP", "CPU Utilization in a Logical Partition", (
        _f("SYTCUP_LPNAME", 20, 8, "char", "zvmlab"),
        _f("SYTCUP_LPNUM", 28, 2, "uint", "zvmlab"),
        _f("SYTCUP_LCPUS", 30, 2, "uint", "zvmlab"),
        _f("SYTCUP_WEIGHT", 32, 4, "uint", "zvmlab"),
        _f("SYTCUP_ENTMIL", 36, 4, "uint", "zvmlab"),
        _f("SYTCUP_FLAGS", 40, 1, "uint", "zvmlab"),
        _f("SYTCUP_VH", 41, 1, "uint", "zvmlab"),
        _f("SYTCUP_VM", 42, 1, "uint", "zvmlab"),
        _f("SYTCUP_VL", 43, 1, "uint", "zvmlab"),
        _f("SYTCUP_HZ", 44, 1, "uint", "zvmlab"),
        _f("SYTCUP_DED", 45, 1, "uint", "zvmlab"),
    )),
    Record(0, 17, "MRSYTCUM", "Physical CPU Utilization", (
        _f("SYTCUM_SHARED", 20, 2, "uint", "zvmlab"),
        _f("SYTCUM_DEDIC", 22, 2, "uint", "zvmlab"),
        _f("SYTCUM_LPDISP", 24, 8, "uint", "zvmlab"),
        _f("SYTCUM_CPCDISP", 32, 8, "uint", "zvmlab"),
        _f("SYTCUM_LPMGTTM", 40, 8, "tod", "zvmlab"),
        _f("SYTCUM_CPCMGTTM", 48, 8, "tod", "zvmlab"),
        _f("SYTCUM_UNPARKTM", 56, 8, "tod", "zvmlab"),
        _f("SYTCUM_UNPARKVL", 64, 8, "tod", "zvmlab"),
    )),
    # D6R28: record number and name confirmed (seed 000, 6.4 GA monitor changes); fields zvmlab's.
    Record(6, 28, "MRIODHPP", "HyperPAV Pool Activity", (
        _f("IODHPP_POOL", 20, 2, "uint", "zvmlab"),
        _f("IODHPP_ALIASES", 22, 2, "uint", "zvmlab"),
        _f("IODHPP_FLAGS", 24, 1, "uint", "zvmlab"),
        _f("IODHPP_ENTPG", 28, 4, "uint", "zvmlab"),
        _f("IODHPP_ENTMD", 32, 4, "uint", "zvmlab"),
        _f("IODHPP_SHRPG", 36, 4, "uint", "zvmlab"),
        _f("IODHPP_SHRMD", 40, 4, "uint", "zvmlab"),
        _f("IODHPP_INUSEPG", 44, 8, "tod", "zvmlab"),
        _f("IODHPP_INUSEMD", 52, 8, "tod", "zvmlab"),
        _f("IODHPP_MAXPG", 60, 2, "uint", "zvmlab"),
        _f("IODHPP_MAXMD", 62, 2, "uint", "zvmlab"),
        _f("IODHPP_TAKENPG", 64, 8, "uint", "zvmlab"),
        _f("IODHPP_TAKENMD", 72, 8, "uint", "zvmlab"),
        _f("IODHPP_QUEUEDPG", 80, 8, "uint", "zvmlab"),
        _f("IODHPP_QUEUEDMD", 88, 8, "uint", "zvmlab"),
    )),
    Record(1, 11, "MRMTREND", "Interval End", ()),
    Record(1, 13, "MRMTREOF", "End of Frame", ()),
)

# Per-release additions (fields IBM added in that release, transcribed from its pages), by
# release name as MTRSYS reports it. Empty until someone transcribes the current pages
# (.../pubs/mon750/mrsytprp.html etc.); the base table is what zvmlab writes.
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


def table(origin: str, release: str | None = None) -> dict[tuple[int, int], Record]:
    """The layouts to decode data of ``origin`` ('zvmlab' or anything else) and ``release``.

    Data not written by zvmlab is decoded with confirmed and inferred fields only.
    """
    own = origin == ORIGIN_ZVMLAB
    out: dict[tuple[int, int], Record] = {}
    for r in BASE + RELEASES.get(release or "", ()):
        fields = tuple(f for f in r.fields if own or f.source != "zvmlab")
        if r.key in out:  # a release's addition extends the base record
            fields = out[r.key].fields + tuple(f for f in fields if f.name not in {g.name for g in out[r.key].fields})
        out[r.key] = Record(r.domain, r.number, r.name, r.title, fields)
    return out
