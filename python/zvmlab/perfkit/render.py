"""Show reports: Perfkit-style text, CSV, JSON and HTML (with per-interval plots), for one run
or two side by side (--vs: each cell of A, of B, and the change B - A)."""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections import Counter

from .model import DATA, MEAN, TOTAL, Column, Plot, Report, Table

MISSING = "..."


# -- numbers, Perfkit style ------------------------------------------------------------------------

def _decimals(kind: str) -> int:
    return {"pct": 1, "ratio": 3, "num": 3, "rate": 2, "int": 0}.get(kind, 1)


def num(v, kind: str, width: int, signed: bool = False) -> str:
    """A value the way Perfkit prints it: '.7' not '0.7', fewer decimals or k/M when too wide."""
    if v is None:
        return MISSING
    if kind == "text":
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return MISSING
    if (isinstance(v, int) and not isinstance(v, bool)) or (kind == "int" and float(v).is_integer()):
        d = 0
    else:
        d = _decimals(kind) if kind != "int" else 1
    for dd in range(d, -1, -1):
        s = f"{v:+.{dd}f}" if signed else f"{v:.{dd}f}"
        if float(s) == 0:  # no sign on a value that rounds to zero
            s = s.lstrip("+-")
        s = s.replace("0.", ".", 1) if s.lstrip("+-").startswith("0.") else s
        if len(s) <= width:
            return s
    for div, suf in ((1e3, "k"), (1e6, "M"), (1e9, "G")):
        s = f"{v / div:+.0f}{suf}" if signed else f"{v / div:.0f}{suf}"
        if len(s) <= width:
            return s
    return s


# -- text ------------------------------------------------------------------------------------------

def _header(r: Report, width: int) -> list[str]:
    mt = r.meta
    secs = mt["seconds"]
    hms = f"{int(secs) // 3600:02d}:{int(secs) % 3600 // 60:02d}:{int(secs) % 60:02d}"
    system = mt["system"] or "?"
    lines = [f"1{r.fcx:<8}Run {mt['to']:<23}{r.name}",
             f" {'':<31}{r.title}",
             f" From {mt['from']}",
             f" To   {mt['to']}{'':<16}{'CPU ' + str(mt['processors']) + '-way':>14}  {mt['level']}",
             f" For {secs:>6.0f} Secs {hms}{'':<8}\"This is a performance report for SYSTEM {system}\"",
             " " + "_" * max(20, width - 1), ""]
    if "vs" in mt:
        b = mt["vs"]
        lines[4:4] = [f" Vs   {b['from']} - {b['to']}{'':<3}{'CPU ' + str(b['processors']) + '-way':>14}  "
                      f"{b['level']}  ({b['seconds']:.0f} Secs, SYSTEM {b['system'] or '?'})"]
    return lines


def _cells(t: Table, row: dict) -> list[str]:
    return [num(row.get(c.key), c.kind, c.width) for c in t.columns]


def _group_line(cols: list[Column], widths: list[int]) -> str | None:
    """<--- Group ---> labels over consecutive columns of the same group."""
    if not any(c.group for c in cols):
        return None
    out, i = [], 0
    while i < len(cols):
        g = cols[i].group
        j = i
        while j + 1 < len(cols) and cols[j + 1].group == g and g:
            j += 1
        span = sum(widths[i:j + 1]) + (j - i)
        if g:
            label = f" {g} "
            inner = span - 2
            if inner >= len(label) + 2:
                left = (inner - len(label)) // 2
                out.append("<" + "-" * left + label + "-" * (inner - len(label) - left) + ">")
            else:
                out.append(g[:span].center(span))
        else:
            out.append(" " * span)
        i = j + 1
    return " ".join(out).rstrip()


