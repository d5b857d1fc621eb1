"""Per-interval figures from monitor samples.

Sample records carry cumulative counters; an interval's value is the difference between two
consecutive samples, and its length the difference of their interval-end TODs. Durations in TOD
units (4096 per microsecond) become nanoseconds as ceil(units * 1000 / 4096): for data zvmlab
wrote this recovers the engine's nanoseconds exactly, so the figures here reproduce the run
summary's to the last bit; for a real system's data it is within a nanosecond.

The first interval needs a baseline: if monitoring started at IPL (MTRSYS_SYSTODST at or after
the end of the configuration set, as in the simulator), counters start from zero there;
otherwise the first sample only serves as the baseline (as a reader of a real MONWRITE file
started mid-way must do).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from . import layouts as L
from .reader import MonitorData, Problem, full_level

_SAMPLE_TABLES = ("MRSYTPRP", "MRUSEACT", "ZVMUSE", "ZVMDEV", "ZVMSTO")

# ZVMDEV counters: (key in Measurements.dev[devno], record field, kind); durations in ns.
DEV_COLS = (("ssch", "ZVMDEV_SSCH", "uint"), ("blocks", "ZVMDEV_BLOCKS", "uint"),
            ("reads", "ZVMDEV_READS", "uint"), ("writes", "ZVMDEV_WRITES", "uint"),
            ("pend", "ZVMDEV_PENDTM", "tod"), ("disc", "ZVMDEV_DISCTM", "tod"),
            ("conn", "ZVMDEV_CONNTM", "tod"), ("queue", "ZVMDEV_QUEUETM", "tod"),
            ("busy", "ZVMDEV_BUSYTM", "tod"), ("alias", "ZVMDEV_ALIASTM", "tod"),
            # the part of busy time elapsed at the sample (time busy; BUSYTM books an I/O's whole
            # service at its start, for service per I/O); None in older data
            ("busy_el", "ZVMDEV_BUSYEL", "tod"))
# MRSTORSG counters (cumulative) and levels (as sampled).
STO_COLS = (("pgreads", "ZVMSTO_PGREADS", "uint"), ("pgwrites", "ZVMSTO_PGWRITES", "uint"),
            ("faults", "ZVMSTO_FAULTS", "uint"), ("first", "ZVMSTO_FIRSTTCH", "uint"))
STO_LEVELS = (("frames", "ZVMSTO_FRAMES"), ("resident", "ZVMSTO_RESIDENT"), ("slots", "ZVMSTO_SLOTS"),
              ("slots_used", "ZVMSTO_SLOTSUSED"))
# MRSYTPRP PR/SM and SMT counters (zvmlab fields): key in Measurements.prp[cpu], field.
PRP_COLS = (("susp", "ZVMPRP_SUSPTM"), ("park", "ZVMPRP_PARKTM"), ("core1", "ZVMPRP_CORE1TM"),
            ("core2", "ZVMPRP_CORE2TM"))
# MRSYTCUM counters (cumulative): key in Measurements.phys, field, kind.
CUM_COLS = (("lpdisp", "ZVMCUM_LPDISP", "uint"), ("cpcdisp", "ZVMCUM_CPCDISP", "uint"),
            ("lpmgt", "ZVMCUM_LPMGTTM", "tod"), ("cpcmgt", "ZVMCUM_CPCMGTTM", "tod"),
            ("unparked", "ZVMCUM_UNPARKTM", "tod"), ("unparked_vl", "ZVMCUM_UNPARKVL", "tod"))
# MRUSEACT paging counters and the resident-page level.
UPG_COLS = (("pgreads", "ZVMUSE_PGREADS", "uint"), ("pgsteals", "ZVMUSE_PGSTEALS", "uint"))
# MRUSEACT wait-state times (zvmlab fields, cumulative; FCX114 USTAT): key, field.
UST_COLS = (("dormant", "ZVMUSE_STDORM"), ("eligible", "ZVMUSE_STELIG"), ("limited", "ZVMUSE_STLIMIT"),
            ("cpu_wait", "ZVMUSE_STCPUWT"), ("running", "ZVMUSE_STRUN"), ("page_wait", "ZVMUSE_STPGWT"),
            ("io_wait", "ZVMUSE_STIOWT"), ("test_idle", "ZVMUSE_STTIDL"))
# MRSTORSG minidisk-cache counters (cumulative) and levels at each sample (FCX178 MDCSTOR).
MDC_COLS = (("reads", "ZVMSTO_MDCREADS", "uint"), ("hits", "ZVMSTO_MDCHITS", "uint"),
            ("inserts", "ZVMSTO_MDCINS", "uint"), ("steals", "ZVMSTO_MDCSTEAL", "uint"))
MDC_LEVELS = (("max", "ZVMSTO_MDCMAX"), ("target", "ZVMSTO_MDCTARGT"), ("below", "ZVMSTO_MDCBELOW"),
              ("above", "ZVMSTO_MDCABOVE"))
# MRSYTSCG (D0R10): the scheduler's queues at each sample, cardinal counts (levels, not
# counters): key in Measurements.scg, field. "qNup": dispatch-list users of class N or above;
# "eNup": eligible-list users of class N or above; "_ld": the loading ones among them.
SCG_COLS = (("dispatch", "SYTSCG_SRMCDISP"), ("dispatch_ld", "SYTSCG_SRMCDLDG"),
            ("q1up", "SYTSCG_SRMC1DSP"), ("q2up", "SYTSCG_SRMC2DSP"), ("q3up", "SYTSCG_SRMC3DSP"),
            ("e1up", "SYTSCG_SRMC1ELG"), ("e2up", "SYTSCG_SRMC2ELG"), ("e3up", "SYTSCG_SRMC3ELG"),
            ("q1up_ld", "SYTSCG_SRMC1DLD"), ("q2up_ld", "SYTSCG_SRMC2DLD"), ("q3up_ld", "SYTSCG_SRMC3DLD"),
            ("e1up_ld", "SYTSCG_SRMC1ELD"), ("e2up_ld", "SYTSCG_SRMC2ELD"), ("e3up_ld", "SYTSCG_SRMC3ELD"))
# MRIODHPP counters (cumulative) per I/O type: key in Measurements.hpp, field, kind.
# zvmlab's ZVMCPL (D15R11) counters per CPU pool (cumulative): key in Measurements.cpl, field, kind.
CPL_COLS = (("cpu_ns", "ZVMCPL_CPUTIME", "tod"), ("limited_ns", "ZVMCPL_LIMTIME", "tod"),
            ("limited", "ZVMCPL_LIMCOUNT", "uint"))
HPP_COLS = (("inuse_pg", "ZVMHPP_INUSEPG", "tod"), ("inuse_md", "ZVMHPP_INUSEMD", "tod"),
            ("taken_pg", "ZVMHPP_TAKENPG", "uint"), ("taken_md", "ZVMHPP_TAKENMD", "uint"),
            ("queued_pg", "ZVMHPP_QUEUEDPG", "uint"), ("queued_md", "ZVMHPP_QUEUEDMD", "uint"))


def base_busy(c: dict):
    """A device's bases' own busy time from counters ``c`` (DEV_COLS keys, an interval's or
    summed): service minus the I/Os run on HyperPAV aliases (ZVMDEV_ALIASTM), the service as
    elapsed at the samples where the data has it (ZVMDEV_BUSYEL: service still to come at a
    sample is not busy time of its interval, and service so far of an I/O still in connect on a
    channel path is), else as booked (older data)."""
    busy = c["busy_el"] if c.get("busy_el") is not None else c.get("busy")
    return None if busy is None else busy - (c.get("alias") or 0)


def tod_ns(units: int) -> int:
    """TOD units (a time or a duration) as nanoseconds, rounded up."""
    return (units * 125 + 511) // 512


def tod_datetime(tod: int) -> _dt.datetime:
    """A TOD clock value as a UTC datetime (epoch 1900-01-01, bit 51 = 1 us)."""
    return _dt.datetime(1900, 1, 1) + _dt.timedelta(microseconds=tod >> 12)


@dataclass
class Interval:
    start_tod: int
    end_tod: int
    start_ns: int  # since the start of the data (the first interval's start)
    end_ns: int

    @property
    def len_ns(self) -> int:
        return max(1, self.end_ns - self.start_ns)


@dataclass
class Measurements:
    source: str = ""
    origin: str = ""
    level: str | None = None
    system: dict = field(default_factory=dict)
    start_tod: int = 0
    intervals: list[Interval] = field(default_factory=list)
    cpus: list[int] = field(default_factory=list)
    cpu_type: dict[int, int] = field(default_factory=dict)
    # per processor address, one value per interval (None: no sample)
    busy_ns: dict[int, list] = field(default_factory=dict)
    sys_ns: dict[int, list] = field(default_factory=dict)
    user_ns: dict[int, list] = field(default_factory=dict)
    wait_ns: dict[int, list] = field(default_factory=dict)
    emul_ns: dict[int, list] = field(default_factory=dict)  # None: not measured
    emul_apportioned: bool = False  # SYTPRP_PFXPRBTM split from user time (ZVMPRP flag)
    users: list[str] = field(default_factory=list)
    total_ns: dict[str, list] = field(default_factory=dict)
    virt_ns: dict[str, list] = field(default_factory=dict)
    vcpus: dict[str, int] = field(default_factory=dict)
    has_appl: bool = False
    tx: dict[str, list] = field(default_factory=dict)
    # completed requests per reported transaction ([run] tx_unit; a run directory's summary.json)
    tx_unit: float = 1.0
    # formal spin locks (MRSYTLCK): lock name -> counter -> one value per interval
    locks: dict[str, dict[str, list]] = field(default_factory=dict)
    # devices (MRIODDEV), by device number in the order of the data: facts and, per counter of
    # DEV_COLS, one value per interval; paging volumes' slots from MRSTOASP
    devs: list[int] = field(default_factory=list)
    dev_info: dict[int, dict] = field(default_factory=dict)
    dev: dict[int, dict[str, list]] = field(default_factory=dict)
    # storage (MRSTORSG): counters of STO_COLS per interval, levels of STO_LEVELS at each end
    has_storage: bool = False
    sto: dict[str, list] = field(default_factory=dict)
    sto_level: dict[str, list] = field(default_factory=dict)
    # per-user paging (MRUSEACT, zvmlab fields): UPG_COLS per interval, resident pages at each end
    upg: dict[str, dict[str, list]] = field(default_factory=dict)
    # per-user wait states (MRUSEACT, zvmlab fields): ns of virtual-CPU time per UST_COLS state per
    # interval; empty in data without them
    ust: dict[str, dict[str, list]] = field(default_factory=dict)
    # per user, as of the last sample (zvmlab's ZVMUSE): virtual storage and working set (pages),
    # the minidisk its program uses (device number, 0: none) and ZVMUSE_IOFLAGS; and per user
    # the whole period's minidisk I/Os and blocks
    user_info: dict[str, dict] = field(default_factory=dict)
    user_io: dict[str, dict] = field(default_factory=dict)
    # PR/SM and SMT per processor (MRSYTPRP zvmlab fields): core, polarization, and per PRP_COLS
    # one value per interval (core1/core2: the processor's core; None: not measured)
    cpu_core: dict[int, int] = field(default_factory=dict)
    cpu_polar: dict[int, str] = field(default_factory=dict)
    prp: dict[int, dict[str, list]] = field(default_factory=dict)
    # LPARs of the CPC (MRSYTCUP, the last sample) and the physical counters (MRSYTCUM)
    lpars: list[dict] = field(default_factory=list)
    phys_info: dict = field(default_factory=dict)
    phys: dict[str, list] = field(default_factory=dict)
    # the HyperPAV pool (MRIODHPP): facts of the last sample, and per HPP_COLS one value per
    # interval, plus the maxima reported at each interval end
    hpp_info: dict = field(default_factory=dict)
    # the minidisk cache (MRSTORSG zvmlab fields): MDC_COLS per interval, MDC_LEVELS at each end
    has_mdc: bool = False
    mdc: dict[str, list] = field(default_factory=dict)
    hpp: dict[str, list] = field(default_factory=dict)
    # channel paths and PAV (issue 22; monitor/channels.py): per CHPID its facts and per counter
    # one value per interval; per device behind paths or a PAV base its state; PAV alias moves
    chp_info: dict[int, dict] = field(default_factory=dict)
    chp: dict[int, dict[str, list]] = field(default_factory=dict)
    dev_chan: dict[int, dict] = field(default_factory=dict)
    pav_moves: list[dict] = field(default_factory=list)
    # CPU pools (ZVMCPL): facts per pool at each sample (limit, members, limited now) and per
    # CPL_COLS one value per interval
    cpl_info: dict[str, dict] = field(default_factory=dict)
    cpl: dict[str, dict[str, list]] = field(default_factory=dict)
    # the scheduler's queues (MRSYTSCG): per SCG_COLS the count at each interval's end (None: the
    # sample has no such record or field); empty in data without the record
    scg: dict[str, list] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # records the data holds without a layout here: (domain, record) -> count
    skipped: dict = field(default_factory=dict)

    # -- a window of intervals (zvmlab report --from/--to) ---------------------------------------

    # the fields holding one value per interval, at any depth of dicts
    _SERIES = ("busy_ns", "sys_ns", "user_ns", "wait_ns", "emul_ns", "total_ns", "virt_ns", "tx", "locks", "dev",
               "sto", "sto_level", "upg", "ust", "prp", "phys", "mdc", "hpp", "chp",
               "cpl", "scg")

    def window(self, keep: list[int]) -> "Measurements":
        """A copy holding only the intervals ``keep`` (indexes, in order)."""
        import copy

        def cut(v):
            if isinstance(v, dict):
                return {k: cut(x) for k, x in v.items()}
            if isinstance(v, list) and len(v) == len(self.intervals):
                return [v[k] for k in keep]
            return v
        out = copy.copy(self)
        for name in self._SERIES:
            setattr(out, name, cut(getattr(self, name)))
        out.intervals = [self.intervals[k] for k in keep]
        if out.intervals:
            out.start_tod = out.intervals[0].start_tod
        return out

    # -- whole-period figures, computed the way the engine's run summary computes them --------

    @property
    def duration_ns(self) -> int:
        return sum(iv.end_ns - iv.start_ns for iv in self.intervals)

    def cpu_total(self, series: dict, key) -> int:
        return sum(v for v in series.get(key, []) if v is not None)

    def interval_sum(self, series: dict, k: int) -> int:
        return sum(v[k] for v in series.values() if v[k] is not None)

    def totals(self) -> dict:
        """ETR, ITR, T/V, busy and per-user CPU over the whole period (the run summary's terms)."""
        dur = float(max(1, self.duration_ns))
        p = float(len(self.cpus)) or 1.0
        busy = sum(self.cpu_total(self.busy_ns, c) for c in self.cpus)
        sys_ = sum(self.cpu_total(self.sys_ns, c) for c in self.cpus)
        has_virt = any(v is not None for u in self.users for v in self.virt_ns.get(u, []))
        virt = sum(self.cpu_total(self.virt_ns, u) for u in self.users)
        tx = sum(self.cpu_total(self.tx, u) for u in self.tx)
        busy_frac = busy / (dur * p)
        etr = tx / (dur / 1e9) if self.has_appl else None
        itr = (etr / busy_frac if busy_frac > 0 else 0.0) if etr is not None else None
        if self.tx_unit != 1.0 and etr is not None:
            # The run summary's order of operations (the engine's Summary::apply_tx_unit), so both agree exactly.
            tx, etr, itr = round(tx / self.tx_unit), etr / self.tx_unit, itr / self.tx_unit
        return {
            "duration_s": dur / 1e9,
            "processors": len(self.cpus),
            "avg_processor_busy_pct": 100.0 * busy_frac,
            "system_pct": 100.0 * sys_ / dur,
            "tv_ratio": (busy / virt if virt > 0 else 0.0) if has_virt else None,
            "transactions": tx if self.has_appl else None,
            "etr": etr,
            "itr": itr,
        }

    def user_totals(self, u: str) -> dict:
        """A user's whole-period figures; None for a figure the data lacks in every interval
        (a real system's data has no CPU time per user in IBM's public fields)."""
        dur = float(max(1, self.duration_ns))
        has = lambda s: any(v is not None for v in s.get(u, []))  # noqa: E731
        t = self.cpu_total(self.total_ns, u) if has(self.total_ns) else None
        v = self.cpu_total(self.virt_ns, u) if has(self.virt_ns) else None
        both = t is not None and v is not None
        return {
            "userid": u,
            "cpu_pct": None if t is None else 100.0 * t / dur,
            "virtual_pct": None if v is None else 100.0 * v / dur,
            "cp_pct": 100.0 * (t - v) / dur if both else None,
            "total_s": None if t is None else t / 1e9,
            "virtual_s": None if v is None else v / 1e9,
            "tv_ratio": t / v if both and v > 0 else None,
            "transactions": self.cpu_total(self.tx, u) if u in self.tx else None,
        }


# MRSYTLCK counters: (key in Measurements.locks, record field, kind)
_LOCK_COLS = (("acq_x", "ZVMLCK_ACQEXCL", "uint"), ("acq_s", "ZVMLCK_ACQSHR", "uint"),
              ("coll_x", "ZVMLCK_COLLEXCL", "uint"), ("coll_s", "ZVMLCK_COLLSHR", "uint"),
              ("spin_x", "ZVMLCK_SPINEXCL", "tod"), ("spin_s", "ZVMLCK_SPINSHR", "tod"))


def _deltas(prev: dict, cur: dict, m: Measurements, kind: str, where: dict) -> dict:
    out = {}
    for k, v in cur.items():
        if v is None:
            out[k] = None
            continue
        if kind == "timerdown":  # counts down from CPU_TIMER_START: used = start - value
            p = prev.get(k, L.CPU_TIMER_START)
            if v == L.NOT_MEASURED or p == L.NOT_MEASURED or p is None:
                out[k] = None
                continue
            p, v = L.CPU_TIMER_START - p, L.CPU_TIMER_START - v
        else:
            p = prev.get(k, 0) or 0
        if v < p:
            m.problems.append(Problem(where.get(k, 0), f"counter of {k} went backwards ({p} -> {v}); interval "
                                                       f"value left out"))
            out[k] = None
        elif kind == "uint":
            out[k] = v - p
        else:  # convert the cumulative values, then subtract: exact for zvmlab's data
            out[k] = tod_ns(v) - tod_ns(p)
    return out


def _pools(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """CPU pools (ZVMCPL): cumulative counters per pool name, and the pool's facts at each sample."""
    for g in per_group:
        for key in [k for k, _, _ in CPL_COLS] + ["at"]:
            per_group[g].setdefault("cpl_" + key, {})
    for r in data.rows("ZVMCPL"):
        g, name = r["group"], r.get("ZVMCPL_NAME")
        if g not in per_group or not name:
            continue
        flags = r.get("ZVMCPL_FLAGS") or 0
        lim = r.get("ZVMCPL_LIMITC")
        facts = {"type": "CP" if r.get("ZVMCPL_CPUTY") == 0 else "IFL",
                 "limit_kind": "CAPACITY" if flags & L.CPLFLAG_CAPACITY else "LIMITHARD",
                 "limit_value": None if r.get("ZVMCPL_LIMITV") is None else r["ZVMCPL_LIMITV"] / 100.0,
                 "limit_pct": None if not lim else float(lim),
                 "members": r.get("ZVMCPL_MEMBERS"), "limited": bool(flags & L.CPLFLAG_LIMITED),
                 "deleted": bool(flags & L.CPLFLAG_DELETED)}
        m.cpl_info[name] = facts
        for key, col, _ in CPL_COLS:
            per_group[g]["cpl_" + key][name] = r.get(col)
        per_group[g]["cpl_at"][name] = facts


def measure(data: MonitorData) -> Measurements:
    """Per-interval processor, user and application figures from decoded monitor data."""
    m = Measurements(source=data.source, origin=data.origin, level=data.release, skipped=dict(data.skipped))
    _system(data, m)
    groups = data.groups
    sample_groups = sorted({g for t in _SAMPLE_TABLES for g in data.column(t, "group") if g < len(groups)})
    if not sample_groups:
        return m
    per_group, lock_names, levels = _samples(data, m, sample_groups)
    prev, prev_tod, todo = _baseline(m, per_group, groups, sample_groups)
    t0 = tod_ns(prev_tod)
    _series(m, per_group, lock_names)
    scg = {r["group"]: r for r in data.rows("MRSYTSCG")}
    if scg:
        m.scg = {key: [] for key, _ in SCG_COLS}
    for g in todo:
        cur, tod = per_group[g], groups[g]["tod"]
        if tod < prev_tod:
            m.problems.append(Problem(groups[g]["offset"], "interval end is earlier than the previous one; "
                                                           "interval skipped"))
            continue
        m.intervals.append(Interval(prev_tod, tod, tod_ns(prev_tod) - t0, tod_ns(tod) - t0))
        _interval(m, prev, cur, lock_names, {k: v[g] for k, v in levels.items()})
        for key, f in SCG_COLS if m.scg else ():
            m.scg[key].append(scg.get(g, {}).get(f))
        # keep earlier values for keys missing in this sample
        prev = {k: {**prev[k], **{kk: vv for kk, vv in cur[k].items() if vv is not None}} for k in cur}
        prev_tod = tod
    from .channels import add_channels

    add_channels(data, m)
    return m


def _system(data: MonitorData, m: Measurements) -> None:
    """The system's identity and monitor interval (MRMTRSYS, ZVMSYS)."""
    sysrows = data.rows("MRMTRSYS")
    zsys = data.rows("ZVMSYS")
    if sysrows:
        r = sysrows[0]
        m.system = {"systemid": r.get("MTRSYS_SYSTMID"), "lpar": r.get("MTRSYS_LPARNAME"),
                    "processors": r.get("MTRSYS_CPUCOUNT"), "ipl_tod": r.get("MTRSYS_SYSTODST"),
                    "level": full_level(zsys[0].get("ZVMSYS_LEVEL")) if zsys else None}
    if zsys and zsys[0].get("ZVMSYS_INTERVAL") is not None:
        m.system["interval_s"] = tod_ns(zsys[0]["ZVMSYS_INTERVAL"]) / 1e9


def _samples(data: MonitorData, m: Measurements, sample_groups: list[int]) -> tuple[dict, list[str], dict]:
    """Per sample group, the cumulative values by key (and where each record was), the lock names,
    and the levels sampled per group (storage, per-user resident pages, minidisk cache)."""
    kinds = (("util", "sys", "wait", "prb", "ttime", "vtime", "tx", "where") + tuple(k for k, _, _ in _LOCK_COLS)
             + tuple("ust_" + k for k, _ in UST_COLS) + tuple("prp_" + k for k, _ in PRP_COLS))
    per_group = {g: {k: {} for k in kinds} for g in sample_groups}
    _processors(data, m, per_group)
    _users(data, m, per_group)
    lock_names = _locks(data, per_group)
    dev_keys = tuple("dev_" + k for k, _, _ in DEV_COLS)
    for g in per_group:
        for k in dev_keys + tuple("sto_" + k for k, _, _ in STO_COLS) + tuple("upg_" + k for k, _, _ in UPG_COLS):
            per_group[g][k] = {}
    for g in per_group:
        for k in (tuple("prp_" + k for k, _ in PRP_COLS) + tuple("cum_" + k for k, _, _ in CUM_COLS)
                  + tuple("hpp_" + k for k, _, _ in HPP_COLS) + ("hpp_max",)):
            per_group[g].setdefault(k, {})
    _hyperpav(data, m, per_group)
    _pools(data, m, per_group)
    _lpars(data, m, per_group)
    _capping(data, m)
    _physical(data, m, per_group)
    levels: dict[str, dict[int, dict]] = {"sto": {g: {} for g in per_group}, "user": {g: {} for g in per_group},
                                          "mdc": {g: {} for g in per_group}}
    _devices(data, m, per_group)
    _storage(data, m, per_group, levels)
    m.cpus.sort()
    return per_group, lock_names, levels


def _hyperpav(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """The HyperPAV alias pool (ZVMHPP): its facts and cumulative counters per sample."""
    for r in data.rows("ZVMHPP"):
        g = r["group"]
        if g not in per_group or r.get("ZVMHPP_ALIASES") is None:
            continue
        c = lambda col: None if r.get(col) is None else r[col] / 100.0  # noqa: E731
        m.hpp_info = {"aliases": r["ZVMHPP_ALIASES"],
                      "paging_alias": bool((r.get("ZVMHPP_FLAGS") or 0) & L.HPPFLAG_PAGING),
                      "share_pg": c("ZVMHPP_SHRPG"), "share_md": c("ZVMHPP_SHRMD"),
                      "ent_pg": c("ZVMHPP_ENTPG"), "ent_md": c("ZVMHPP_ENTMD")}
        for key, col, _ in HPP_COLS:
            per_group[g]["hpp_" + key]["all"] = r.get(col)
        per_group[g]["hpp_max"]["all"] = (r.get("ZVMHPP_MAXPG"), r.get("ZVMHPP_MAXMD"))


def _lpars(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """The CPC's LPARs (ZVMCUP): the last record of each, in LPAR number order."""
    for r in data.rows("ZVMCUP"):
        g = r["group"]
        if g not in per_group or not r.get("ZVMCUP_LPNAME") or r.get("ZVMCUP_LPNUM") is None:
            continue
        lp = {"name": r["ZVMCUP_LPNAME"], "number": r["ZVMCUP_LPNUM"], "logical": r.get("ZVMCUP_LCPUS"),
              "weight": r.get("ZVMCUP_WEIGHT"),
              "entitlement": None if r.get("ZVMCUP_ENTMIL") is None else r["ZVMCUP_ENTMIL"] / 1000.0,
              "self": bool((r.get("ZVMCUP_FLAGS") or 0) & L.CUPFLAG_SELF),
              "dedicated": bool((r.get("ZVMCUP_FLAGS") or 0) & L.CUPFLAG_DEDICATED),
              "vh": r.get("ZVMCUP_VH"), "vm": r.get("ZVMCUP_VM"), "vl": r.get("ZVMCUP_VL"),
              "hz": r.get("ZVMCUP_HZ"), "ded": r.get("ZVMCUP_DED"),
              "busy": None if r.get("ZVMCUP_BUSYMIL") is None else r["ZVMCUP_BUSYMIL"] / 1000.0,
              "horizontal": bool((r.get("ZVMCUP_FLAGS") or 0) & L.CUPFLAG_HORIZONTAL)}
        m.lpars = [x for x in m.lpars if x["number"] != lp["number"]] + [lp]
    m.lpars.sort(key=lambda x: x["number"])


def _capping(data: MonitorData, m: Measurements) -> None:
    """Each capped LPAR's capping (ZVMCAP)."""
    for r in data.rows("ZVMCAP"):
        lp = next((x for x in m.lpars if x["number"] == r.get("ZVMCAP_LPNUM")), None)
        if lp is None:
            continue
        flags = r.get("ZVMCAP_FLAGS") or 0
        h = lambda col: None if not r.get(col) else r[col] / 100.0  # noqa: E731
        lp["capping"] = {"initial": bool(flags & L.CAPFLAG_INITIAL), "abscap": h("ZVMCAP_ABSCAP"),
                         "group": (r.get("ZVMCAP_GROUP") or "").strip() or None, "group_cap": h("ZVMCAP_GRPCAP"),
                         "cap_cores": None if not r.get("ZVMCAP_CAPMIL") else r["ZVMCAP_CAPMIL"] / 1000.0}


def _physical(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """The physical processors' counters (ZVMCUM)."""
    for r in data.rows("ZVMCUM"):
        g = r["group"]
        if g not in per_group or r.get("ZVMCUM_LPDISP") is None:
            continue
        m.phys_info = {"shared": r.get("ZVMCUM_SHARED"), "dedicated": r.get("ZVMCUM_DEDIC")}
        for key, col, _ in CUM_COLS:
            per_group[g]["cum_" + key]["all"] = r.get(col)


def _devices(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """Devices: activity (ZVMDEV) with their configuration (ZVMDVC), paging slots (MRSTOASP),
    and the devices a real system's configuration names (D1R6) without zvmlab's records."""
    slots = {}
    for r in data.rows("MRSTOASP"):
        if r.get("STOASP_RDEVDEV") is not None and r.get("STOASP_CALPAGE") is not None:
            slots[r["STOASP_RDEVDEV"]] = r["STOASP_CALPAGE"]
    config = {r.get("ZVMDVC_DEVNO"): r for r in data.rows("ZVMDVC")}
    for r in data.rows("ZVMDEV"):
        g, d = r["group"], r.get("ZVMDEV_DEVNO")
        if g not in per_group or d is None:
            continue
        for key, col, _ in DEV_COLS:
            per_group[g]["dev_" + key][d] = r.get(col)
        per_group[g]["where"][("dev", d)] = r["offset"]
        if d not in m.devs:
            m.devs.append(d)
            dc = config.get(d, {})
            flag = dc.get("ZVMDVC_FLAGS") or 0
            m.dev_info[d] = {"name": dc.get("ZVMDVC_VOLSER") or f"{d:04X}",
                             "type": L.DEVTYPES.get(dc.get("ZVMDVC_TYPE"), "?"),
                             "paging": bool(flag & L.DEVFLAG_PAGING), "minidisk": bool(flag & L.DEVFLAG_MINIDISK),
                             "exposures": dc.get("ZVMDVC_EXPOSURES")}
    # devices a real system's configuration names (D1R6) without zvmlab's activity records:
    # listed, their figures missing
    for r in data.rows("MRMTRDEV"):
        d = r.get("MTRDEV_RDEVDEV")
        if d is not None and d not in m.devs and not data.rows("ZVMDVC"):
            m.devs.append(d)
            m.dev_info[d] = {"name": f"{d:04X}", "type": "?", "paging": d in slots, "minidisk": False,
                             "exposures": None}
    for d in m.devs:
        m.dev_info[d]["slots"] = slots.get(d)


def _storage(data: MonitorData, m: Measurements, per_group: dict, levels: dict) -> None:
    """Real storage, paging and the minidisk cache (ZVMSTO), and each user's paging (ZVMUSE)."""
    for r in data.rows("ZVMSTO"):
        g = r["group"]
        if g not in per_group:
            continue
        flags = r.get("ZVMSTO_FLAGS")
        if flags is not None and flags & L.STOFLAG_MDC:
            m.has_mdc = True
            for key, col, _ in MDC_COLS:
                per_group[g].setdefault("mdc_" + key, {})["all"] = r.get(col)
            levels["mdc"][g] = {key: r.get(col) for key, col in MDC_LEVELS}
        if all(r.get(col) is None for _, col, _ in STO_COLS) or (flags is not None and not flags & L.STOFLAG_PAGING):
            continue
        m.has_storage = True
        for key, col, _ in STO_COLS:
            per_group[g]["sto_" + key]["all"] = r.get(col)
        levels["sto"][g] = {key: r.get(col) for key, col in STO_LEVELS}
    if not m.has_storage:
        return
    for r in data.rows("ZVMUSE"):
        g, u = r["group"], r.get("ZVMUSE_USERID")
        if g not in per_group or not u:
            continue
        for key, col, _ in UPG_COLS:
            v = r.get(col)
            cur = per_group[g]["upg_" + key]
            cur[u] = None if v is None else (cur.get(u) or 0) + v
        v = r.get("ZVMUSE_RESPAGES")
        ulevels = levels["user"][g]
        ulevels[u] = None if v is None else (ulevels.get(u) or 0) + v


def _baseline(m: Measurements, per_group: dict, groups: list, sample_groups: list[int]) -> tuple[dict, int, list]:
    """The values before the first interval, its time, and the sample groups that end intervals:
    zeros at the end of the configuration set if monitoring started at IPL, else the first sample
    (whose per-user I/O counts are then subtracted)."""
    g0 = sample_groups[0]
    ipl = m.system.get("ipl_tod")
    if g0 > 0 and ipl is not None and ipl >= groups[g0 - 1]["tod"]:
        prev, prev_tod, todo = {k: {} for k in per_group[g0]}, groups[g0 - 1]["tod"], sample_groups
    else:
        prev, prev_tod, todo = per_group[g0], groups[g0]["tod"], sample_groups[1:]
    from_ipl = todo is sample_groups
    for io in m.user_io.values():
        for k, _ in _UIO:
            base = 0 if from_ipl else io.get("first_" + k)
            io[k] = None if io[k] is None or base is None or io[k] < base else io[k] - base
            io.pop("first_" + k, None)
    m.start_tod = prev_tod
    return prev, prev_tod, todo


def _series(m: Measurements, per_group: dict, lock_names: list[str]) -> None:
    """Empty per-interval series for every processor, user, lock, device and table the data has."""
    for c in m.cpus:
        for s in (m.busy_ns, m.sys_ns, m.user_ns, m.wait_ns, m.emul_ns):
            s[c] = []
    for u in m.users:
        m.total_ns[u], m.virt_ns[u] = [], []
        if m.has_appl:
            m.tx[u] = []
    for name in lock_names:
        m.locks[name] = {key: [] for key, _, _ in _LOCK_COLS}
    for d in m.devs:
        m.dev[d] = {key: [] for key, _, _ in DEV_COLS}
    has_prp = any(v is not None for g in per_group for v in per_group[g]["prp_susp"].values())
    if has_prp:
        m.prp = {c: {key: [] for key, _ in PRP_COLS} for c in m.cpus}
    if m.phys_info:
        m.phys = {key: [] for key, _, _ in CUM_COLS}
    for name in m.cpl_info:
        m.cpl[name] = {**{key: [] for key, _, _ in CPL_COLS}, "limit_pct": [], "members": []}
    if m.hpp_info:
        m.hpp = {**{key: [] for key, _, _ in HPP_COLS}, "max_pg": [], "max_md": []}
    if m.has_mdc:
        m.mdc = {key: [] for key in [k for k, _, _ in MDC_COLS] + [k for k, _ in MDC_LEVELS]}
        for g in per_group:
            for key, _, _ in MDC_COLS:
                per_group[g].setdefault("mdc_" + key, {})
    if any(per_group[g]["ust_running"] for g in per_group):
        m.ust = {u: {key: [] for key, _ in UST_COLS} for u in m.users}
    if m.has_storage:
        m.sto = {key: [] for key, _, _ in STO_COLS}
        m.sto_level = {key: [] for key, _ in STO_LEVELS}
        m.upg = {u: {**{key: [] for key, _, _ in UPG_COLS}, "resident": []} for u in m.users}


def _interval(m: Measurements, prev: dict, cur: dict, lock_names: list[str], levels: dict) -> None:
    """One interval's values (`cur` less `prev`) appended to every series, table by table."""
    w = cur["where"]
    _interval_cpus(m, prev, cur, w)
    _interval_users(m, prev, cur, w)
    for key, _, kind in _LOCK_COLS:
        d = _deltas(prev[key], cur[key], m, kind, w)
        for name in lock_names:
            m.locks[name][key].append(d.get(name))
    if m.prp:
        for key, _ in PRP_COLS:
            d = _deltas(prev["prp_" + key], cur["prp_" + key], m, "tod", w)
            for c in m.cpus:
                m.prp[c][key].append(d.get(c))
    if m.phys:
        for key, _, kind in CUM_COLS:
            m.phys[key].append(_deltas(prev["cum_" + key], cur["cum_" + key], m, kind, {}).get("all"))
    if m.has_mdc:
        for key, _, kind in MDC_COLS:
            m.mdc[key].append(_deltas(prev.get("mdc_" + key, {}), cur.get("mdc_" + key, {}), m, kind,
                                      {}).get("all"))
        for key, _ in MDC_LEVELS:
            m.mdc[key].append(levels["mdc"].get(key))
    _interval_pools(m, prev, cur)
    _interval_hyperpav(m, prev, cur)
    if m.ust:
        for key, _ in UST_COLS:
            d = _deltas(prev["ust_" + key], cur["ust_" + key], m, "tod", w)
            for u in m.users:
                m.ust[u][key].append(d.get(u))
    wd = {k[1]: v for k, v in w.items() if isinstance(k, tuple)}
    for key, _, kind in DEV_COLS:
        d = _deltas(prev["dev_" + key], cur["dev_" + key], m, kind, wd)
        for dv_ in m.devs:
            m.dev[dv_][key].append(d.get(dv_))
    if m.has_storage:
        _interval_storage(m, prev, cur, w, levels)


def _interval_cpus(m: Measurements, prev: dict, cur: dict, w: dict) -> None:
    """Processors: user, system, busy, wait and emulation time."""
    du = _deltas(prev["util"], cur["util"], m, "tod", w)
    ds = _deltas(prev["sys"], cur["sys"], m, "tod", w)
    dw = _deltas(prev["wait"], cur["wait"], m, "tod", w)
    dp = _deltas(prev["prb"], cur["prb"], m, "timerdown", w)
    for c in m.cpus:
        u_, s_ = du.get(c), ds.get(c)
        m.user_ns[c].append(u_)
        m.sys_ns[c].append(s_)
        m.busy_ns[c].append(None if u_ is None or s_ is None else u_ + s_)
        m.wait_ns[c].append(dw.get(c))
        m.emul_ns[c].append(dp.get(c))


def _interval_users(m: Measurements, prev: dict, cur: dict, w: dict) -> None:
    """Users: total and virtual CPU time, transactions."""
    dt = _deltas(prev["ttime"], cur["ttime"], m, "tod", w)
    dv = _deltas(prev["vtime"], cur["vtime"], m, "tod", w)
    dx = _deltas(prev["tx"], cur["tx"], m, "uint", w)
    for u in m.users:
        m.total_ns[u].append(dt.get(u))
        m.virt_ns[u].append(dv.get(u))
        if m.has_appl:
            m.tx[u].append(dx.get(u))


def _interval_pools(m: Measurements, prev: dict, cur: dict) -> None:
    """CPU pools: counters, and the limit and members at the sample."""
    for name, series in m.cpl.items():
        for key, _, kind in CPL_COLS:
            series[key].append(_deltas(prev.get("cpl_" + key, {}), cur.get("cpl_" + key, {}), m, kind,
                                       {}).get(name))
        at = cur.get("cpl_at", {}).get(name) or {}
        series["limit_pct"].append(at.get("limit_pct"))
        series["members"].append(at.get("members"))


def _interval_hyperpav(m: Measurements, prev: dict, cur: dict) -> None:
    """The HyperPAV pool: counters, and the most aliases in use per type."""
    if not m.hpp:
        return
    for key, _, kind in HPP_COLS:
        m.hpp[key].append(_deltas(prev["hpp_" + key], cur["hpp_" + key], m, kind, {}).get("all"))
    mx = cur["hpp_max"].get("all") or (None, None)
    m.hpp["max_pg"].append(mx[0])
    m.hpp["max_md"].append(mx[1])


def _interval_storage(m: Measurements, prev: dict, cur: dict, w: dict, levels: dict) -> None:
    """Real storage and paging: counters and levels, and each user's paging and resident pages."""
    for key, _, kind in STO_COLS:
        m.sto[key].append(_deltas(prev["sto_" + key], cur["sto_" + key], m, kind, {}).get("all"))
    for key, _ in STO_LEVELS:
        m.sto_level[key].append(levels["sto"].get(key))
    for key, _, kind in UPG_COLS:
        d = _deltas(prev["upg_" + key], cur["upg_" + key], m, kind, w)
        for u in m.users:
            m.upg[u][key].append(d.get(u))
    for u in m.users:
        m.upg[u]["resident"].append(levels["user"].get(u))


def _processors(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """IBM's MRSYTPRP (times), zvmlab's ZVMPRP (PR/SM, parking, SMT core times)."""
    for r in data.rows("MRSYTPRP"):
        g = r["group"]
        if g not in per_group or r.get("SYTPRP_PFXCPUAD") is None:
            continue
        c, cur = r["SYTPRP_PFXCPUAD"], per_group[g]
        cur["util"][c] = r.get("SYTPRP_PFXUTIME")
        cur["sys"][c] = r.get("SYTPRP_PFXTMSYS")
        cur["wait"][c] = r.get("SYTPRP_PFXTOTWT")
        cur["prb"][c] = r.get("SYTPRP_PFXPRBTM")
        cur["where"][c] = r["offset"]
        if r.get("SYTPRP_PFXCPUTY") is not None:
            ty = r["SYTPRP_PFXCPUTY"]
            # zvmlab never models a zAAP: its files before stop 27 wrote 2 for an IFL
            m.cpu_type[c] = 3 if ty == 2 and m.origin == L.ORIGIN_ZVMLAB else ty
        if c not in m.cpus:
            m.cpus.append(c)
    for r in data.rows("ZVMPRP"):
        g, c = r["group"], r.get("ZVMPRP_CPUAD")
        if g not in per_group or c is None:
            continue
        flags = r.get("ZVMPRP_FLAGS") or 0
        m.emul_apportioned |= bool(flags & L.PRPFLAG_PRB_APPORTIONED)
        for key, col in PRP_COLS:
            v = r.get(col)
            if key.startswith("core") and not flags & L.PRPFLAG_CORETM:
                v = None
            per_group[g]["prp_" + key][c] = v
        if r.get("ZVMPRP_CORE") is not None:
            m.cpu_core[c] = r["ZVMPRP_CORE"]
            m.cpu_polar[c] = L.POLARS.get(r.get("ZVMPRP_POLAR"), "?")
    m.cpus.sort()


def _users(data: MonitorData, m: Measurements, per_group: dict) -> None:
    """Users and their virtual CPUs from IBM's MRUSEACT (one per virtual CPU); CPU time,
    transactions and wait states from zvmlab's ZVMUSE where the data has it."""
    vcpus: dict[tuple[int, str], int] = {}
    for r in data.rows("MRUSEACT"):
        g, u = r["group"], r.get("USEACT_VMDUSER")
        if g not in per_group or not u:
            continue
        vcpus[(g, u)] = vcpus.get((g, u), 0) + 1
        per_group[g]["where"].setdefault(u, r["offset"])
        if u not in m.users:
            m.users.append(u)
    for (_, u), n in vcpus.items():
        m.vcpus[u] = max(n, m.vcpus.get(u, 0))
    first: dict[str, dict] = {}
    for r in data.rows("ZVMUSE"):
        g, u = r["group"], r.get("ZVMUSE_USERID")
        if g not in per_group or not u:
            continue
        m.user_info[u] = {"vsize": r.get("ZVMUSE_VSIZE"), "wss": r.get("ZVMUSE_WSS"),
                          "iodev": r.get("ZVMUSE_IODEV"), "ioflags": r.get("ZVMUSE_IOFLAGS")}
        first.setdefault(u, r)
        # cumulative at the last sample, and at the first (the baseline when monitoring did not
        # start at IPL: measure() subtracts it then)
        m.user_io[u] = {k: r.get(col) for k, col in _UIO}
        m.user_io[u].update({"first_" + k: first[u].get(col) for k, col in _UIO})
        cur = per_group[g]
        cur["ttime"][u] = r.get("ZVMUSE_TTIME")
        cur["vtime"][u] = r.get("ZVMUSE_VTIME")
        cur["where"][u] = r["offset"]
        for key, col in UST_COLS:
            if r.get(col) is not None:
                cur["ust_" + key][u] = r[col]
        if r.get("ZVMUSE_TXDONE") is not None:
            cur["tx"][u] = r["ZVMUSE_TXDONE"]
            m.has_appl = True
        if r.get("ZVMUSE_VCPUS"):
            m.vcpus[u] = r["ZVMUSE_VCPUS"]
        if u not in m.users:
            m.users.append(u)


_UIO = (("ios", "ZVMUSE_IOS"), ("blocks", "ZVMUSE_IOBLKS"))


def _locks(data: MonitorData, per_group: dict) -> list[str]:
    """Lock counters from zvmlab's ZVMLCK (with acquires) or else IBM's MRSYTLCK entries."""
    names: list[str] = []
    zvm = bool(data.rows("ZVMLCK"))
    table = "ZVMLCK" if zvm else "MRSYTLCK"
    ibm = (("coll_x", "SYTLCK_CALXSCNT"), ("coll_s", "SYTLCK_CALSSCNT"), ("spin_x", "SYTLCK_CALXTIME"),
           ("spin_s", "SYTLCK_CALSTIME"))
    for r in data.rows(table):
        g, name = r["group"], r.get("ZVMLCK_NAME" if zvm else "SYTLCK_CALLCKID")
        if g not in per_group or not name:
            continue
        cols = [(key, col) for key, col, _ in _LOCK_COLS] if zvm else ibm
        for key, col in cols:
            per_group[g][key][name] = r.get(col)
        if name not in names:
            names.append(name)
    return names
