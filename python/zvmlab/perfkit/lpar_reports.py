"""LPAR, physical-CPU and logical-processor reports: FCX126 LPAR, FCX302 PHYSLOG and FCX304
PRCLOG, from zvmlab's records D15R7 ZVMCUP (the CPC's LPARs), D15R8 ZVMCUM (PR/SM counters) and
D15R3 ZVMPRP (PR/SM, parking and SMT per processor; see the README).

Figures follow the run summary's definitions (lpar.intervals, intervals[].smt): %Susp = time a
logical processor wanted to run but PR/SM did not power it, %LPmgt = PR/SM dispatches x PR/SM
time per dispatch, percent of one physical core; unparked = time-averaged unparked logical
cores; core busy = time a core had a busy thread, thread density = busy threads per busy core.
The partner LPARs' demand is not in the data (the simulator models it as a fixed or changing
busy fraction, not measured per interval), so FCX126 gives their configuration only.
"""

from __future__ import annotations

from ..monitor.derive import Measurements
from .model import DATA, MEAN, TOTAL, Column, Plot, Report, Table
from .reports import CPU_TYPES, TIME_COL, end_time, pct, report, ssum, xs


def _none_note(m: Measurements, r: Report, what: str) -> bool:
    if not m.phys:
        r.notes.append(f"No PR/SM data (D15 R8 ZVMCUM) in the data: {what} needs a run with a [cpc].")
        return True
    return False


def _core_figures(m: Measurements, c: int, ks, ln: float) -> tuple:
    """Core busy % and thread density of processor ``c``'s core over intervals ``ks``."""
    core = m.cpu_core.get(c)
    p = m.prp.get(c, {})
    t = ssum((p.get("core1") or [None])[k] for k in ks) if p.get("core1") else None
    t2 = ssum(p["core2"][k] for k in ks) if p.get("core2") else None
    if t is None or t2 is None:
        return None, None
    threads = [x for x in m.cpus if m.cpu_core.get(x) == core]
    busy = ssum(ssum(m.busy_ns[x][k] for k in ks) for x in threads)
    cb = t + t2
    return pct(cb, ln), (None if busy is None else (busy / cb if cb else 0.0))


# -- FCX304 PRCLOG -------------------------------------------------------------------------------

@report("FCX304", "PRCLOG", "Processor Activity, by Time",
        "per logical processor and interval: polarization, %parked, %suspended, busy (total, user, "
        "system), core busy and thread density (SMT)")
def prclog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("cpu", ("C", "P"), "text", 3),
            Column("type", ("", "Type"), "text", 4),
            Column("core", ("", "Core"), "text", 4),
            Column("ppd", ("", "PPD"), "text", 3),
            Column("park", ("Pct", "Park"), "pct", 5),
            Column("susp", ("", "%Susp"), "pct", 6),
            Column("total", ("", "Total"), "pct", 6, "Percent Busy"),
            Column("user", ("", "User"), "pct", 6, "Percent Busy"),
            Column("syst", ("", "Syst"), "pct", 6, "Percent Busy"),
            Column("corebusy", ("Core", "%Busy"), "pct", 6, "SMT"),
            Column("td", ("Thread", "Dens."), "ratio", 6, "SMT")]
    t = Table("processors", cols, key=("time", "cpu"))
    if not m.prp:
        r.notes.append("No PR/SM or SMT fields in the processor records (D15 R3 ZVMPRP).")
        r.tables.append(t)
        return

    def row(c, ks, ln) -> dict:
        p = m.prp[c]
        cb, td = _core_figures(m, c, ks, ln)
        return {"cpu": f"{c:X}", "type": CPU_TYPES.get(m.cpu_type.get(c, 0), "?"),
                "core": f"{m.cpu_core.get(c, c):X}", "ppd": m.cpu_polar.get(c, ""),
                "park": pct(ssum(p["park"][k] for k in ks), ln), "susp": pct(ssum(p["susp"][k] for k in ks), ln),
                "total": pct(ssum(m.busy_ns[c][k] for k in ks), ln), "user": pct(ssum(m.user_ns[c][k] for k in ks), ln),
                "syst": pct(ssum(m.sys_ns[c][k] for k in ks), ln), "corebusy": cb, "td": td}

    for k, iv in enumerate(m.intervals):
        for c in m.cpus:
            t.add(DATA, time=end_time(m, k), **row(c, [k], float(iv.len_ns)))
    dur, ks = float(max(1, m.duration_ns)), range(len(m.intervals))
    for c in m.cpus:
        t.add(MEAN, time=MEAN, **row(c, ks, dur))
    r.tables.append(t)
    x = xs(m)
    shown = m.cpus[:16]
    more = " (first 16)" if len(m.cpus) > 16 else ""
    r.plots.append(Plot("Processor busy by interval" + more, "% busy", x,
                        {f"CPU {c:X}": [pct(v, iv.len_ns) for v, iv in zip(m.busy_ns[c], m.intervals)] for c in shown}))
    r.plots.append(Plot("Suspended time (PR/SM did not power the processor)" + more, "% of the interval", x,
                        {f"CPU {c:X}": [pct(v, iv.len_ns) for v, iv in zip(m.prp[c]["susp"], m.intervals)]
                         for c in shown}))
    r.notes.append("PPD: polarization (Vh/Vm/Vl vertical high/medium/low, Hz horizontal; blank without PR/SM). "
                   "Pct Park: time parked by z/VM; %Susp: time the processor wanted to run while PR/SM did not "
                   "power it. SMT: core busy = time its core had a busy thread; thread density = busy threads per "
                   "busy core ('...' without SMT).")


