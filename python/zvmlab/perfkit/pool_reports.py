"""CPU pool reports: FCX308 CPLCONF (CPU Pooling Configuration) and FCX309 CPLACT (CPU Pooling
Activity), from zvmlab's record D15R11 ZVMCPL (one per pool and sample; IBM's D5R19 MRPRCCPU
carries the same figures, but only its first fields' places were read: see the README).

The report numbers and names are those IBM's Performance Toolkit gave the new CPU pooling reports
(VM65697: FCX324 CPLMENU, FCX308 CPLCONF, FCX309 CPLACT; seed 000). The columns follow the
monitor figures: the pool's limit (LIMITHARD as a percentage of the online processors, or
CAPACITY in processors) in percent of one processor, the CPU its members used, the share of the
interval the pool was limited (its members held on the limit list) and how often it was.
"""

from __future__ import annotations

from ..monitor.derive import Measurements
from .model import DATA, MEAN, Column, Plot, Report, Table
from .reports import TIME_COL, end_time, pct, report, ssum, xs


def _limit_text(info: dict) -> str:
    v = info.get("limit_value")
    if v is None:
        return ""
    return f"{v:g}%" if info["limit_kind"] == "LIMITHARD" else f"{v:g}"


def _none(m: Measurements, r: Report, t: Table) -> bool:
    if not m.cpl_info:
        r.notes.append("No CPU pool records (D15 R11 ZVMCPL) in the data: the report needs a run with a "
                       "[[cpupool]] or a DEFINE CPUPOOL action.")
        r.tables.append(t)
        return True
    return False


@report("FCX308", "CPLCONF", "CPU Pooling Configuration",
        "per CPU pool at the last sample: type, limit type and value, the limit in percent of one "
        "processor, members")
def cplconf(m: Measurements, r: Report) -> None:
    cols = [Column("pool", ("CPU Pool", "Name"), "text", 8),
            Column("type", ("CPU", "Type"), "text", 4),
            Column("limtype", ("Limit", "Type"), "text", 9),
            Column("value", ("Limit", "Value"), "text", 7),
            Column("limit", ("Limit", "%CPU"), "pct", 7),
            Column("members", ("", "Members"), "int", 7),
            Column("state", ("", "State"), "text", 7)]
    t = Table("pools", cols, key=("pool",))
    if _none(m, r, t):
        return
    for name, info in m.cpl_info.items():
        t.add(DATA, pool=name, type=info["type"], limtype=info["limit_kind"], value=_limit_text(info),
              limit=info["limit_pct"], members=info["members"],
              state="deleted" if info["deleted"] else ("limited" if info["limited"] else ""))
    r.tables.append(t)
    r.notes.append("Limit %CPU: the pool's limit in percent of one processor (LIMITHARD: that percentage of the "
                   "online logical processors, each counted as 100 %; CAPACITY: that many processors, at most "
                   "those online); empty when the limit is 100 % (no limit).")


@report("FCX309", "CPLACT", "CPU Pooling Activity",
        "per CPU pool and interval: limit, CPU used by its members, percent of the interval limited, "
        "times limited, members")
def cplact(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("pool", ("CPU Pool", "Name"), "text", 8),
            Column("limit", ("Limit", "%CPU"), "pct", 7),
            Column("cpu", ("CPU", "%Used"), "pct", 7),
            Column("ofl", ("%of", "Limit"), "pct", 6),
            Column("lim", ("Pct", "Limited"), "pct", 7),
            Column("count", ("Times", "Limited"), "int", 7),
            Column("members", ("", "Members"), "int", 7)]
    t = Table("activity", cols, key=("time", "pool"))
    if _none(m, r, t):
        return
    series = {}
    for name, s in m.cpl.items():
        ys = []
        for k, iv in enumerate(m.intervals):
            ln = float(iv.len_ns)
            cpu = pct(s["cpu_ns"][k], ln)
            lim = s["limit_pct"][k]
            t.add(DATA, time=end_time(m, k), pool=name, limit=lim, cpu=cpu,
                  ofl=None if cpu is None or not lim else 100.0 * cpu / lim,
                  lim=pct(s["limited_ns"][k], ln), count=s["limited"][k], members=s["members"][k])
            ys.append(cpu)
        # Over the intervals the pool existed in (defined or deleted during the run).
        ks = [k for k in range(len(m.intervals)) if s["cpu_ns"][k] is not None]
        dur = float(max(1, sum(m.intervals[k].len_ns for k in ks)))
        t.add(MEAN, time=MEAN, pool=name, limit=None, cpu=pct(ssum(s["cpu_ns"][k] for k in ks), dur), ofl=None,
              lim=pct(ssum(s["limited_ns"][k] for k in ks), dur), count=ssum(s["limited"][k] for k in ks),
              members=None)
        series[name] = ys
    r.tables.append(t)
    r.plots.append(Plot("CPU used per pool", "% of one processor", xs(m), series))
    r.notes.append("CPU %Used: the members' CPU in the interval (100 = one processor); %of Limit: of the pool's "
                   "limit; Pct Limited: share of the interval the pool held its members on the limit list.")
