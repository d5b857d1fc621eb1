"""Tidy tables: one row per observation, one typed column per variable, no summary rows mixed in.

A :class:`Frame` holds rows (dicts with the same keys) and converts to the usual data-frame
libraries: ``to_arrow()`` (pyarrow), ``to_pandas()``, ``to_polars()``; in a notebook it shows as
an HTML table (``_repr_html_``). :func:`run_tables` turns a run summary into the tables the
Python API (``Result.intervals``, ``.users``, ``.processors``, ``.devices``, ``.user_intervals``)
and ``zvmlab run --out`` (``tables/NAME.csv`` and ``.parquet``) give.
"""

from __future__ import annotations

import csv
import html
import io
import math
from pathlib import Path
from typing import Any, Iterator

_WAIT_STATES = ("running", "cpu_wait", "page_wait", "io_wait", "test_idle", "eligible", "limited", "dormant")
_RESP = ("mean", "p50", "p90", "p99")


class Frame:
    """A tidy table: ``columns`` (names in order) and ``rows`` (dicts keyed by those names)."""

    def __init__(self, name: str, columns: list[str], rows: list[dict[str, Any]]):
        self.name = name
        self.columns = list(columns)
        self.rows = [{c: r.get(c) for c in self.columns} for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __repr__(self) -> str:
        return f"<Frame {self.name}: {len(self.rows)} rows x {len(self.columns)} columns ({', '.join(self.columns)})>"

    def column(self, name: str) -> list[Any]:
        return [r[name] for r in self.rows]

    def to_arrow(self):
        """A pyarrow.Table (types inferred per column; None is null)."""
        import pyarrow as pa

        return pa.table({c: _array(pa, self.column(c)) for c in self.columns})

    def to_pandas(self):
        return self.to_arrow().to_pandas()

    def to_polars(self):
        import polars as pl

        return pl.from_arrow(self.to_arrow())

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for r in self.rows:
            w.writerow(["" if r[c] is None else (repr(r[c]) if isinstance(r[c], float) else r[c])
                        for c in self.columns])
        return buf.getvalue()

    def write(self, directory: Path) -> list[Path]:
        """``NAME.csv`` and ``NAME.parquet`` in ``directory``."""
        import pyarrow.parquet as pq

        csv_path, pq_path = directory / f"{self.name}.csv", directory / f"{self.name}.parquet"
        csv_path.write_text(self.to_csv())
        pq.write_table(self.to_arrow(), pq_path)
        return [csv_path, pq_path]

    def _repr_html_(self, max_rows: int = 40) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = []
        for r in self.rows[:max_rows]:
            body.append("<tr>" + "".join(f"<td>{html.escape(_fmt(r[c]))}</td>" for c in self.columns) + "</tr>")
        more = f"<p>{len(self.rows) - max_rows} more rows</p>" if len(self.rows) > max_rows else ""
        return (f"<p><b>{html.escape(self.name)}</b>: {len(self.rows)} rows</p><table><thead><tr>{head}</tr>"
                f"</thead><tbody>{''.join(body)}</tbody></table>{more}")


def _array(pa, vals: list):
    """A column as an Arrow array: its own type, or text when values of several kinds mix."""
    try:
        return pa.array(vals)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return pa.array([None if v is None else str(v) for v in vals], type=pa.string())


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _resp(prefix: str, r: dict | None) -> dict[str, Any]:
    r = r or {}
    out: dict[str, Any] = {f"{prefix}{k}_ms": r.get(k) for k in _RESP}
    out["trivial"] = r.get("trivial")
    out["nontrivial"] = r.get("nontrivial")
    return out


USER_COLUMNS = ["userid", "cpu_pct", "virtual_pct", "cp_pct", "transactions", "tx_per_s", "resp_mean_ms",
                "resp_p50_ms", "resp_p90_ms", "resp_p99_ms", "trivial", "nontrivial",
                *[f"{s}_pct" for s in _WAIT_STATES]]


def users(s: dict) -> Frame:
    dur = max(float(s.get("duration_s") or 0.0), 1e-9)
    rows = []
    for u in s.get("users", []):
        ws = u.get("wait_states") or {}
        rows.append({"userid": u["userid"], "cpu_pct": u.get("cpu_pct"), "virtual_pct": u.get("virtual_pct"),
                     "cp_pct": u.get("cp_pct"), "transactions": u.get("transactions"),
                     "tx_per_s": (u.get("transactions") or 0) / dur, **_resp("resp_", u.get("response_ms")),
                     **{f"{k}_pct": ws.get(k) for k in _WAIT_STATES}})
    return Frame("users", USER_COLUMNS, rows)


def intervals(s: dict) -> Frame:
    rows = []
    for i, iv in enumerate(s.get("intervals", [])):
        procs = iv.get("processors") or []
        rows.append({"interval": i, "start_s": iv.get("start_s"), "end_s": iv.get("end_s"),
                     "transactions": iv.get("transactions"), "etr": iv.get("etr"),
                     "busy_pct": sum(p["busy_pct"] for p in procs) / len(procs) if procs else None,
                     "system_pct": sum(p["system_pct"] for p in procs) if procs else None})
    return Frame("intervals", ["interval", "start_s", "end_s", "transactions", "etr", "busy_pct", "system_pct"], rows)


def user_intervals(s: dict) -> Frame:
    rows = [{"interval": i, "end_s": iv.get("end_s"), **d}
            for i, iv in enumerate(s.get("intervals", [])) for d in iv.get("user_detail", [])]
    return Frame("user_intervals", ["interval", "end_s", "userid", "cpu_pct", "virtual_pct", "cp_pct",
                                    "transactions"], rows)


def processors(s: dict) -> Frame:
    rows = [{"interval": i, "end_s": iv.get("end_s"), "processor": k, **p}
            for i, iv in enumerate(s.get("intervals", [])) for k, p in enumerate(iv.get("processors") or [])]
    return Frame("processors", ["interval", "end_s", "processor", "busy_pct", "system_pct"], rows)


def devices(s: dict) -> Frame:
    rows = [{"interval": i, "end_s": iv.get("end_s"), "device": d.get("name"), **d}
            for i, iv in enumerate(s.get("intervals", [])) for d in iv.get("devices") or []]
    return Frame("devices", ["interval", "end_s", "device", "io_rate", "pages_per_io", "response_ms", "util_pct"],
                 rows)


def run_tables(s: dict) -> list[Frame]:
    return [intervals(s), users(s), user_intervals(s), processors(s), devices(s)]


def report_frames(report) -> list[Frame]:
    """A Perfkit-style report's tables as tidy frames: summary rows (>>Mean>>, >System<) are marked
    in a ``row`` column (``data`` for the others), never mixed into a value column."""
    out = []
    for t in report.tables:
        cols = ["row"] + [c.key for c in t.columns]
        rows = [{"row": r["_kind"], **{c.key: r.get(c.key) for c in t.columns}} for r in t.rows]
        for r in rows:
            for c in t.columns:
                if c.kind == "text" and r["row"] != "data" and r.get(c.key) == r["row"]:
                    r[c.key] = None  # the row's kind is in `row`, not in the key column
        out.append(Frame(f"{report.fcx}-{report.name}-{t.name}", cols, rows))
    return out
