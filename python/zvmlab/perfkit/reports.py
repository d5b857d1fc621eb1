"""The report registry and the reports for which there is monitor data.

A report is registered with its Perfkit id and name; it builds a ``Report`` from per-interval
``Measurements``. Device and paging reports are in ``io_reports``, LPAR/processor reports in
``lpar_reports``; a new report is a builder decorated with ``@report`` (its module imported in
``perfkit/__init__``).

Figures follow the run summary's definitions, so a report agrees with summary.json:
percentages of one processor (100 = one processor busy for the interval), T/V = total CPU time /
virtual CPU time, ETR = transactions per second (from zvmlab's D15R4 ZVMUSE records).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import InputError
from ..monitor.derive import Measurements, tod_datetime
from .model import DATA, MEAN, TOTAL, Column, Plot, Report, Table

# PFXCPUTY: z/Architecture's processor types (0 CP, 2 zAAP, 3 IFL, 4 ICF, 5 zIIP; the zpmd
# decoder's viewer). zvmlab's files before stop 27 wrote 2 for IFL: derive reads them as 3.
CPU_TYPES = {0: "CP", 2: "ZAAP", 3: "IFL", 4: "ICF", 5: "ZIIP"}


@dataclass(frozen=True)
class Spec:
    fcx: str
    name: str
    title: str
    build: Callable[[Measurements], Report]
    summary: str


REPORTS: dict[str, Spec] = {}


def report(fcx: str, name: str, title: str, summary: str):
    def deco(fn: Callable[[Measurements, Report], None]):
        def build(m: Measurements) -> Report:
            r = Report(fcx, name, title, meta(m))
            fn(m, r)
            return r
        REPORTS[fcx] = Spec(fcx, name, title, build, summary)
        return fn
    return deco


def find(ident: str) -> Spec:
    """A report by id ('FCX144', '144') or name ('PROCLOG'), any case."""
    s = ident.strip().upper()
    for spec in REPORTS.values():
        if s in (spec.fcx, spec.fcx[3:], spec.name):
            return spec
    known = ", ".join(f"{s.fcx} {s.name}" for s in REPORTS.values())
    raise InputError(f"unknown report '{ident}'", field="--fcx", fix=f"known: {known}")


def meta(m: Measurements) -> dict:
    start = tod_datetime(m.start_tod)
    end = tod_datetime(m.intervals[-1].end_tod) if m.intervals else start
    secs = m.duration_ns / 1e9
    return {
        "from": start.strftime("%Y/%m/%d %H:%M:%S"),
        "to": end.strftime("%Y/%m/%d %H:%M:%S"),
        "seconds": secs,
        # the window as seconds since the start of the data, beside the clock times above
        "from_s": m.intervals[0].start_ns / 1e9 if m.intervals else 0.0,
        "to_s": m.intervals[-1].end_ns / 1e9 if m.intervals else 0.0,
        "system": m.system.get("systemid") or "",
        "level": m.level or m.system.get("level") or "",
        "origin": m.origin or "unknown",
        "source": m.source,
        "intervals": len(m.intervals),
        "processors": len(m.cpus),
    }


def end_time(m: Measurements, k: int) -> str:
    return tod_datetime(m.intervals[k].end_tod).strftime("%H:%M:%S")


def xs(m: Measurements) -> list[float]:
    return [iv.end_ns / 1e9 for iv in m.intervals]


def pct(ns, ln) -> float | None:
    return None if ns is None else 100.0 * ns / ln


def ssum(vals) -> int | None:
    """Sum, or None if any value is missing."""
    vals = list(vals)
    return None if any(v is None for v in vals) else sum(vals)


def interval_virt(m: Measurements, k: int) -> int | None:
    return ssum(m.virt_ns[u][k] for u in m.users) if m.users else None


def interval_tx(m: Measurements, k: int) -> int | None:
    return ssum(m.tx[u][k] for u in m.users) if m.has_appl else None


TIME_COL = Column("time", ("Interval", "End Time"), "text", 8)


# -- FCX144 PROCLOG ------------------------------------------------------------------------------

@report("FCX144", "PROCLOG", "Processor Activity, by Time",
        "per processor and interval: percent busy (total, user, system, emulation)")
def proclog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("cpu", ("C", "P"), "text", 3),
            Column("type", ("", "Type"), "text", 4),
            Column("total", ("", "Total"), "pct", 6, "Percent Busy"),
            Column("user", ("", "User"), "pct", 6, "Percent Busy"),
            Column("syst", ("", "Syst"), "pct", 6, "Percent Busy"),
            Column("emul", ("", "Emul"), "pct", 6, "Percent Busy"),
            Column("wait", ("Pct", "Wait"), "pct", 6)]
    t = Table("processors", cols, key=("time", "cpu"))
    for k, iv in enumerate(m.intervals):
        ln = float(iv.len_ns)
        for c in m.cpus:
            t.add(DATA, time=end_time(m, k), cpu=f"{c:X}", type=CPU_TYPES.get(m.cpu_type.get(c, 0), "?"),
                  total=pct(m.busy_ns[c][k], ln), user=pct(m.user_ns[c][k], ln), syst=pct(m.sys_ns[c][k], ln),
                  emul=pct(m.emul_ns[c][k], ln), wait=pct(m.wait_ns[c][k], ln))
    dur = float(max(1, m.duration_ns))
    p = len(m.cpus) or 1
    for c in m.cpus:
        emul = ssum(m.emul_ns[c])
        t.add(MEAN, time=MEAN, cpu=f"{c:X}", type=CPU_TYPES.get(m.cpu_type.get(c, 0), "?"),
              total=pct(ssum(m.busy_ns[c]), dur), user=pct(ssum(m.user_ns[c]), dur),
              syst=pct(ssum(m.sys_ns[c]), dur), emul=pct(emul, dur), wait=pct(ssum(m.wait_ns[c]), dur))
    # all processors: the average per processor; emulation from the users' virtual time
    tot = lambda s: ssum(ssum(s[c]) for c in m.cpus)  # noqa: E731
    virt = ssum(ssum(m.virt_ns[u]) for u in m.users) if m.users else None
    emul_all = tot(m.emul_ns)
    if emul_all is None:
        emul_all = virt
    types = {CPU_TYPES.get(m.cpu_type.get(c, 0), "?") for c in m.cpus}
    t.add(MEAN, time=MEAN, cpu=".", type=types.pop() if len(types) == 1 else "mixed",
          total=pct(tot(m.busy_ns), dur * p), user=pct(tot(m.user_ns), dur * p),
          syst=pct(tot(m.sys_ns), dur * p), emul=pct(emul_all, dur * p), wait=pct(tot(m.wait_ns), dur * p))
    r.tables.append(t)
    x = xs(m)
    r.plots.append(Plot("Processor busy by interval", "% busy", x,
                        {f"CPU {c:X}": [pct(v, iv.len_ns) for v, iv in zip(m.busy_ns[c], m.intervals)]
                         for c in m.cpus}))
    r.plots.append(Plot("System time by interval", "% busy", x,
                        {f"CPU {c:X}": [pct(v, iv.len_ns) for v, iv in zip(m.sys_ns[c], m.intervals)]
                         for c in m.cpus}))
    if any(v is None for c in m.cpus for v in m.emul_ns[c]):
        r.notes.append("Emul per processor: '...' = not in the data; the '.' row's Emul is then the users' "
                       "virtual time (D15 R4 ZVMUSE).")
    elif m.emul_apportioned:
        r.notes.append("Emul per processor (SYTPRP_PFXPRBTM): the simulator does not account guest time per "
                       "processor; each processor's user time is split in the interval's proportion of guest "
                       "to user-charged time (flagged in D15 R3 ZVMPRP).")


# -- FCX100 CPU ----------------------------------------------------------------------------------

@report("FCX100", "CPU", "CPU Load and Transactions",
        "whole period: load per processor, system totals, T/V, transaction rate")
def cpu(m: Measurements, r: Report) -> None:
    dur = float(max(1, m.duration_ns))
    cols = [Column("proc", ("", "PROC"), "text", 4),
            Column("type", ("", "TYPE"), "text", 4),
            Column("cpu", ("", "%CPU"), "pct", 6, "CPU Load"),
            Column("cp", ("", "%CP"), "pct", 6, "CPU Load"),
            Column("emu", ("", "%EMU"), "pct", 6, "CPU Load"),
            Column("wt", ("", "%WT"), "pct", 6, "CPU Load"),
            Column("sys", ("", "%SYS"), "pct", 6, "CPU Load")]
    t = Table("processors", cols, key=("proc",))
    for c in m.cpus:
        busy, emul = ssum(m.busy_ns[c]), ssum(m.emul_ns[c])
        t.add(DATA, proc=f"P{c:02X}", type=CPU_TYPES.get(m.cpu_type.get(c, 0), "?"), cpu=pct(busy, dur),
              cp=pct(None if busy is None or emul is None else busy - emul, dur), emu=pct(emul, dur),
              wt=pct(ssum(m.wait_ns[c]), dur), sys=pct(ssum(m.sys_ns[c]), dur))
    p = len(m.cpus) or 1
    busy = ssum(ssum(m.busy_ns[c]) for c in m.cpus)
    virt = ssum(ssum(m.emul_ns[c]) for c in m.cpus) if m.cpus else None
    if virt is None:  # no emulation time per processor: the users' virtual time
        virt = ssum(ssum(m.virt_ns[u]) for u in m.users) if m.users else None
    t.add(TOTAL, proc="Avg", type="", cpu=pct(busy, dur * p),
          cp=pct(None if busy is None or virt is None else busy - virt, dur * p), emu=pct(virt, dur * p),
          wt=pct(ssum(ssum(m.wait_ns[c]) for c in m.cpus), dur * p),
          sys=pct(ssum(ssum(m.sys_ns[c]) for c in m.cpus), dur * p))
    r.tables.append(t)
    tot = m.totals()
    s = Table("system", [Column("what", ("", "Measurement"), "text", 34), Column("value", ("", "Value"), "num", 12),
                         Column("unit", ("", "Unit"), "text", 24)], key=("what",))
    s.add(DATA, what="Processors", value=len(m.cpus), unit="")
    s.add(DATA, what="Total CPU busy", value=tot["avg_processor_busy_pct"] * p, unit="% of one processor")
    s.add(DATA, what="Average processor busy", value=tot["avg_processor_busy_pct"], unit="%")
    s.add(DATA, what="System (nonchargeable CP) time", value=tot["system_pct"], unit="% of one processor")
    s.add(DATA, what="T/V ratio", value=tot["tv_ratio"], unit="total / virtual")
    s.add(DATA, what="Users with samples", value=len(m.users), unit="")
    if tot["etr"] is not None:
        s.add(DATA, what="Transactions (APPLDATA) *", value=tot["transactions"], unit="")
        s.add(DATA, what="ETR *", value=tot["etr"], unit="transactions/s")
        s.add(DATA, what="ITR *", value=tot["itr"], unit="ETR / busy fraction")
    r.tables.append(s)
    procs = [row for row in t.rows if row["_kind"] == DATA]
    r.plots.append(Plot("Load per processor (whole period)", "% busy", [float(i) for i in range(len(procs))],
                        {"%CPU": [row["cpu"] for row in procs], "%SYS": [row["sys"] for row in procs],
                         "%WT": [row["wt"] for row in procs]},
                        kind="bar", categories=[row["proc"] for row in procs], xlabel="processor"))
    r.notes.append("* = zvmlab addition: transactions come from the workload, in zvmlab's D15R4 ZVMUSE records.")


# -- FCX225 SYSSUMLG -----------------------------------------------------------------------------

@report("FCX225", "SYSSUMLG", "System Performance Summary by Time",
        "per interval: processor busy, T/V, users, transaction rate")
def syssumlg(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("busy", ("Pct", "Busy"), "pct", 6, "CPU"),
            Column("tv", ("T/V", "Ratio"), "ratio", 6, "CPU"),
            Column("logged", ("", "Logged"), "int", 6, "Users"),
            Column("active", ("", "Active"), "int", 6, "Users"),
            Column("etr", ("ETR", "Tx/s"), "rate", 9, "APPLDATA", extension=True),
            Column("itr", ("ITR", "Tx/s"), "rate", 9, "APPLDATA", extension=True)]
    if not m.has_appl:
        cols = cols[:5]
    t = Table("intervals", cols, key=("time",))
    p = len(m.cpus) or 1
    for k, iv in enumerate(m.intervals):
        ln = float(iv.len_ns)
        busy = ssum(m.busy_ns[c][k] for c in m.cpus)
        virt = interval_virt(m, k)
        tx = interval_tx(m, k)
        frac = None if busy is None else busy / (ln * p)
        etr = None if tx is None else tx / (ln / 1e9) / m.tx_unit
        t.add(DATA, time=end_time(m, k), busy=None if frac is None else 100.0 * frac,
              tv=busy / virt if busy is not None and virt else None, logged=len(m.users),
              active=(None if any(m.total_ns[u][k] is None for u in m.users)
                      else sum(1 for u in m.users if m.total_ns[u][k])),
              etr=etr, itr=etr / frac if etr is not None and frac else None)
    tot = m.totals()
    n = len(m.intervals) or 1
    t.add(MEAN, time=MEAN, busy=tot["avg_processor_busy_pct"], tv=tot["tv_ratio"], logged=len(m.users),
          active=ssum(row["active"] for row in t.rows if row["_kind"] == DATA) / n
          if all(row["active"] is not None for row in t.rows) else None, etr=tot["etr"], itr=tot["itr"])
    r.tables.append(t)
    x = xs(m)
    rows = [row for row in t.rows if row["_kind"] == DATA]
    r.plots.append(Plot("Processor busy (average of the processors)", "% busy", x, {"Pct Busy": [row["busy"] for row in rows]}))
    if m.has_appl:
        r.plots.append(Plot("Transaction rate (APPLDATA)", "transactions/s", x, {"ETR": [row["etr"] for row in rows]}))
    r.plots.append(Plot("T/V ratio", "total / virtual", x, {"T/V": [row["tv"] for row in rows]}))
    r.notes.append("Pct Busy: average of the processors. * = zvmlab addition: ETR/ITR from the workload's "
                   "transactions in zvmlab's D15R4 ZVMUSE records; ITR = ETR / busy fraction.")


# -- FCX112 USER ---------------------------------------------------------------------------------

@report("FCX112", "USER", "General User Resource Utilization",
        "per user, whole period: CPU load (total, virtual, T/V), transaction rate")
def user(m: Measurements, r: Report) -> None:
    cols = [Column("userid", ("", "Userid"), "text", 8),
            Column("vcpus", ("Virt", "CPUs"), "int", 4),
            Column("cpu", ("", "%CPU"), "pct", 6, "CPU Load"),
            Column("tcpu", ("", "TCPU"), "num", 8, "CPU Load", unit="s"),
            Column("vcpu", ("", "VCPU"), "num", 8, "CPU Load", unit="s"),
            Column("ratio", ("", "Ratio"), "ratio", 6, "CPU Load"),
            Column("cp", ("", "%CP"), "pct", 6, "CPU Load"),
            Column("tx", ("Trans", "/s"), "rate", 9, "APPLDATA", extension=True)]
    if not m.has_appl:
        cols = cols[:7]
    t = Table("users", cols, key=("userid",))
    dur = max(1, m.duration_ns) / 1e9
    for u in sorted(m.users):
        s = m.user_totals(u)
        t.add(DATA, userid=u, vcpus=m.vcpus.get(u), cpu=s["cpu_pct"], tcpu=s["total_s"], vcpu=s["virtual_s"],
              ratio=s["tv_ratio"], cp=s["cp_pct"],
              tx=None if s["transactions"] is None else s["transactions"] / dur)
    data = [row for row in t.rows]
    if data:
        n = len(data)
        tsum = ssum(row["tcpu"] for row in data)
        vsum = ssum(row["vcpu"] for row in data)

        def agg(key, f):
            vals = [row[key] for row in data if row[key] is not None]
            return f(vals) if vals else None

        mean = lambda vals: sum(vals) / n  # noqa: E731
        ratio = tsum / vsum if tsum is not None and vsum else None
        t.add(MEAN, userid=MEAN, vcpus=agg("vcpus", mean), cpu=agg("cpu", mean),
              tcpu=None if tsum is None else tsum / n, vcpu=None if vsum is None else vsum / n,
              ratio=ratio, cp=agg("cp", mean), tx=agg("tx", mean))
        t.add(TOTAL, userid=TOTAL, vcpus=agg("vcpus", sum), cpu=agg("cpu", sum), tcpu=tsum, vcpu=vsum,
              ratio=ratio, cp=agg("cp", sum), tx=agg("tx", sum))
    r.tables.append(t)
    # every user: the chart keeps the busiest apart and stacks the rest as "others" (charts.py)
    top = sorted(m.users, key=lambda u: -(m.user_totals(u)["cpu_pct"] or 0.0))
    r.plots.append(Plot("CPU by user and interval", "% of one processor", xs(m),
                        {u: [pct(v, iv.len_ns) for v, iv in zip(m.total_ns[u], m.intervals)] for u in top},
                        kind="stack"))
    r.notes.append("%CPU, %CP: percent of one processor over the period (100 = one processor); TCPU/VCPU: total "
                   "and virtual CPU seconds; Ratio = TCPU/VCPU. * = zvmlab addition (APPLDATA).")


# -- FCX114 USTAT -------------------------------------------------------------------------------

# (key in Measurements.ust, column id, header): the states of the run summary's `wait_states`.
_USTAT = (("running", "run", "%RUN"), ("cpu_wait", "cpu", "%CPU"), ("page_wait", "pgw", "%PGW"),
          ("io_wait", "iow", "%IOW"), ("test_idle", "ti", "%TI"), ("eligible", "el", "%EL"),
          ("limited", "lim", "%LIM"), ("dormant", "dm", "%DM"))


@report("FCX114", "USTAT", "Wait State Analysis by User",
        "per user, whole period: share of its virtual CPUs' time running, waiting for a processor, "
        "in page wait, in I/O wait, on the eligible list, on the limit list, dormant")
def ustat(m: Measurements, r: Report) -> None:
    cols = [Column("userid", ("", "Userid"), "text", 8),
            Column("vcpus", ("Virt", "CPUs"), "int", 4),
            Column("act", ("", "%ACT"), "pct", 5)]
    cols += [Column(c, ("", h), "pct", 5) for _, c, h in _USTAT]
    t = Table("users", cols, key=("userid",))
    if not m.ust:
        # users known (MRUSEACT) but their states not in the data: listed with '...'
        for u in sorted(m.users):
            t.add(DATA, userid=u, vcpus=m.vcpus.get(u))
        r.notes.append("No wait-state data (D15 R4 ZVMUSE wait-state fields) in the data"
                       + (": the users' states are '...'." if m.users else "."))
        r.tables.append(t)
        return

    def row(times: dict) -> dict:
        all_ = sum(times.values())
        out = {c: (100.0 * times[k] / all_ if all_ else None) for k, c, _ in _USTAT}
        out["act"] = None if out["dm"] is None else 100.0 - out["dm"] - out["ti"]
        return out

    totals = {}
    for u in sorted(m.users):
        # an interval the reader left out (a damaged counter) drops from every state alike
        ok = [i for i in range(len(m.intervals))
              if all(m.ust[u][k][i] is not None for k, _, _ in _USTAT if k != "test_idle")]
        times = {k: sum(m.ust[u][k][i] or 0 for i in ok) for k, _, _ in _USTAT}
        totals[u] = times
        t.add(DATA, userid=u, vcpus=m.vcpus.get(u), **row(times))
    if totals:
        sys_times = {k: sum(tt[k] for tt in totals.values()) for k, _, _ in _USTAT}
        t.add(TOTAL, userid=TOTAL, vcpus=sum(m.vcpus.get(u) or 0 for u in totals) or None, **row(sys_times))
    r.tables.append(t)
    _ustat_plots(m, r, totals)
    r.notes.append("Every column is a percent of the user's virtual-CPU time (all its virtual CPUs over the "
                   "period), measured exactly rather than by CP's high-frequency samples, so the states add up "
                   "to 100. %RUN: on a processor (guest or CP time); %CPU: dispatchable, "
                   "waiting for a processor; %PGW: page wait; %IOW: waiting for a guest DASD I/O; %TI: idle "
                   "while its user stays on the dispatch list (test idle); %EL: on the eligible list; %LIM: "
                   "held by a LIMITHARD maximum share; %DM: dormant. %ACT = 100 - %TI - %DM.")


# The wait states a chart shows (everything but running, dormant and test idle), in table order.
_WAITS = (("cpu_wait", "%CPU wait"), ("page_wait", "%PGW"), ("io_wait", "%IOW"), ("eligible", "%EL"),
          ("limited", "%LIM"))


def _ustat_plots(m: Measurements, r: Report, totals: dict[str, dict]) -> None:
    """FCX114's charts: each user's time by wait state over the period (the users that wait most, in
    any state: a user 74.5 % in page wait shows 74.5 under %PGW), and their waiting per interval."""
    def share(u: str, k: str) -> float:
        all_ = sum(totals[u].values())
        return 100.0 * totals[u][k] / all_ if all_ else 0.0

    wait = {u: sum(share(u, k) for k, _ in _WAITS) for u in totals}
    top = [u for u in sorted(totals, key=lambda u: (-wait[u], u)) if wait[u] > 0][:12]
    if not top:
        return
    more = f" ({len(top)} that wait most)" if len(totals) > len(top) else ""
    r.plots.append(Plot("Wait states by user, whole period" + more, "% of virtual-CPU time",
                        list(range(len(top))), {h: [share(u, k) for u in top] for k, h in _WAITS
                                                if any(share(u, k) for u in top)},
                        kind="bar", categories=top, xlabel="user"))

    def iv_wait(u):
        out = []
        for i in range(len(m.intervals)):
            all_ = sum(m.ust[u][kk][i] or 0 for kk, _, _ in _USTAT)
            vals = [m.ust[u][k][i] for k, _ in _WAITS]
            out.append(None if not all_ or all(v is None for v in vals) else
                       100.0 * sum(v or 0 for v in vals) / all_)
        return out

    r.plots.append(Plot("Waiting in any wait state (CPU, page, I/O, eligible, limit) by user" + more,
                        "% of virtual-CPU time", xs(m), {u: iv_wait(u) for u in top}))


# -- FCX265 LOCKLOG ------------------------------------------------------------------------------

@report("FCX265", "LOCKLOG", "Spin Lock Log",
        "per formal spin lock and interval: collisions/s, average spin per collision, spin %busy "
        "(combined, exclusive, shared)")
def locklog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL, Column("lock", ("", "LockName"), "text", 8)]
    for g, sfx in (("Combined", ""), ("Exclusive", "_x"), ("Shared", "_s")):
        cols += [Column("colls" + sfx, ("Colls", "/sec"), "rate", 9, g),
                 Column("avg" + sfx, ("Avg", "Spin us"), "num", 8, g),
                 Column("busy" + sfx, ("Spin", "%Busy"), "pct", 7, g)]
    t = Table("locks", cols, key=("time", "lock"))

    def row(coll_x, coll_s, spin_x, spin_s, secs) -> dict:
        out = {}
        for sfx, c, sp in (("", None if coll_x is None or coll_s is None else coll_x + coll_s,
                            None if spin_x is None or spin_s is None else spin_x + spin_s),
                           ("_x", coll_x, spin_x), ("_s", coll_s, spin_s)):
            out["colls" + sfx] = None if c is None else c / secs
            out["avg" + sfx] = None if c is None or sp is None else (sp / 1e3 / c if c else 0.0)
            out["busy" + sfx] = None if sp is None else 100.0 * sp / 1e9 / secs
        return out

    for k, iv in enumerate(m.intervals):
        secs = iv.len_ns / 1e9
        for name, d in m.locks.items():
            t.add(DATA, time=end_time(m, k), lock=name,
                  **row(d["coll_x"][k], d["coll_s"][k], d["spin_x"][k], d["spin_s"][k], secs))
    secs = max(1, m.duration_ns) / 1e9
    for name, d in m.locks.items():
        t.add(MEAN, time=MEAN, lock=name, **row(ssum(d["coll_x"]), ssum(d["coll_s"]), ssum(d["spin_x"]),
                                                ssum(d["spin_s"]), secs))
    r.tables.append(t)
    x = xs(m)
    r.plots.append(Plot("Spin %busy by lock", "% of one processor", x,
                        {name: [row_["busy"] for row_ in t.rows if row_["_kind"] == DATA and row_["lock"] == name]
                         for name in m.locks}))
    if not m.locks:
        r.notes.append("No formal spin lock records (D0 R23 MRSYTLCK) in the data.")
    r.notes.append("Spin %Busy: spin time / interval, percent of one processor. Avg Spin: microseconds per "
                   "collision (a request that had to spin).")


# -- FCX326 LOCKACT ------------------------------------------------------------------------------

@report("FCX326", "LOCKACT", "Spin Lock Activity",
        "per formal spin lock over the period: acquisitions/s (exclusive, shared), collisions/s and per "
        "100 acquisitions, average spin per collision, spin %busy, and the busiest interval")
def lockact(m: Measurements, r: Report) -> None:
    """The activity view of D0R23 MRSYTLCK: one row per lock for the whole period, busiest first,
    with how often it is taken (not in LOCKLOG) and its worst interval. IBM's FCX326 layout is not
    in the public material zvmlab has; the columns are zvmlab's choice from the same record."""
    cols = [Column("lock", ("", "LockName"), "text", 8),
            Column("acq_x", ("Excl", "/sec"), "rate", 10, "Acquisitions"),
            Column("acq_s", ("Shared", "/sec"), "rate", 10, "Acquisitions"),
            Column("colls", ("Colls", "/sec"), "rate", 9, "Collisions"),
            Column("coll_pct", ("Per 100", "Acqs"), "num", 8, "Collisions"),
            Column("avg", ("Avg", "Spin us"), "num", 8, "Spin"),
            Column("busy", ("Spin", "%Busy"), "num", 7, "Spin"),
            Column("peak", ("Peak", "%Busy"), "num", 8, "Busiest interval"),
            Column("peak_at", ("End", "Time"), "text", 10, "Busiest interval")]
    t = Table("locks", cols, key=("lock",))
    secs = max(1, m.duration_ns) / 1e9
    rows = sorted(((name, _lock_figures(d, secs), *_busiest_interval(m, d)) for name, d in m.locks.items()),
                  key=lambda x: (-(x[1]["busy"] or 0.0), x[0]))
    for name, f, best, at in rows:
        t.add(DATA, lock=name, peak=best, peak_at=at, **f)
    if rows:
        t.add(TOTAL, lock=TOTAL, peak=None, peak_at="", **_lock_total(m, [f for _, f, _, _ in rows]))
    r.tables.append(t)
    top = [name for name, _, _, _ in rows[:6]]
    r.plots.append(Plot("Spin %busy of the busiest locks", "% of one processor", [0.0] * len(top),
                        {"spin %busy": [f["busy"] for _, f, _, _ in rows[:6]]}, kind="bar", categories=top,
                        xlabel="lock"))
    if not m.locks:
        r.notes.append("No formal spin lock records (D0 R23 MRSYTLCK) in the data.")
    r.notes.append("Rates per second over the period; Per 100 Acqs: collisions per 100 acquisitions; Avg Spin: "
                   "microseconds per collision; Spin %Busy: spin time over the period, percent of one processor; "
                   "Busiest interval: the interval with the most spin. Layout: zvmlab's (IBM's FCX326 layout is "
                   "not in the public material used).")