def _table_text(t: Table) -> list[str]:
    cols = t.columns
    body = [_cells(t, row) for row in t.rows]
    widths = [max([c.width, len(c.head[0]), len(c.head[1]) + (1 if c.extension else 0)] +
                  [len(b[i]) for b in body]) for i, c in enumerate(cols)]

    def line(cells: list[str]) -> str:
        parts = []
        for c, w, s in zip(cols, widths, cells):
            parts.append(s.ljust(w) if c.kind == "text" else s.rjust(w))
        return " ".join(parts).rstrip()

    out = []
    g = _group_line(cols, widths)
    if g:
        out.append(g)
    if any(c.head[0] for c in cols):
        out.append(line([c.head[0] for c in cols]))
    out.append(line([c.head[1] + ("*" if c.extension else "") for c in cols]))
    prev_time = None
    for row, cells in zip(t.rows, body):
        # by-time tables: the end time only on the first row of each interval, as Perfkit does
        if cols[0].key == "time" and row["_kind"] == DATA:
            if row.get("time") == prev_time:
                cells = [""] + cells[1:]
            prev_time = row.get("time")
        if row["_kind"] != DATA and out and prev_time is not None and not out[-1] == "":
            out.append("")
            prev_time = None
        out.append(line(cells))
    return out


def text(reports: list[Report]) -> str:
    out = []
    for r in reports:
        tables = [_table_text(t) for t in r.tables]
        width = max([len(x) for tl in tables for x in tl] + [60])
        out += _header(r, width)
        for tl in tables:
            out += tl + [""]
        out += [f" Note: {n}" for n in r.notes]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


# -- CSV and JSON ----------------------------------------------------------------------------------

def _colname(c: Column) -> str:
    name = c.key
    return f"{name}_{c.unit}" if c.unit else name


