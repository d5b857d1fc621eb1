"""Device, paging-space and user-paging reports: FCX108 DEVICE, FCX109 DEVICE CPOWNED, FCX146
AUXLOG and FCX113 UPAGE, from zvmlab's D15R5 ZVMDEV and D15R2 ZVMDVC, IBM's D3R4 MRSTOASP, and
zvmlab's D15R6 ZVMSTO and the paging fields of D15R4 ZVMUSE.

Figures follow the run summary's definitions, so the reports agree with summary.json: an I/O
rate is SSCHs per second (the engine counts an I/O when it starts), a time per I/O is the
component's total divided by the SSCH count (pend, disconnect, connect, service = their sum
with any device-internal wait, response = service + queue), %busy is service time per second
per exposure, and pages per second are STORSG page reads and writes per second (the summary's
storage.moves_per_s).
"""

from __future__ import annotations

from ..monitor.derive import Measurements, base_busy
from .model import DATA, MEAN, TOTAL, Column, Plot, Report, Table
from .reports import TIME_COL, end_time, report, ssum, xs

_MS = 1e6


def _div(a, b):
    return None if a is None or b is None or not b else a / b


def _dev_figures(m: Measurements, d: int, ks, secs: float) -> dict:
    """A device's figures over the intervals ``ks`` lasting ``secs`` seconds in all."""
    c = {key: ssum(m.dev[d][key][k] for k in ks) for key in m.dev[d]}
    n = c["ssch"]
    exp = m.dev_info[d].get("exposures") or 1
    ms = lambda key: None if c[key] is None or n is None else (c[key] / n / _MS if n else 0.0)  # noqa: E731
    return {
        "rate": _div(n, secs),
        "pages": _div(c["blocks"], secs),
        "reads": _div(c["reads"], secs),
        "writes": _div(c["writes"], secs),
        "ppio": None if n is None or c["blocks"] is None else (c["blocks"] / n if n else 0.0),
        "pend": ms("pend"), "disc": ms("disc"), "conn": ms("conn"), "serv": ms("busy"),
        "resp": None if c["busy"] is None or c["queue"] is None or n is None
        else ((c["busy"] + c["queue"]) / n / _MS if n else 0.0),
        "busy": None if c["busy"] is None else 100.0 * base_busy(c) / 1e9 / (secs * exp),
        "qued": None if c["queue"] is None else c["queue"] / 1e9 / secs,
        "_c": c,
    }


def _all(m: Measurements) -> range:
    return range(len(m.intervals))


def _secs(m: Measurements) -> float:
    return max(1, m.duration_ns) / 1e9


def _use(info: dict) -> str:
    return "PAGE" if info["paging"] else ("MDSK" if info["minidisk"] else "")


def _no_devices(m: Measurements, r: Report) -> bool:
    n = m.skipped.get((6, 3), 0)
    if n:
        r.notes.append(f"{n} device activity records (D6 R3 MRIODDEV) in the data, but their fields are not in "
                       f"IBM's public layout excerpts (docs/research/monitor-layouts.md): device figures '...'.")
    if not m.devs:
        if not n:
            r.notes.append("No device activity records (D15 R5 ZVMDEV) in the data.")
        return True
    return False


# -- FCX108 DEVICE -------------------------------------------------------------------------------

@report("FCX108", "DEVICE", "General I/O Device Load and Performance",
        "per device, whole period: I/O rate, pend/disconnect/connect/service/response ms, %busy")
