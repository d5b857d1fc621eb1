"""Channel paths and PAV from zvmlab's records (issue 22): D15R13 ZVMCHP per channel path,
D15R14 ZVMDCH per device behind paths or a PAV base, D15R15 ZVMSTC per PAV alias move.

Fills ``Measurements.chp`` (per CHPID, one value per interval of CHP_COLS, durations in ns),
``chp_info`` (type, slots, the most I/Os in connect at once), ``dev_chan`` (per device number:
behind paths, active time measured by hardware, paths, PAV aliases at the last sample) and
``pav_moves`` (one dict per state change: interval index, time, from and to device numbers).
"""

from __future__ import annotations

from .derive import Measurements, tod_ns
from .reader import MonitorData

# ZVMCHP counters (cumulative): key, field, kind.
CHP_COLS = (("ios", "ZVMCHP_IOS", "uint"), ("bytes", "ZVMCHP_BYTES", "uint"),
            ("busy", "ZVMCHP_BUSYTM", "tod"), ("conc", "ZVMCHP_CONCTM", "tod"),
            ("own", "ZVMCHP_OWNBUSY", "tod"), ("partner", "ZVMCHP_PARTIOS", "uint"))
CHP_TYPES = {1: "ESCON", 2: "FICON", 3: "FICON Express8S", 4: "FICON Express16S"}
DCHFLAG_HWACTIVE = 0x80
DCHFLAG_CHANNEL = 0x40
DCHFLAG_PAV = 0x20


def _value(v: int | None, kind: str) -> int | None:
    if v is None:
        return None
    return tod_ns(v) if kind == "tod" else v


def add_channels(data: MonitorData, m: Measurements) -> None:
    """Channel and PAV figures per interval of ``m`` (nothing in data without the records)."""
    ends = {iv.end_tod: k for k, iv in enumerate(m.intervals)}
    interval_of = {g: ends.get(grp["tod"]) for g, grp in enumerate(data.groups)}
    cum: dict[int, dict[int, dict]] = {}
    for r in data.rows("ZVMCHP"):
        k, chpid = interval_of.get(r["group"]), r.get("ZVMCHP_CHPID")
        if chpid is None:
            continue
        m.chp_info[chpid] = {"type": CHP_TYPES.get(r.get("ZVMCHP_TYPE") or 0, "?"), "slots": r.get("ZVMCHP_SLOTS"),
                             "max_conc": r.get("ZVMCHP_MAXCONC"), "cu_delayed": r.get("ZVMCHP_CUDELAY")}
        if k is not None:
            cum.setdefault(chpid, {})[k] = {key: _value(r.get(col), kind) for key, col, kind in CHP_COLS}
    n = len(m.intervals)
    for chpid, by_k in cum.items():
        series: dict[str, list] = {key: [] for key, _, _ in CHP_COLS}
        prev: dict = {key: 0 for key, _, _ in CHP_COLS}
        for k in range(n):
            cur = by_k.get(k)
            for key, _, _ in CHP_COLS:
                v = None if cur is None else cur.get(key)
                p = prev.get(key)
                series[key].append(None if v is None or p is None or v < p else v - p)
                if v is not None:
                    prev[key] = v
        m.chp[chpid] = series
    for r in data.rows("ZVMDCH"):
        d = r.get("ZVMDCH_DEVNO")
        if d is None:
            continue
        f = r.get("ZVMDCH_FLAGS") or 0
        m.dev_chan[d] = {"channel": bool(f & DCHFLAG_CHANNEL), "hw_active": bool(f & DCHFLAG_HWACTIVE),
                         "pav": bool(f & DCHFLAG_PAV), "paths": r.get("ZVMDCH_PATHS"),
                         "aliases": r.get("ZVMDCH_ALIASES")}
    for r in data.rows("ZVMSTC"):
        k = interval_of.get(r["group"])
        when = r.get("ZVMSTC_WHEN")
        m.pav_moves.append({"interval": k, "tod": when, "from": r.get("ZVMSTC_FROM"), "to": r.get("ZVMSTC_TO")})