def csv_text(r: Report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for i, t in enumerate(r.tables):
        if i:
            buf.write("\n")
        w.writerow(["row"] + [_colname(c) for c in t.columns])
        for row in t.rows:
            w.writerow([row["_kind"] if row["_kind"] != DATA else ""] +
                       ["" if row.get(c.key) is None else _csvval(row.get(c.key)) for c in t.columns])
    return buf.getvalue()


def _csvval(v):
    return repr(v) if isinstance(v, float) else v


def as_dict(r: Report) -> dict:
    return {
        "fcx": r.fcx, "name": r.name, "title": r.title, "meta": r.meta, "notes": r.notes,
        "tables": {t.name: {"columns": [{"key": c.key, "head": " ".join(x for x in c.head if x).strip(),
                                         "group": c.group, "kind": c.kind, "unit": c.unit,
                                         "zvmlab_extension": c.extension} for c in t.columns],
                            "rows": [{("row" if k == "_kind" else k): v for k, v in row.items()} for row in t.rows]}
                   for t in r.tables},
    }


def json_text(reports: list[Report], describe: dict | None = None) -> str:
    obj = {"reports": {r.fcx: as_dict(r) for r in reports}}
    if describe is not None:
        obj["monitor_data"] = describe
    return json.dumps(obj, sort_keys=True, indent=2, allow_nan=False) + "\n"


# -- side by side (--vs) ---------------------------------------------------------------------------

def compare(a: Report, b: Report, label_a: str, label_b: str) -> Report:
    """One report whose numeric cells are A, B, B - A and the %-change (rows matched by their key).

    Rows are the union of both sides: a row only one side has shows ``...`` for the other side's
    cells, and a note names the rows that exist on one side only.
    """
    out = Report(a.fcx, a.name, a.title + f"  ({label_a} vs {label_b})", dict(a.meta), notes=list(a.notes))
    out.meta["vs"] = b.meta
    for ta in a.tables:
        tb = next((t for t in b.tables if t.name == ta.name), None)
        t, only_a, only_b = _compare_table(ta, tb)
        out.tables.append(t)
        for side, rows in ((label_a, only_a), (label_b, only_b)):
            if rows:
                out.notes.append(f"{ta.name}: {len(rows)} row(s) only in {side}: {_names(rows, ta.key)}")
    for tb in b.tables:
        if not any(t.name == tb.name for t in a.tables):
            out.notes.append(f"table {tb.name} only in {label_b} (not compared)")
    for pa in a.plots:
        pb = next((p for p in b.plots if p.title == pa.title), None)
        series = {f"{k} ({label_a})": v for k, v in pa.series.items()}
        if pb:
            series.update({f"{k} ({label_b})": v for k, v in pb.series.items()})
        out.plots.append(Plot(pa.title, pa.ylabel, pa.x if not pb or len(pa.x) >= len(pb.x) else pb.x, series,
                              kind="line" if pa.kind == "stack" else pa.kind, categories=pa.categories,
                              xlabel=pa.xlabel))
    out.notes.insert(0, f"A = {label_a}, B = {label_b}; B-A = the change (percentage points for percentages), "
                        f"% = (B-A)/A in percent; a text cell the sides differ in shows A/B. Rows are matched by interval "
                        f"number and key; ... = the side has no such row (or no value).")
    return out


def _compare_table(ta: Table, tb: Table | None) -> tuple[Table, list[dict], list[dict]]:
    """The A/B/B-A/% table of one table pair, and the rows only A and only B have."""
    cols: list[Column] = []
    labels = {c.key: " ".join(x for x in c.head if x) for c in ta.columns}
    # a heading two columns share (the Total of two lists) is named with its column group
    shared = {v for v, n in Counter(labels.values()).items() if n > 1}
    for c in ta.columns:
        if c.key in ta.key or not c.numeric:
            cols.append(c)
            continue
        label = f"{c.group}: {labels[c.key]}" if labels[c.key] in shared and c.group else labels[c.key]
        for suffix, head, kind in (("", "A", c.kind), ("_b", "B", c.kind), ("_delta", "B-A", c.kind),
                                   ("_pctchg", "%", "pct")):
            cols.append(Column(c.key + suffix, ("", head), kind, c.width, group=label,
                               unit="%" if suffix == "_pctchg" else c.unit, extension=c.extension))
    t = Table(ta.name, cols, key=ta.key)
    ia, ib = _index(ta), (_index(tb) if tb else {})
    only_a = [r for k, r in ia.items() if k not in ib and r["_kind"] == DATA]
    only_b = [r for k, r in ib.items() if k not in ia and r["_kind"] == DATA]
    for key in _union_keys(list(ia), list(ib)):
        ra, rb = ia.get(key), ib.get(key)
        row = dict(ra if ra is not None else rb)
        for c in ta.columns:
            if c.key in ta.key:
                continue
            if not c.numeric:
                row[c.key] = _text_vs(ra, rb, c.key)
                continue
            va = ra.get(c.key) if ra is not None else None
            vb = rb.get(c.key) if rb is not None else None
            row[c.key], row[c.key + "_b"] = va, vb
            both = isinstance(va, (int, float)) and isinstance(vb, (int, float))
            row[c.key + "_delta"] = vb - va if both else None
            row[c.key + "_pctchg"] = 100.0 * (vb - va) / abs(va) if both and va else None
        t.rows.append(row)
    return t, only_a, only_b


def _text_vs(ra: dict | None, rb: dict | None, key: str):
    """A text cell of both sides: the one value, or ``A/B`` where they differ (a processor's type,
    a device's, a capping), so a change of kind is not hidden behind A's."""
    if ra is None or rb is None:
        return (ra if ra is not None else rb).get(key)  # type: ignore[union-attr]
    va, vb = ra.get(key), rb.get(key)
    if va == vb:
        return va
    shown = lambda v: "..." if v is None else (str(v).strip() or "-")  # noqa: E731  (a blank: "-")
    return f"{shown(va)}/{shown(vb)}"


def _union_keys(ka: list, kb: list) -> list:
    """A's keys in order, each key only B has placed after the last key before it that A has too."""
    sa = set(ka)
    after: dict = {}
    anchor = None
    for k in kb:
        if k in sa:
            anchor = k
        else:
            after.setdefault(anchor, []).append(k)
    out = list(after.get(None, []))
    for k in ka:
        out.append(k)
        out += after.get(k, [])
    return out


def _names(rows: list[dict], keys: tuple[str, ...], limit: int = 12) -> str:
    """Rows named by their identifying cells (userid, CPU, device; the interval's time otherwise)."""
    ks = [k for k in keys if k != "time"] or list(keys)

    def name(r: dict) -> str:
        return " ".join(str(r.get(k)) for k in ks) or "?"

    seen: list[str] = []
    for r in rows:
        n = name(r)
        if n not in seen:
            seen.append(n)
    more = f" and {len(seen) - limit} more" if len(seen) > limit else ""
    return ", ".join(seen[:limit]) + more


def _index(t: Table) -> dict:
    """Rows by (kind, occurrence of the key): by-time rows match by interval number, not clock time."""
    out, seen = {}, {}
    for row in t.rows:
        k = tuple(row.get(c) for c in t.key if c != "time")
        n = seen.get((row["_kind"], k), 0)
        seen[(row["_kind"], k)] = n + 1
        out[(row["_kind"], k, n)] = row
    return out


# -- HTML ------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;color:#1d2733;
 background:#fff;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem} h2{font-size:1.2rem;margin-top:2.5rem;border-bottom:2px solid #1f77b4;
 padding-bottom:.3rem} .fcx{color:#1f77b4;font-family:monospace;margin-right:.5rem}
.meta{color:#52606d;font-size:.9rem} nav a{margin-right:1rem}
.plots{display:flex;flex-wrap:wrap;gap:1rem} .plot{flex:0 1 720px;border:1px solid #e4e7eb;border-radius:6px;
 padding:.3rem} .plot svg{width:100%;height:auto}
table{border-collapse:collapse;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.82rem;margin:1rem 0}
th,td{padding:.15rem .5rem;text-align:right;border-bottom:1px solid #eef1f4} th{background:#f5f7fa;
 vertical-align:bottom} td.t,th.t{text-align:left} tr.sum td{font-weight:600;background:#fafbfc}
th.g{text-align:center;border-bottom:2px solid #c9d3dd} .up{color:#b54708} .down{color:#175cd3}
.notes{color:#52606d;font-size:.85rem}
"""


def _svg(p: Plot, dashed_suffix: str | None = None, start: str | None = None) -> str:
    from .charts import svg

    return svg(p, dashed_suffix, start)


def _html_table(t: Table) -> str:
    cols = t.columns
    h = ["<table>"]
    if any(c.group for c in cols):
        h.append("<tr>")
        i = 0
        while i < len(cols):
            g, j = cols[i].group, i
            while j + 1 < len(cols) and cols[j + 1].group == g and g:
                j += 1
            h.append(f'<th class="g" colspan="{j - i + 1}">{html.escape(g or "")}</th>')
            i = j + 1
        h.append("</tr>")
    h.append("<tr>" + "".join(
        f'<th class="{"t" if c.kind == "text" else ""}" title="{html.escape(c.unit)}">'
        f'{html.escape(" ".join(x for x in c.head if x))}{"*" if c.extension else ""}</th>'
        for c in cols) + "</tr>")
    for row in t.rows:
        cls = "" if row["_kind"] == DATA else ' class="sum"'
        cells = []
        for c in cols:
            v = row.get(c.key)
            s = num(v, c.kind, max(c.width, 9), signed=c.key.endswith("_delta"))
            k = "t" if c.kind == "text" else ""
            if c.key.endswith("_delta") and isinstance(v, (int, float)) and v:
                k = "up" if v > 0 else "down"
            cells.append(f'<td class="{k}">{html.escape(s)}</td>')
        h.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    h.append("</table>")
    return "\n".join(h)


def html_text(reports: list[Report], title: str, describe: dict | None = None,
              dashed_suffix: str | None = None) -> str:
    m = reports[0].meta if reports else {}
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f'<p class="meta">From {m.get("from", "")} to {m.get("to", "")} ({m.get("seconds", 0):.0f} s, '
             f'{m.get("intervals", 0)} intervals), system {html.escape(str(m.get("system", "")))}, '
             f'{m.get("processors", 0)} processors, level {html.escape(str(m.get("level", "")))}; '
             f'data from {html.escape(str(m.get("source", "")))}</p>',
             "<nav>" + "".join(f'<a href="#{r.fcx}">{r.fcx} {r.name}</a>' for r in reports) + "</nav>"]
    for r in reports:
        parts.append(f'<section id="{r.fcx}"><h2><span class="fcx">{r.fcx}</span>{r.name} &mdash; '
                     f'{html.escape(r.title)}</h2>')
        if r.plots:
            parts.append('<div class="plots">' + "".join(
                f'<div class="plot">{_svg(p, dashed_suffix, r.meta.get("from"))}</div>' for p in r.plots) + "</div>")
        for t in r.tables:
            parts.append(_html_table(t))
        if r.notes:
            parts.append('<p class="notes">' + "<br>".join(html.escape(n) for n in r.notes) + "</p>")
        parts.append("</section>")
    if describe:
        probs = describe.get("problems", [])
        parts.append(f'<p class="notes">Monitor data: {describe.get("records", 0)} records in '
                     f'{describe.get("control_records", 0)} MONWRITE blocks; {len(probs)} problems'
                     + ("".join(f"<br>offset {p['offset']}: {html.escape(p['message'])}" for p in probs[:20]))
                     + "</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["text", "csv_text", "json_text", "html_text", "compare", "num", "MEAN", "TOTAL"]