def device(m: Measurements, r: Report) -> None:
    cols = [Column("addr", ("", "Addr"), "text", 4),
            Column("volser", ("Device", "Volser"), "text", 6),
            Column("type", ("", "Type"), "text", 4),
            Column("use", ("", "Use"), "text", 4),
            Column("exp", ("", "Exp"), "int", 3),
            Column("rate", ("Rate", "/s"), "rate", 8, "I/O"),
            Column("pages", ("Blks", "/s"), "rate", 8, "I/O", extension=True),
            Column("pend", ("", "Pend"), "num", 6, "Time (msec)"),
            Column("disc", ("", "Disc"), "num", 6, "Time (msec)"),
            Column("conn", ("", "Conn"), "num", 6, "Time (msec)"),
            Column("serv", ("", "Serv"), "num", 6, "Time (msec)"),
            Column("resp", ("", "Resp"), "num", 6, "Time (msec)"),
            Column("busy", ("", "%Busy"), "pct", 5),
            Column("qued", ("Req.", "Qued"), "num", 6)]
    t = Table("devices", cols, key=("addr",))
    if _no_devices(m, r):
        r.tables.append(t)
        return
    secs, ks = _secs(m), _all(m)
    for d in m.devs:
        info, f = m.dev_info[d], _dev_figures(m, d, ks, secs)
        t.add(DATA, addr=f"{d:04X}", volser=info["name"], type=info["type"], use=_use(info),
              exp=info.get("exposures"), **{k: v for k, v in f.items() if k in {c.key for c in cols}})
    # all devices: rates add up, times are per I/O over all I/Os
    tot = {key: ssum(ssum(m.dev[d][key]) for d in m.devs) for key in m.dev[m.devs[0]]}
    n = tot["ssch"] or 0
    per = lambda key: None if tot[key] is None else (tot[key] / n / _MS if n else 0.0)  # noqa: E731
    exps = [m.dev_info[d].get("exposures") or 1 for d in m.devs]
    t.add(TOTAL, addr=TOTAL, volser="", type="", use="", exp=sum(exps), rate=_div(tot["ssch"], secs),
          pages=_div(tot["blocks"], secs), pend=per("pend"), disc=per("disc"), conn=per("conn"),
          serv=per("busy"),
          resp=None if tot["busy"] is None or tot["queue"] is None else ((tot["busy"] + tot["queue"]) / n / _MS
                                                                         if n else 0.0),
          busy=None if tot["busy"] is None else 100.0 * base_busy(tot) / 1e9 / (secs * sum(exps)),
          qued=None if tot["queue"] is None else tot["queue"] / 1e9 / secs)
    r.tables.append(t)
    x = xs(m)
    per_iv = {d: [_dev_figures(m, d, [k], m.intervals[k].len_ns / 1e9) for k in ks] for d in m.devs}
    label = lambda d: f"{d:04X} {m.dev_info[d]['name']}"  # noqa: E731
    r.plots.append(Plot("I/O rate by device", "SSCH/s", x, {label(d): [f["rate"] for f in per_iv[d]] for d in m.devs}))
    r.plots.append(Plot("Response time by device", "ms per I/O", x,
                        {label(d): [f["resp"] for f in per_iv[d]] for d in m.devs}))
    r.plots.append(Plot("Device busy", "% busy per exposure", x,
                        {label(d): [f["busy"] for f in per_iv[d]] for d in m.devs}))
    r.notes.append("Rate: SSCHs per second, counted when an I/O starts. Serv = device service per I/O (pend + "
                   "disconnect + connect), Resp = Serv + queue wait; %Busy: service time per exposure (>System<: of all exposures), the "
                   "bases' own (I/Os run on HyperPAV aliases are in FCX327 HPALIAS); Req. Qued: "
                   "average requests queued. Use: PAGE = CP paging volume, MDSK = minidisk volume. * = zvmlab "
                   "addition: blocks (pages) moved per second.")


# -- FCX109 DEVICE CPOWNED -----------------------------------------------------------------------

@report("FCX109", "CPOWNED", "Load and Performance of CP Owned Disks",
        "per paging volume, whole period: slots, page I/O rate, pages per SSCH, response, %busy")
