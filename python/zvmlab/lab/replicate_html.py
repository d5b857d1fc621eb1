"""The replicate report as one self-contained HTML page: the headline (predicted metrics apart),
the table with each metric's basis, seed spread and robustness, then a chart per row.

Scaling rows (metrics at several core counts: B4, B5, B7, B8, C1, D8) are drawn as lines against
cores, one panel per quantity (ETR, ITR, T/V, ... each on its own axis), published beside
simulated with the seeds' range as error bars; other rows get one small panel per metric, so no
two units share an axis."""

from __future__ import annotations

import html
import io
from pathlib import Path

from .replicate import levels_label

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1b1b1b;max-width:1500px}
h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.8rem} th,td{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:right}
th{background:#f3f3f3} td.l,th.l{text-align:left} td.nw{white-space:nowrap}
.pass{color:#0a7d28;font-weight:600} .miss{color:#b3261e;font-weight:600} .other{color:#8a6d00;font-weight:600}
.note{color:#555;font-size:.85rem} figure{margin:1rem 0} svg{max-width:100%;height:auto}
.basis{font-size:.75rem;color:#555} .headline{font-size:1.05rem;font-weight:600}
"""

BASIS = {"predicted": "predicted", "calibrated": "calibrated", "construction": "by construction"}


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return html.escape(v)
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _judged(r: dict) -> tuple[float | None, float | None, tuple | None]:
    """(published, simulated mean, (min, max) over seeds) of a metric's judged side."""
    pub, sim, sp = r["published"], r["simulated"], r.get("spread") or {}
    side = "compare" if _num(pub.get("compare")) else "base"
    key = "ratio" if "ratio" in sp else side
    rng = sp.get(key) or {}
    bounds = (rng["min"], rng["max"]) if rng.get("min") is not None and rng.get("max") is not None else None
    p = pub.get(side)
    return (p if _num(p) else None), (sim.get(side) if _num(sim.get(side)) else None), bounds


def _svg(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    return buf.getvalue()[buf.getvalue().find("<svg"):]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _quantity(r: dict) -> str:
    """A scaling metric's quantity: its name without the core count ("ITR, 16 cores" -> "ITR")."""
    return r["metric"].split(",")[0].strip()


def _cores(r: dict):
    return (r.get("at") or {}).get("processors") or r.get("cores")


def _mode(r: dict) -> str:
    """A scaling metric's multithreading mode ("" for non-SMT, "SMT-2" for a column run with
    ``at.smt = "smt2"``): each mode is its own line in a quantity's panel."""
    smt = (r.get("at") or {}).get("smt") or "off"
    return "" if smt == "off" else f"SMT-{smt[-1]}"


def _side_points(g: list[dict], side: str, mode: str = "") -> tuple[list, list, list, list, list]:
    """(cores, published, simulated, below, above) of one side of a scaling quantity, in one
    multithreading mode."""
    pts = []
    for x in sorted((x for x in g if _mode(x) == mode), key=_cores):
        p, s = x["published"].get(side), x["simulated"].get(side)
        if not _num(p):
            continue
        rng = (x.get("spread") or {}).get(side) or {}
        lo = s - rng["min"] if _num(s) and rng.get("min") is not None else 0.0
        hi = rng["max"] - s if _num(s) and rng.get("max") is not None else 0.0
        pts.append((_cores(x), p, s if _num(s) else float("nan"), lo, hi))
    return tuple(map(list, zip(*pts))) if pts else ([], [], [], [], [])  # type: ignore[return-value]


# (published, simulated) colours per line: the published line dashed in a light tint of its
# simulated line's colour, so each pair reads as one series.
STYLES = {"base": ("#9ecae1", "#3182bd"), "compare": ("#fdae6b", "#e6550d")}
# A comparison-level line in another multithreading mode.
MODE_STYLES = {"SMT-2": ("#a1d99b", "#31a354"), "SMT-1": ("#bcbddc", "#756bb1")}


def scaling_svg(row_id: str, results: list[dict]) -> str:
    """Lines against cores, one panel per quantity; per level, published (dashed) and simulated
    (solid, the seeds' range as error bars)."""
    groups = scaling_groups(results)
    if not groups:
        return ""
    plt = _plt()
    n = len(groups)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, (q, g) in zip(axes.flat, groups.items()):
        top = 0.0
        for side, mode in [(side, mode) for side in ("base", "compare") for mode in sorted({_mode(x) for x in g})]:
            xs, pub, sim, lo, hi = _side_points(g, side, mode)
            if not xs:
                continue
            first = next(x for x in g if _mode(x) == mode and _num(x["published"].get(side)))
            lv = (first.get(f"{side}_level") or side) + (f" {mode}" if mode else "")
            cp, cs = MODE_STYLES.get(mode, STYLES[side])
            ax.plot(xs, pub, "o--", color=cp, label=f"published, {lv}")
            ax.errorbar(xs, sim, yerr=[lo, hi], fmt="s-", color=cs, capsize=3, label=f"simulated, {lv}")
            top = max([top] + [v for v in pub + sim if v == v])
        ax.set_title(q, fontsize=9)
        ax.set_xlabel("cores", fontsize=8)
        ax.set_xscale("log", base=2)
        ticks = sorted({_cores(x) for x in g})
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.tick_params(labelsize=7)
        ax.set_ylim(0, (top or 1.0) * 1.15)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="upper center", ncol=min(4, len(labels)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / (3.0 * rows)))
    return _svg(fig)


def scaling_groups(results: list[dict]) -> dict[str, list[dict]]:
    """The metrics the scaling chart draws, by quantity: those published at two core counts or
    more (``"ITR, 16 cores"`` and ``"ITR, 32 cores"`` are one quantity, ITR)."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        if r.get("metric") and _cores(r) and any(_num(r["published"].get(s)) for s in ("base", "compare")):
            groups.setdefault(_quantity(r), []).append(r)
    return {q: g for q, g in groups.items() if len({_cores(x) for x in g}) >= 2}


def panels_svg(row_id: str, results: list[dict]) -> str:
    """One small panel per numeric metric: published beside simulated, base and comparison."""
    drawn = {id(r) for g in scaling_groups(results).values() for r in g}
    ms = [r for r in results if r.get("metric") and id(r) not in drawn
          and any(_num(r["published"].get(s)) for s in ("base", "compare"))]
    if not ms:
        return ""
    plt = _plt()
    n = len(ms)
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols, 2.6 * rows), squeeze=False)
    for ax, r in zip(axes.flat, ms):
        labels, pubs, sims = [], [], []
        for side in ("base", "compare"):
            p, s = r["published"].get(side), r["simulated"].get(side)
            if _num(p):
                labels.append(side)
                pubs.append(p)
                sims.append(s if _num(s) else 0.0)
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], pubs, 0.4, color="#9e9e9e", label="published")
        ax.bar([x + 0.2 for x in xs], sims, 0.4, color="#e6550d", label="simulated")
        ax.set_xticks(list(xs), labels, fontsize=7)
        ax.set_title(r["metric"][:40], fontsize=7)
        ax.tick_params(labelsize=7)
        ax.set_ylim(0, max(pubs + sims + [1e-12]) * 1.2)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / (2.6 * rows)))
    return _svg(fig)


def _verdict_cell(r: dict) -> str:
    v = r["verdict"]
    cls = {"pass": "pass", "miss": "miss"}.get(v, "other")
    rob = ""
    if r.get("robust") is True:
        rob = " <span class=basis>robust</span>"
    elif r.get("robust") is False:
        names = ", ".join(f"{f['param']} x{f['factor']:g}" for f in r.get("fragile", []))
        rob = f" <span class=basis>fragile: {html.escape(names)}</span>"
    return f"<td class='l {cls}'>{v}{rob}</td>"


def _row_html(r: dict) -> str:
    if r["metric"] is None:
        cls = "other"
        return (f"<tr><td class=l>{r['id']}</td><td class=l>{html.escape(r['what'])}</td><td></td><td></td>"
                f"<td class=l colspan=4>{html.escape(r['published'])}</td><td></td>"
                f"<td class='l {cls}'>{r['verdict']} ({html.escape(r['reason'])})</td></tr>")
    pub, sim = r["published"], r["simulated"]
    _, _, rng = _judged(r)
    spread = f"{_fmt(rng[0])} .. {_fmt(rng[1])}" if rng and rng[0] != rng[1] else ""
    why = r.get("calibrates") or r.get("why") or ""
    basis = f"{BASIS.get(r.get('basis'), '?')}" + (f"<br><span class=basis>{html.escape(why)}</span>" if why else "")
    return (f"<tr><td class=l>{r['id']}</td><td class=l>{html.escape(r['metric'])}</td><td class=l>{basis}</td>"
            f"<td class='l nw'>{html.escape(levels_label(r))}</td>"
            f"<td>{_fmt(pub.get('base'))}</td><td>{_fmt(pub.get('compare'))}</td>"
            f"<td>{_fmt(sim.get('base'))}</td><td>{_fmt(sim.get('compare'))}</td><td class=nw>{spread}</td>"
            f"<td>{r['tolerance']}</td>{_verdict_cell(r)}</tr>")


def workloads(results: list[dict]) -> dict[str, list[dict]]:
    """Scaling metrics of rows that share a scenario (one workload measured at several levels or
    in several modes, e.g. Apache's B6 compatibility, B7 exploitation and B8 SMT-2), by scenario:
    the quantities that two rows or more draw against cores."""
    by: dict[str, list[dict]] = {}
    for r in results:
        if r.get("metric") and r.get("scenario"):
            by.setdefault(r["scenario"], []).append(r)
    out = {}
    for sc, rs in by.items():
        shared = {q: g for q, g in scaling_groups(rs).items() if len({r["id"] for r in g}) >= 2}
        if shared:
            out[sc] = [r for g in shared.values() for r in g]
    return out


def _workload_charts(results: list[dict]) -> list[str]:
    """One section per workload drawn by several rows: their scaling lines in one chart."""
    out = []
    for sc, rs in workloads(results).items():
        ids = ", ".join(dict.fromkeys(r["id"] for r in rs))
        svg = scaling_svg(ids, rs)
        if svg:
            out.append(f"<h2 id='workload-{html.escape(sc)}'>Workload {html.escape(sc)}: rows {ids} against cores"
                       f"</h2><figure>{svg}</figure>")
    return out


def changed_line(summary: dict) -> str:
    """What the run changed from the parameter table (--param, --scale), or ''."""
    parts = [f"{k} = {v:g}" for k, v in sorted(summary.get("params", {}).items())]
    parts += [f"{k} x{v:g}" for k, v in sorted(summary.get("scale", {}).items())]
    return "Parameters changed from the table in every scenario run: " + ", ".join(parts) if parts else ""


def write(results: list[dict], out_dir: str | Path, summary: dict | None = None) -> Path:
    from ..output import result_dir

    rows_html = [_row_html(r) for r in results]
    charts = _workload_charts(results)
    for rid in dict.fromkeys(r["id"] for r in results if r["metric"]):
        mine = [r for r in results if r["id"] == rid]
        svg = scaling_svg(rid, mine) + panels_svg(rid, mine)
        first = mine[0]
        model = first.get("model") or ""  # the catalogue's account of the row
        note = f"<p class=note>{html.escape(model)}</p>" if model else ""
        if svg or note:
            fig = f"<figure>{svg}</figure>" if svg else ""
            charts.append(f"<h2 id='{rid}'>{rid}: {html.escape(first['what'])}</h2>{fig}{note}")
    head = html.escape((summary or {}).get("headline", ""))
    changed = changed_line(summary or {})
    if changed:
        head += f"<br><b>{html.escape(changed)}</b>"
    page = (f"<!doctype html><html><head><meta charset=utf-8><title>zvmlab replicate</title><style>{STYLE}</style>"
            f"</head><body><h1>zvmlab replicate: IBM's published figures beside the simulator's</h1>"
            f"<p class=headline>{head}</p>"
            f"<p class=note>Basis: <b>predicted</b> metrics (kind P) must emerge from mechanisms, with the "
            f"published direction and the magnitude within the tolerance; <b>calibrated</b> ones (kind C) set "
            f"the named parameter; <b>by construction</b> ones are true by a rule, a switch or a read-back "
            f"parameter and are checks of a mechanism, not predictions. Values are means over the seeds; "
            f"a verdict the seeds disagree on is 'not resolved'. Published figures come from the seeds.</p>"
            f"<table><tr><th class=l>Id</th><th class=l>Metric</th><th class=l>Basis</th><th class=l>Levels</th>"
            f"<th>Published base</th><th>Published comp.</th><th>Simulated base</th><th>Simulated comp.</th>"
            f"<th>Seeds' range</th><th>Tol.</th><th class=l>Verdict</th></tr>{''.join(rows_html)}</table>"
            f"{''.join(charts)}</body></html>")
    with result_dir(out_dir, force=True, field="--html") as d:
        (d / "index.html").write_text(page)
    return Path(out_dir) / "index.html"
