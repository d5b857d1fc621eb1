"""FCX145 SCHEDLOG (Scheduler Queues by Time): the users on CP's dispatch list by transaction class
(Q0..Q3) and on its eligible list (E1..E3), with the loading users among them, at each sample.

The figures are IBM's D0R10 MRSYTSCG cardinal counts (the dispatch-list counts' places read on
IBM's mon440 page; the eligible-list and loading counts' in zpmd's later branch, read with the
same cumulative meaning: "class N or above"), so the report works on a real system's data as on
zvmlab's. They are counts at the sample (the interval's end), not averages over the interval:
the eligible list forming is what an analyst looks for first (a storage or DSPBUF barrier
holding users out of the dispatch list), and a count of 0 at every sample says it did not form
at those instants, not that it never did.
"""

from __future__ import annotations

from ..monitor.derive import Measurements
from .model import DATA, MEAN, Column, Plot, Report, Table
from .reports import TIME_COL, end_time, report, xs

_COLS = (("d_tot", "Total", "Users in Dispatch List"), ("q0", "Q0", "Users in Dispatch List"),
         ("q1", "Q1", "Users in Dispatch List"), ("q2", "Q2", "Users in Dispatch List"),
         ("q3", "Q3", "Users in Dispatch List"), ("d_ld", "Ldng", "Users in Dispatch List"),
         ("e_tot", "Total", "Users in Eligible List"), ("e1", "E1", "Users in Eligible List"),
         ("e2", "E2", "Users in Eligible List"), ("e3", "E3", "Users in Eligible List"),
         ("e_ld", "Ldng", "Users in Eligible List"))


def _minus(a, b):
    return None if a is None or b is None else a - b


def queues(s: dict, k: int) -> dict:
    """One sample's queues by class from MRSYTSCG's cumulative counts (None where a count is absent)."""
    v = {key: s[key][k] for key in s}
    return {"d_tot": v["dispatch"], "q0": _minus(v["dispatch"], v["q1up"]), "q1": _minus(v["q1up"], v["q2up"]),
            "q2": _minus(v["q2up"], v["q3up"]), "q3": v["q3up"], "d_ld": v["dispatch_ld"],
            "e_tot": v["e1up"], "e1": _minus(v["e1up"], v["e2up"]), "e2": _minus(v["e2up"], v["e3up"]),
            "e3": v["e3up"], "e_ld": v["e1up_ld"]}


def _mean(rows: list[dict], key: str):
    vals = [r[key] for r in rows if r[key] is not None]
    return sum(vals) / len(vals) if vals else None


@report("FCX145", "SCHEDLOG", "Scheduler Queues by Time",
        "per interval: users on the dispatch list by class (Q0..Q3) and on the eligible list (E1..E3), "
        "loading users, at the sample")
def schedlog(m: Measurements, r: Report) -> None:
    cols = [TIME_COL] + [Column(key, ("", head), "int", 5, group, unit="users") for key, head, group in _COLS]
    t = Table("queues", cols, key=("time",))
    r.tables.append(t)
    if not m.scg:
        r.notes.append("No scheduler records (D0 R10 MRSYTSCG) in the data: the queues are not known.")
        return
    rows = [queues(m.scg, k) for k in range(len(m.intervals))]
    for k, q in enumerate(rows):
        t.add(DATA, time=end_time(m, k), **q)
    t.add(MEAN, time=MEAN, **{key: _mean(rows, key) for key, _, _ in _COLS})
    r.plots.append(Plot("Users on the dispatch and eligible lists", "users", xs(m),
                        {"dispatch list": [q["d_tot"] for q in rows],
                         "eligible list": [q["e_tot"] for q in rows]}))
    r.notes.append("Counts at each interval's end (the sample), as CP counts them (D0 R10 MRSYTSCG); "
                   "the mean row averages the samples. Q0: QUICKDSP users (class 0, never held on the "
                   "eligible list); Q1..Q3 and E1..E3: short, medium and long-running transactions; "
                   "Ldng: loading users (paging heavily) among them. Test-idle users stay on the dispatch list.")