def cpowned(m: Measurements, r: Report) -> None:
    cols = [Column("addr", ("Dev", "Addr"), "text", 4),
            Column("volser", ("Volume", "Serial"), "text", 6),
            Column("area", ("Area", "Type"), "text", 4),
            Column("slots", ("Total", "Slots"), "int", 8),
            Column("used", ("Used", "%"), "pct", 5),
            Column("pgread", ("", "Read"), "rate", 8, "Page Rate"),
            Column("pgwrite", ("", "Write"), "rate", 8, "Page Rate"),
            Column("rate", ("SSCH", "/s"), "rate", 8),
            Column("ppio", ("Pages", "/SSCH"), "num", 6),
            Column("rd", ("Rd", "SSCH/s"), "rate", 8, extension=True),
            Column("wr", ("Wr", "SSCH/s"), "rate", 8, extension=True),
            Column("serv", ("Serv", "msec"), "num", 6),
            Column("resp", ("Resp", "msec"), "num", 6),
            Column("busy", ("", "%Busy"), "pct", 5)]
    t = Table("volumes", cols, key=("addr",))
    paging = [d for d in m.devs if m.dev_info[d]["paging"]]
    if not paging:
        r.notes.append("No CP-owned paging volumes in the data (D15 R2 ZVMDVC with the paging flag).")
        r.tables.append(t)
        return
    secs, ks = _secs(m), _all(m)
    for d in paging:
        info, f = m.dev_info[d], _dev_figures(m, d, ks, secs)
        t.add(DATA, addr=f"{d:04X}", volser=info["name"], area="PAGE", slots=info.get("slots"), used=None,
              pgread=None, pgwrite=None, rate=f["rate"], ppio=f["ppio"], rd=f["reads"], wr=f["writes"],
              serv=f["serv"], resp=f["resp"], busy=f["busy"])
    c = {key: ssum(ssum(m.dev[d][key]) for d in paging) for key in m.dev[paging[0]]}
    n = c["ssch"] or 0
    nexp = sum(m.dev_info[d].get("exposures") or 1 for d in paging)
    slots = [m.dev_info[d].get("slots") for d in paging]
    used = (m.sto_level.get("slots_used") or [None])[-1] if m.has_storage else None
    total = (m.sto_level.get("slots") or [None])[-1] if m.has_storage else None
    t.add(TOTAL, addr=TOTAL, volser="", area="PAGE", slots=None if None in slots else sum(slots),
          used=None if used is None or not total else 100.0 * used / total,
          pgread=_div(ssum(m.sto["pgreads"]), secs) if m.has_storage else None,
          pgwrite=_div(ssum(m.sto["pgwrites"]), secs) if m.has_storage else None,
          rate=_div(c["ssch"], secs), ppio=_div(c["blocks"], n), rd=_div(c["reads"], secs),
          wr=_div(c["writes"], secs), serv=None if c["busy"] is None else (c["busy"] / n / _MS if n else 0.0),
          resp=None if c["busy"] is None or c["queue"] is None else ((c["busy"] + c["queue"]) / n / _MS
                                                                     if n else 0.0),
          busy=None if c["busy"] is None else 100.0 * base_busy(c) / 1e9 / (secs * nexp))
    r.tables.append(t)
    rows = [row for row in t.rows if row["_kind"] == DATA]
    r.plots.append(Plot("Page I/O per volume (whole period)", "SSCH/s", [float(i) for i in range(len(rows))],
                        {"Read SSCH/s": [row["rd"] for row in rows], "Write SSCH/s": [row["wr"] for row in rows]},
                        kind="bar", categories=[row["volser"] for row in rows], xlabel="volume"))
    r.notes.append("Page Rate and Used %: pages read and written per second and slots in use at the end, for "
                   "the system (D15 R6 ZVMSTO); the data has them per volume only as I/Os, shown as * = zvmlab "
                   "additions Rd/Wr SSCH/s. Total Slots from D3 R4 MRSTOASP.")


# -- FCX146 AUXLOG -------------------------------------------------------------------------------

@report("FCX146", "AUXLOG", "Auxiliary Storage Utilization, by Time",
        "per interval: page slots used, pages read and written per second, paging SSCH rate, "
        "pages per SSCH, response")