def _lock_figures(d: dict, secs: float) -> dict:
    """One lock's LOCKACT figures over the period (None where the data lacks a counter)."""
    ax, as_, cx, cs = ssum(d["acq_x"]), ssum(d["acq_s"]), ssum(d["coll_x"]), ssum(d["coll_s"])
    sx, ss = ssum(d["spin_x"]), ssum(d["spin_s"])
    acq = None if ax is None or as_ is None else ax + as_
    coll = None if cx is None or cs is None else cx + cs
    spin = None if sx is None or ss is None else sx + ss
    return {"acq_x": None if ax is None else ax / secs, "acq_s": None if as_ is None else as_ / secs,
            "colls": None if coll is None else coll / secs,
            "coll_pct": None if acq is None or coll is None else (100.0 * coll / acq if acq else 0.0),
            "avg": None if coll is None or spin is None else (spin / 1e3 / coll if coll else 0.0),
            "busy": None if spin is None else 100.0 * spin / 1e9 / secs}


def _busiest_interval(m: Measurements, d: dict) -> tuple:
    """A lock's highest spin %busy in one interval, and that interval's end time."""
    best, at = None, ""
    for k, iv in enumerate(m.intervals):
        sx, ss = d["spin_x"][k], d["spin_s"][k]
        if sx is None or ss is None:
            continue
        b = 100.0 * (sx + ss) / iv.len_ns
        if best is None or b > best:
            best, at = b, end_time(m, k)
    return best, at


