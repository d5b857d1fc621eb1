"""Transaction response time in the user report (FCX112), from a run directory's summary.

A real system's monitor data carries no per-transaction response time the reports could read,
and neither does the simulator's MONWRITE output: the figures come from the run summary
(``summary.json`` beside ``monitor.mon``, the engine's response-time recorder), so they appear
only when the report is made from a run directory. The columns are zvmlab additions (``*``).
"""

from __future__ import annotations

from .model import DATA, MEAN, TOTAL, Column, Report

_COLS = (Column("resp", ("Resp", "ms"), "num", 8, "Response *", unit="ms", extension=True),
         Column("p90", ("p90", "ms"), "num", 8, "Response *", unit="ms", extension=True),
         Column("triv", ("Triv", "/s"), "rate", 8, "Response *", extension=True),
         Column("ntriv", ("NTriv", "/s"), "rate", 8, "Response *", extension=True))


def augment(reports: list[Report], summary: dict | None) -> None:
    """Add the response-time columns to FCX112's table when ``summary`` has them."""
    if not summary or "response_ms" not in summary:
        return
    by_user = {u["userid"]: u.get("response_ms") or {} for u in summary.get("users", [])}
    dur = max(float(summary.get("duration_s") or 0.0), 1e-9)
    for r in reports:
        if r.fcx != "FCX112":
            continue
        for t in r.tables:
            if t.name != "users":
                continue
            t.columns = [*t.columns, *_COLS]
            for row in t.rows:
                src = by_user.get(row.get("userid")) if row["_kind"] == DATA else summary["response_ms"]
                if row["_kind"] == MEAN and src is summary["response_ms"]:
                    row.update(_cells(src, dur, per_user=len(by_user)))
                elif row["_kind"] in (DATA, TOTAL):
                    row.update(_cells(src, dur))
        r.notes.append("Resp ms, p90 ms: transaction response time (think time excluded), mean and 90th percentile; "
                       "Triv/NTriv /s: transactions ended in class E1 (trivial) or after a drop to E2/E3, per second "
                       "(from the run's summary.json; >>Mean>> is over all transactions).")


def _cells(r: dict | None, dur: float, per_user: int = 1) -> dict:
    if not r or not r.get("count"):
        return {"resp": None, "p90": None, "triv": None, "ntriv": None}
    n = max(per_user, 1)
    return {"resp": r["mean"], "p90": r["p90"], "triv": r["trivial"] / dur / n, "ntriv": r["nontrivial"] / dur / n}