# -- FCX302 PHYSLOG ------------------------------------------------------------------------------

@report("FCX302", "PHYSLOG", "Real CPU Utilization Log",
        "per interval: shared physical cores, PR/SM management time (this LPAR, the CPC), this LPAR's "
        "logical busy and suspended time, unparked cores")
def physlog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("shrd", ("", "Shrd"), "int", 4, "Physical"),
            Column("ded", ("", "Ded"), "int", 3, "Physical"),
            Column("lpmgt", ("%LP", "mgt"), "pct", 6, "PR/SM"),
            Column("cpcmgt", ("CPC", "%LPmgt"), "pct", 6, "PR/SM"),
            Column("busy", ("Logical", "%Busy"), "pct", 8, "This LPAR"),
            Column("susp", ("", "%Susp"), "pct", 7, "This LPAR"),
            Column("unparked", ("Unprk", "Cores"), "ratio", 6, "This LPAR"),
            Column("unparked_vl", ("Unprk", "Vl"), "ratio", 6, "This LPAR")]
    t = Table("intervals", cols, key=("time",))
    if _none_note(m, r, "PHYSLOG"):
        r.tables.append(t)
        return

    def row(ks, ln) -> dict:
        ph = m.phys
        return {"shrd": m.phys_info.get("shared"), "ded": m.phys_info.get("dedicated"),
                "lpmgt": pct(ssum(ph["lpmgt"][k] for k in ks), ln), "cpcmgt": pct(ssum(ph["cpcmgt"][k] for k in ks), ln),
                "busy": pct(ssum(ssum(m.busy_ns[c][k] for k in ks) for c in m.cpus), ln),
                "susp": pct(ssum(ssum(m.prp[c]["susp"][k] for k in ks) for c in m.cpus), ln) if m.prp else None,
                "unparked": None if (u := ssum(ph["unparked"][k] for k in ks)) is None else u / ln,
                "unparked_vl": None if (u := ssum(ph["unparked_vl"][k] for k in ks)) is None else u / ln}

    for k, iv in enumerate(m.intervals):
        t.add(DATA, time=end_time(m, k), **row([k], float(iv.len_ns)))
    t.add(MEAN, time=MEAN, **row(range(len(m.intervals)), float(max(1, m.duration_ns))))
    r.tables.append(t)
    data = [row_ for row_ in t.rows if row_["_kind"] == DATA]
    x = xs(m)
    r.plots.append(Plot("PR/SM management time", "% of one physical core", x,
                        {"this LPAR": [row_["lpmgt"] for row_ in data], "CPC": [row_["cpcmgt"] for row_ in data]}))
    r.plots.append(Plot("Unparked logical cores", "cores", x,
                        {"all": [row_["unparked"] for row_ in data], "vertical-low": [row_["unparked_vl"] for row_ in data]}))
    r.notes.append("%LPmgt: PR/SM dispatches x PR/SM time per dispatch, percent of one physical core (CPC: all "
                   "LPARs, the partners' dispatches estimated from their demand). Logical %Busy and %Susp: this "
                   "LPAR's logical processors summed (100 = one processor). Unprk: time-averaged unparked cores.")


def _cap_cells(lp: dict) -> dict:
    c = lp.get("capping")
    if not c:
        return {"cap": "No", "capcores": None}
    parts = (["Init"] if c["initial"] else []) + ([f"Abs {c['abscap']:g}"] if c["abscap"] else []) \
        + ([f"Grp {c['group']}"] if c["group"] else [])
    return {"cap": " ".join(parts), "capcores": c["cap_cores"]}


