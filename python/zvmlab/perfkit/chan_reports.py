"""Channel reports (issue 22): FCX107 CHANNEL (channel path load by interval) and FCX131 DEVCONF
(device configuration: paths, active-time measurement, PAV aliases and their state changes),
from zvmlab's D15R13 ZVMCHP, D15R14 ZVMDCH and D15R15 ZVMSTC (monitor/channels.py).

%Busy of a path is the share of the interval with an I/O in connect on it (for FICON, whose
I/Os share the path, the share of its capacity in use, like Perfkit's work-unit utilization),
Total for all LPARs of a [cpc] sharing it, LPAR for this one's I/Os (each counts its share);
I/O/s counts the connects that started on the path, MB/s the bytes they moved, Conc the mean
I/Os in connect at once (FICON open exchanges in data transfer; 1 at most on ESCON).
"""

from __future__ import annotations

from ..monitor.derive import Measurements
from .model import DATA, MEAN, Column, Plot, Report, Table
from .reports import TIME_COL, end_time, report, ssum, xs


def _div(a, b):
    return None if a is None or b is None or not b else a / b


def _path_figures(m: Measurements, chpid: int, ks, secs: float) -> dict:
    c = {key: ssum(m.chp[chpid][key][k] for k in ks) for key in m.chp[chpid]}
    return {"busy": None if c["busy"] is None else 100.0 * c["busy"] / 1e9 / secs,
            "own": None if c.get("own") is None else 100.0 * c["own"] / 1e9 / secs,
            "prate": _div(c.get("partner"), secs),
            "rate": _div(c["ios"], secs),
            "mbs": None if c["bytes"] is None else c["bytes"] / 1e6 / secs,
            "conc": None if c["conc"] is None else c["conc"] / 1e9 / secs}


@report("FCX107", "CHANNEL", "Channel Load",
        "per channel path (CHPID) by interval: %busy, I/Os and MB per second, mean I/Os in connect")
def channel(m: Measurements, r: Report) -> None:
    cols = [TIME_COL, Column("chpid", ("", "CHPID"), "text", 5), Column("type", ("Chan", "Type"), "text", 16),
            Column("busy", ("Total", "%Busy"), "pct", 6),
            Column("own", ("LPAR", "%Busy"), "pct", 6),
            Column("prate", ("Other", "I/O/s"), "rate", 8, extension=True),
            Column("rate", ("I/O", "/s"), "rate", 8, extension=True),
            Column("mbs", ("MB", "/s"), "num", 7, extension=True),
            Column("conc", ("Mean", "Conc"), "num", 6, extension=True)]
    t = Table("channels", cols, key=("time", "chpid"))
    if not m.chp:
        r.notes.append("No channel path records (D15 R13 ZVMCHP) in the data: a run needs [[chpid]] tables and "
                       "[cu] paths.")
        r.tables.append(t)
        return
    chpids = sorted(m.chp)
    for k, iv in enumerate(m.intervals):
        for c in chpids:
            t.add(DATA, time=end_time(m, k), chpid=f"{c:02X}", type=m.chp_info[c]["type"],
                  **_path_figures(m, c, [k], iv.len_ns / 1e9))
    secs = max(1, m.duration_ns) / 1e9
    for c in chpids:
        t.add(MEAN, time=MEAN, chpid=f"{c:02X}", type=m.chp_info[c]["type"],
              **_path_figures(m, c, range(len(m.intervals)), secs))
    r.tables.append(t)
    per = {c: [_path_figures(m, c, [k], iv.len_ns / 1e9) for k, iv in enumerate(m.intervals)] for c in chpids}
    r.plots.append(Plot("Channel busy by CHPID", "% busy", xs(m),
                        {f"{c:02X}": [f["busy"] for f in per[c]] for c in chpids}))
    delayed = max((i.get("cu_delayed") or 0 for i in m.chp_info.values()), default=0)
    most = ", ".join(f"{c:02X} {m.chp_info[c]['max_conc']}" for c in chpids)
    r.notes.append(f"Most I/Os in connect at once: {most}. Starts that found no path of the control unit free "
                   f"(they waited, adding to pend): {delayed} in the run so far. * = zvmlab addition: I/O/s, MB/s "
                   "and Mean Conc (Perfkit's FCX215 FCHANNEL shows FICON's measurement units instead), Other I/O/s: the "
                   "starts of the [cpc]'s other LPARs on a shared path.")


@report("FCX131", "DEVCONF", "I/O Device Configuration",
        "per device behind channel paths or with static/dynamic PAV: paths, active-time measurement, "
        "PAV aliases and the alias moves (state changes)")
def devconf(m: Measurements, r: Report) -> None:
    cols = [Column("addr", ("", "Addr"), "text", 4), Column("volser", ("Device", "Volser"), "text", 6),
            Column("type", ("", "Type"), "text", 4), Column("paths", ("Chan", "Paths"), "int", 5),
            Column("actm", ("Act", "Time"), "text", 4), Column("pav", ("PAV", "Alias"), "int", 5),
            Column("moved_in", ("Alias", "In"), "int", 5, "Moved"),
            Column("moved_out", ("Alias", "Out"), "int", 5, "Moved")]
    t = Table("devices", cols, key=("addr",))
    if not m.dev_chan:
        r.notes.append("No device channel records (D15 R14 ZVMDCH) in the data: a run needs channel paths or "
                       "[cu] pav = \"static\" | \"dynamic\".")
        r.tables.append(t)
        return
    for d in sorted(m.dev_chan):
        c, info = m.dev_chan[d], m.dev_info.get(d, {})
        t.add(DATA, addr=f"{d:04X}", volser=info.get("name", ""), type=info.get("type", ""),
              paths=c["paths"] if c["channel"] else None,
              actm=("HW" if c["hw_active"] else "SW") if c["channel"] else "",
              pav=c["aliases"] if c["pav"] else None,
              moved_in=sum(1 for x in m.pav_moves if x["to"] == d) if c["pav"] else None,
              moved_out=sum(1 for x in m.pav_moves if x["from"] == d) if c["pav"] else None)
    r.tables.append(t)
    r.notes.append("Chan Paths: the control unit's channel paths; Act Time: device active time measured by the "
                   "channel subsystem (HW, FICON paths here) or computed by CP (SW); PAV Alias: alias exposures "
                   "bound to the base at the last sample; Moved: aliases moved (state changes) to and from the base by "
                   f"workload management (dynamic PAV), {len(m.pav_moves)} in all.")