def auxlog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL,
            Column("slots", ("Total", "Slots"), "int", 8, "Paging Space"),
            Column("used", ("Used", "%"), "pct", 5, "Paging Space"),
            Column("reads", ("Reads", "/s"), "rate", 9, "Pages"),
            Column("writes", ("Writes", "/s"), "rate", 9, "Pages"),
            Column("moves", ("Total", "/s"), "rate", 9, "Pages"),
            Column("rate", ("SSCH", "/s"), "rate", 8, "Paging Volume I/O"),
            Column("ppio", ("Pages", "/SSCH"), "num", 6, "Paging Volume I/O"),
            Column("resp", ("Resp", "msec"), "num", 6, "Paging Volume I/O"),
            Column("busy", ("Avg", "%Busy"), "pct", 5, "Paging Volume I/O")]
    t = Table("intervals", cols, key=("time",))
    if not m.has_storage:
        r.notes.append("No storage records (D15 R6 ZVMSTO) in the data.")
        r.tables.append(t)
        return
    paging = [d for d in m.devs if m.dev_info[d]["paging"]]
    nexp = sum(m.dev_info[d].get("exposures") or 1 for d in paging) or 1

    def row(ks, secs, slots, used) -> dict:
        rd, wr = ssum(m.sto["pgreads"][k] for k in ks), ssum(m.sto["pgwrites"][k] for k in ks)
        c = {key: ssum(m.dev[d][key][k] for d in paging for k in ks)
             for key in ("ssch", "blocks", "busy", "busy_el", "queue", "alias")}
        n = c["ssch"]
        return {"slots": slots, "used": None if used is None or not slots else 100.0 * used / slots,
                "reads": _div(rd, secs), "writes": _div(wr, secs),
                "moves": None if rd is None or wr is None else (rd + wr) / secs,
                "rate": _div(n, secs) if paging else None,
                "ppio": _div(c["blocks"], n) if paging else None,
                "resp": _div(None if c["busy"] is None or c["queue"] is None else (c["busy"] + c["queue"]) / _MS, n)
                if paging else None,
                "busy": None if c["busy"] is None or not paging else 100.0 * base_busy(c) / 1e9 / (secs * nexp)}

    for k, iv in enumerate(m.intervals):
        t.add(DATA, time=end_time(m, k), **row([k], iv.len_ns / 1e9, m.sto_level["slots"][k],
                                                m.sto_level["slots_used"][k]))
    used = [v for v in m.sto_level["slots_used"] if v is not None]
    t.add(MEAN, time=MEAN, **row(_all(m), _secs(m), m.sto_level["slots"][-1] if m.intervals else None,
                                 sum(used) / len(used) if used else None))
    r.tables.append(t)
    data = [row_ for row_ in t.rows if row_["_kind"] == DATA]
    x = xs(m)
    r.plots.append(Plot("Paging rate", "pages/s", x, {"Reads/s": [row_["reads"] for row_ in data],
                                                      "Writes/s": [row_["writes"] for row_ in data]}))
    r.plots.append(Plot("Paging space in use", "% of slots", x, {"Used %": [row_["used"] for row_ in data]}))
    r.notes.append("Pages: read from and written to the paging volumes per second (D15 R6 ZVMSTO). Paging "
                   "Volume I/O: all CP-owned paging volumes together (D15 R5 ZVMDEV); Avg %Busy per exposure. "
                   "The >>Mean>> row's Used % is the mean of the interval samples.")


# -- FCX113 UPAGE --------------------------------------------------------------------------------

@report("FCX113", "UPAGE", "User Paging Activity and Storage Utilization",
        "per user, whole period: page reads and writes per second, resident pages")