# -- FCX126 LPAR ---------------------------------------------------------------------------------

@report("FCX126", "LPAR", "Logical Partition Activity",
        "per LPAR of the CPC: logical processors, weight, entitlement, polarization; this LPAR's busy, "
        "suspended and PR/SM management time")
def lpar(m: Measurements, r: Report) -> None:
    cols = [Column("name", ("Partition", "Name"), "text", 9),
            Column("nr", ("", "Nr."), "int", 3),
            Column("procs", ("#", "Proc"), "int", 4),
            Column("weight", ("", "Weight"), "int", 6),
            Column("ent", ("Entitle", "ment"), "ratio", 7),
            Column("ded", ("", "Ded"), "text", 3),
            Column("vh", ("", "Vh"), "int", 3, "Polarization"),
            Column("vm", ("", "Vm"), "int", 3, "Polarization"),
            Column("vl", ("", "Vl"), "int", 3, "Polarization"),
            Column("hz", ("", "Hz"), "int", 3, "Polarization"),
            Column("busy", ("", "%Busy"), "pct", 7, "Load"),
            Column("susp", ("", "%Susp"), "pct", 7, "Load"),
            Column("lpmgt", ("", "%LPmgt"), "pct", 6, "Load")]
    capping = any(lp.get("capping") for lp in m.lpars)
    if capping:  # issue 18: only with a capped LPAR (the uncapped report keeps its layout)
        cols += [Column("cap", ("", "Capping"), "text", 14, "Capping"),
                 Column("capcores", ("Cap", "Cores"), "ratio", 6, "Capping", extension=True)]
    t = Table("lpars", cols, key=("name",))
    if not m.lpars:
        r.notes.append("No LPAR records (D15 R7 ZVMCUP) in the data: the report needs a run with a [cpc].")
        r.tables.append(t)
        return
    dur = float(max(1, m.duration_ns))
    for lp in m.lpars:
        own = lp["self"]
        t.add(DATA, name=lp["name"] + ("*" if own else ""), nr=lp["number"], procs=lp["logical"],
              weight=None if lp["dedicated"] else lp["weight"], ent=lp["entitlement"],
              ded="Yes" if lp["dedicated"] else "No", vh=lp["vh"], vm=lp["vm"], vl=lp["vl"], hz=lp["hz"],
              busy=pct(ssum(ssum(m.busy_ns[c]) for c in m.cpus), dur) if own else None,
              susp=pct(ssum(ssum(m.prp[c]["susp"]) for c in m.cpus), dur) if own and m.prp else None,
              lpmgt=pct(ssum(m.phys["lpmgt"]), dur) if own and m.phys else None,
              **(_cap_cells(lp) if capping else {}))
    t.add(TOTAL, name=TOTAL, nr=None, procs=sum(lp["logical"] or 0 for lp in m.lpars),
          weight=sum(lp["weight"] or 0 for lp in m.lpars if not lp["dedicated"]),
          ent=sum(lp["entitlement"] or 0.0 for lp in m.lpars), ded="",
          vh=sum(lp["vh"] or 0 for lp in m.lpars), vm=sum(lp["vm"] or 0 for lp in m.lpars),
          vl=sum(lp["vl"] or 0 for lp in m.lpars), hz=sum(lp["hz"] or 0 for lp in m.lpars), busy=None, susp=None,
          lpmgt=pct(ssum(m.phys["cpcmgt"]), dur) if m.phys else None,
          **({"cap": "", "capcores": None} if capping else {}))
    r.tables.append(t)
    rows = [row for row in t.rows if row["_kind"] == DATA]
    r.plots.append(Plot("Entitlement and logical processors per LPAR", "cores", [float(i) for i in range(len(rows))],
                        {"Entitlement": [row["ent"] for row in rows], "Logical": [row["procs"] for row in rows]},
                        kind="bar", categories=[row["name"] for row in rows], xlabel="partition"))
    phys = m.phys_info
    r.notes.append(f"* = the LPAR this z/VM runs in. Physical cores: {phys.get('shared')} shared, "
                   f"{phys.get('dedicated')} dedicated. Entitlement in cores (weight share of the shared pool). "
                   "%Busy, %Susp: this LPAR's logical processors summed (100 = one processor); %LPmgt: PR/SM "
                   "time, percent of one physical core (>System<: the CPC). The partners' load is not in the "
                   "data ('...').")
