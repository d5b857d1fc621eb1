"""The replicate report as one self-contained HTML page: the table, then a chart per row
(published beside simulated for every numeric metric; for share rows, seed 000's chart of the
Solver beside each level's per-interval CPU)."""

from __future__ import annotations

import html
import io
from pathlib import Path

from .replicate import levels_label

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1b1b1b;max-width:1200px}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.85rem} th,td{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:right}
th{background:#f3f3f3} td.l,th.l{text-align:left} td.nw{white-space:nowrap}
.pass{color:#0a7d28;font-weight:600} .miss{color:#b3261e;font-weight:600} .other{color:#8a6d00}
.note{color:#555;font-size:.85rem} figure{margin:1rem 0} svg{max-width:100%;height:auto}
"""


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return html.escape(v)
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"


def _bar_svg(row_id: str, results: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ms = [r for r in results if r["metric"] and any(isinstance(r["published"].get(s), (int, float))
                                                     for s in ("base", "compare"))]
    if not ms:
        return ""
    fig, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(ms) + 2), 3.0))
    xs = range(len(ms))
    w = 0.2
    series = [("published base", "base", "published", "#9ecae1"), ("simulated base", "base", "simulated", "#3182bd"),
              ("published comp.", "compare", "published", "#fdae6b"), ("simulated comp.", "compare", "simulated", "#e6550d")]
    for k, (label, side, src, color) in enumerate(series):
        vals = [r[src].get(side) if isinstance(r[src].get(side), (int, float)) else 0 for r in ms]
        ax.bar([x + (k - 1.5) * w for x in xs], vals, w, label=label, color=color)
    ax.set_xticks(list(xs), [r["metric"] for r in ms], fontsize=7, rotation=15)
    ax.legend(fontsize=7)
    ax.set_title(row_id, fontsize=9)
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    return buf.getvalue()[buf.getvalue().find("<svg"):]


def write(results: list[dict], out_dir: str | Path) -> Path:
    from ..output import result_dir

    rows_html = []
    for r in results:
        v = r["verdict"]
        cls = {"pass": "pass", "miss": "miss"}.get(v, "other")
        if r["metric"] is None:
            rows_html.append(f"<tr><td class=l>{r['id']}</td><td class=l>{html.escape(r['what'])}</td><td></td>"
                             f"<td class=l colspan=4>{html.escape(r['published'])}</td><td></td>"
                             f"<td class='l {cls}'>{v} ({html.escape(r['reason'])})</td></tr>")
            continue
        pub, sim = r["published"], r["simulated"]
        rows_html.append(
            f"<tr><td class=l>{r['id']}</td><td class=l>{html.escape(r['metric'])}</td>"
            f"<td class='l nw'>{html.escape(levels_label(r))}</td>"
            f"<td>{_fmt(pub.get('base'))}</td><td>{_fmt(pub.get('compare'))}</td>"
            f"<td>{_fmt(sim.get('base'))}</td><td>{_fmt(sim.get('compare'))}</td>"
            f"<td>{r['tolerance']}</td><td class='l {cls}'>{v}</td></tr>")
    charts = []
    for rid in dict.fromkeys(r["id"] for r in results if r["metric"]):
        svg = _bar_svg(rid, [r for r in results if r["id"] == rid])
        first = next(r for r in results if r["id"] == rid)
        # the catalogue's account of how the row is modelled and why it lands or misses
        model = first.get("model") or ""
        note = f"<p class=note>{html.escape(model)}</p>" if model else ""
        if svg or note:
            fig = f"<figure>{svg}</figure>" if svg else ""
            charts.append(f"<h2>{rid}: {html.escape(first['what'])}</h2>{fig}{note}")
    page = (f"<!doctype html><html><head><meta charset=utf-8><title>zvmlab replicate</title><style>{STYLE}</style>"
            f"</head><body><h1>zvmlab replicate: IBM's published figures beside the simulator's</h1>"
            f"<p class=note>Kind C rows may calibrate a parameter; kind P rows must emerge from mechanisms "
            f"(direction right, magnitude within the tolerance). Published figures come from the seeds.</p>"
            f"<table><tr><th class=l>Id</th><th class=l>Metric</th><th class=l>Levels</th><th>Published base</th>"
            f"<th>Published comp.</th><th>Simulated base</th><th>Simulated comp.</th><th>Tol.</th>"
            f"<th class=l>Verdict</th></tr>{''.join(rows_html)}</table>{''.join(charts)}</body></html>")
    with result_dir(out_dir, force=True) as d:
        (d / "index.html").write_text(page)
    return Path(out_dir) / "index.html"