def upage(m: Measurements, r: Report) -> None:
    cols = [Column("userid", ("", "Userid"), "text", 8),
            Column("reads", ("", "Reads"), "rate", 8, "Page Rate /s"),
            Column("writes", ("", "Writes"), "rate", 8, "Page Rate /s"),
            Column("resid", ("Mean", "Resid"), "int", 9, "Number of Pages"),
            Column("resend", ("End", "Resid"), "int", 9, "Number of Pages", extension=True)]
    t = Table("users", cols, key=("userid",))
    if not m.has_storage or not m.upg:
        for u in sorted(m.users) if not m.has_storage and not m.user_info else ():
            t.add(DATA, userid=u)  # a real system's users (MRUSEACT): their paging is not in the data
        r.notes.append("No per-user paging data (D15 R4 ZVMUSE paging fields, with D15 R6 ZVMSTO) in the data"
                       + (": the users' figures are '...'." if t.rows else "."))
        r.tables.append(t)
        return
    secs = _secs(m)
    for u in sorted(m.users):
        p = m.upg[u]
        res = [v for v in p["resident"] if v is not None]
        t.add(DATA, userid=u, reads=_div(ssum(p["pgreads"]), secs), writes=_div(ssum(p["pgsteals"]), secs),
              resid=sum(res) / len(res) if res else None, resend=p["resident"][-1] if p["resident"] else None)
    data = list(t.rows)
    if data:
        n = len(data)

        def agg(key, f):
            vals = [row[key] for row in data if row[key] is not None]
            return f(vals) if vals else None

        t.add(MEAN, userid=MEAN, **{c.key: agg(c.key, lambda v: sum(v) / n) for c in cols[1:]})
        t.add(TOTAL, userid=TOTAL, **{c.key: agg(c.key, sum) for c in cols[1:]})
    r.tables.append(t)
    top = sorted(m.users, key=lambda u: -(ssum(m.upg[u]["pgreads"]) or 0))[:12]
    r.plots.append(Plot("Page reads by user" + (" (12 busiest)" if len(m.users) > 12 else ""), "pages/s", xs(m),
                        {u: [_div(v, iv.len_ns / 1e9) for v, iv in zip(m.upg[u]["pgreads"], m.intervals)]
                         for u in top}, kind="stack"))
    r.plots.append(Plot("Resident pages by user", "pages", xs(m), {u: m.upg[u]["resident"] for u in top}))
    r.notes.append("Reads: pages read back from DASD (page faults); Writes: pages stolen from the user and "
                   "written to DASD (CP writes them in blocks, so the system's write count lags by the pages "
                   "waiting for a block). Mean Resid: mean of the interval samples. * = zvmlab addition.")


# -- FCX327 HPALIAS -------------------------------------------------------------------------------

@report("FCX327", "HPALIAS", "HyperPAV Alias Activity",
        "the control unit's HyperPAV alias pool by interval: aliases, SET CU shares and entitlements, "
        "aliases in use (mean, max) and taken, I/Os that queued, for paging and minidisk I/O")
def hpalias(m: Measurements, r: Report) -> None:
    """From zvmlab's D15R9 ZVMHPP. The FCX number and name
    are Perfkit's HyperPAV alias report's as remembered, not checked against IBM's list."""
    cols = [TIME_COL, Column("aliases", ("", "Alias"), "int", 5)]
    for g, sfx in (("Paging", "_pg"), ("Minidisk", "_md")):
        cols += [Column("ent" + sfx, ("Entl", "Alias"), "num", 6, g),
                 Column("use" + sfx, ("Mean", "InUse"), "num", 6, g),
                 Column("max" + sfx, ("Max", "InUse"), "int", 5, g),
                 Column("take" + sfx, ("Taken", "/sec"), "rate", 8, g),
                 Column("queue" + sfx, ("Queued", "/sec"), "rate", 8, g)]
    t = Table("pool", cols, key=("time",))
    info, h = m.hpp_info, m.hpp
    if not info or not h:
        r.notes.append("No HyperPAV pool records (D15 R9 ZVMHPP) in the data: a run needs a [cu] with aliases.")
        r.tables.append(t)
        return

    def row(ks, secs) -> dict:
        out = {"aliases": info["aliases"], "ent_pg": info["ent_pg"], "ent_md": info["ent_md"]}
        for sfx in ("_pg", "_md"):
            use = ssum(h["inuse" + sfx][k] for k in ks)
            out["use" + sfx] = None if use is None else use / (secs * 1e9)
            out["take" + sfx] = _div(ssum(h["taken" + sfx][k] for k in ks), secs)
            out["queue" + sfx] = _div(ssum(h["queued" + sfx][k] for k in ks), secs)
            mx = [h["max" + sfx][k] for k in ks if h["max" + sfx][k] is not None]
            out["max" + sfx] = max(mx) if mx else None
        return out

    for k, iv in enumerate(m.intervals):
        t.add(DATA, time=end_time(m, k), **row([k], iv.len_ns / 1e9))
    t.add(MEAN, time=MEAN, **row(range(len(m.intervals)), max(1, m.duration_ns) / 1e9))
    r.tables.append(t)
    x = xs(m)
    r.plots.append(Plot("Aliases in use by I/O type", "aliases", x,
                        {"paging": [row_["use_pg"] for row_ in t.rows if row_["_kind"] == DATA],
                         "minidisk": [row_["use_md"] for row_ in t.rows if row_["_kind"] == DATA]}, kind="stack"))
    r.notes.append(f"Pool of {info['aliases']} aliases; SET PAGING ALIAS {'ON' if info['paging_alias'] else 'OFF'}; "
                   f"SET CU SHARE paging {info['share_pg']:g} : minidisk {info['share_md']:g}. Entl Alias: the "
                   "type's entitlement (aliases x share / sum of shares); Mean InUse: aliases busy with the type's "
                   "I/O on average; Taken: aliases given to an I/O per second; Queued: I/Os per second that "
                   "found no exposure (base or alias) they could use and waited on their volume.")