def _lock_total(m: Measurements, figs: list[dict]) -> dict:
    """The total row: rates and spin summed over the locks, ratios from the summed counters."""
    tot = {k: None if any(f[k] is None for f in figs) else sum(f[k] for f in figs)
           for k in ("acq_x", "acq_s", "colls", "busy")}
    all_acq = None if tot["acq_x"] is None or tot["acq_s"] is None else tot["acq_x"] + tot["acq_s"]
    spin_ns = ssum(ssum(d["spin_x"]) if ssum(d["spin_x"]) is None or ssum(d["spin_s"]) is None
                   else ssum(d["spin_x"]) + ssum(d["spin_s"]) for d in m.locks.values())
    colls = ssum(ssum(d["coll_x"]) if ssum(d["coll_x"]) is None or ssum(d["coll_s"]) is None
                 else ssum(d["coll_x"]) + ssum(d["coll_s"]) for d in m.locks.values())
    return dict(tot, coll_pct=None if all_acq is None or tot["colls"] is None else
                (100.0 * tot["colls"] / all_acq if all_acq else 0.0),
                avg=None if spin_ns is None or colls is None else (spin_ns / 1e3 / colls if colls else 0.0))


def build(ident: str, m: Measurements) -> Report:
    return find(ident).build(m)


def build_all(m: Measurements) -> list[Report]:
    return [spec.build(m) for spec in REPORTS.values()]