# -- FCX178 MDCSTOR -------------------------------------------------------------------------------

@report("FCX178", "MDCSTOR", "Minidisk Cache Storage Usage, by Time",
        "the minidisk cache by interval: maximum and target size, frames in use below and above "
        "2 GB, reads, hits and hit ratio, inserts and steals per second")
def mdcstor(m: Measurements, r: Report) -> None:
    """From the minidisk-cache fields of zvmlab's D15R6 ZVMSTO (IBM's MDC fields are not
    transcribed). Sizes in MB as Perfkit shows storage; rates per second."""
    mb = lambda f: None if f is None else f * 4096 / 2**20  # noqa: E731
    cols = [TIME_COL,
            Column("max", ("Max", "MB"), "num", 8, "Cache size"),
            Column("target", ("Target", "MB"), "num", 8, "Cache size"),
            Column("below", ("<2GB", "MB"), "num", 8, "Cache size"),
            Column("above", (">2GB", "MB"), "num", 8, "Cache size"),
            Column("reads", ("Reads", "/sec"), "rate", 9, "Read activity"),
            Column("hits", ("Hits", "/sec"), "rate", 9, "Read activity"),
            Column("ratio", ("Hit", "Ratio"), "num", 6, "Read activity"),
            Column("inserts", ("Inserts", "/sec"), "rate", 9, "Cache changes"),
            Column("steals", ("Steals", "/sec"), "rate", 9, "Cache changes")]
    t = Table("mdc", cols, key=("time",))
    if not m.has_mdc:
        r.notes.append("No minidisk cache data (D15 R6 ZVMSTO) in the data: a run needs [mdc].")
        r.tables.append(t)
        return
    c = m.mdc

    def row(ks, secs, level_k) -> dict:
        reads, hits = ssum(c["reads"][k] for k in ks), ssum(c["hits"][k] for k in ks)
        return {"max": mb(c["max"][level_k]), "target": mb(c["target"][level_k]),
                "below": mb(c["below"][level_k]), "above": mb(c["above"][level_k]),
                "reads": _div(reads, secs), "hits": _div(hits, secs),
                "ratio": None if reads is None or hits is None else (hits / reads if reads else 0.0),
                "inserts": _div(ssum(c["inserts"][k] for k in ks), secs),
                "steals": _div(ssum(c["steals"][k] for k in ks), secs)}

    for k, iv in enumerate(m.intervals):
        t.add(DATA, time=end_time(m, k), **row([k], iv.len_ns / 1e9, k))
    n = len(m.intervals)
    if n:
        mean = row(range(n), max(1, m.duration_ns) / 1e9, n - 1)
        for key in ("max", "target", "below", "above"):
            vals = [mb(v) for v in c[key] if v is not None]
            mean[key] = sum(vals) / len(vals) if vals else None
        t.add(MEAN, time=MEAN, **mean)
    r.tables.append(t)
    x = xs(m)
    data = [row_ for row_ in t.rows if row_["_kind"] == DATA]
    r.plots.append(Plot("Minidisk cache in use", "MB", x, {"below 2 GB": [d["below"] for d in data],
                                                          "above 2 GB": [d["above"] for d in data]}, kind="stack"))
    r.plots.append(Plot("Minidisk cache reads", "per second", x, {"reads": [d["reads"] for d in data],
                                                                 "hits": [d["hits"] for d in data]}))
    r.notes.append("Max: SET MDCACHE STORAGE maximum; Target: the arbiter's size at the interval end; <2GB / >2GB: "
                   "frames in use at the interval end; Hit Ratio: hits / reads; Steals: cache units dropped for room "
                   "or taken by CP's below-2GB search. Sizes in MB (4 KB frames).")
