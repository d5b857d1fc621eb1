"""Report charts (matplotlib, SVG): readable rather than merely drawn.

* headroom: the y axis ends above the highest value (or stack), so no line sits on the frame;
* the legend is outside the plot area, to the right, never over the data;
* distinct colours: at most ``TOP`` series keep their own colour (the largest by mean), the rest
  are drawn as one "others" series (their sum in a stack, their mean for lines and bars); with
  ``--vs`` a series keeps its colour on both sides, B dashed (or hatched);
* clock-time x axes (HH:MM:SS of the monitor data) where the x values are seconds from the start;
* one y axis, in the plot's one unit (a chart never mixes units).
"""

from __future__ import annotations

import io
import math
import re
from datetime import datetime, timedelta

from .model import Plot

TOP = 10
_SUFFIX = re.compile(r"^(.*) \(([^()]*)\)$")


def _base(label: str, compare: bool) -> tuple[str, str]:
    """(series name, side suffix) of a label; with --vs labels are 'NAME (SIDE)'."""
    m = _SUFFIX.match(label) if compare else None
    return (m.group(1), f" ({m.group(2)})") if m else (label, "")


def _mean(v: list) -> float:
    vals = [x for x in v if x is not None and math.isfinite(x)]
    return sum(vals) / len(vals) if vals else 0.0


def limit_series(p: Plot, compare: bool, top: int = TOP) -> dict[str, list]:
    """The plot's series with at most ``top`` names kept and the rest folded into "others"."""
    names: dict[str, float] = {}
    for k, v in p.series.items():
        b, _ = _base(k, compare)
        names[b] = max(names.get(b, 0.0), _mean(v))
    if len(names) <= top:
        return dict(p.series)
    keep = set(sorted(names, key=lambda n: (-names[n], n))[:top - 1])
    out: dict[str, list] = {}
    rest: dict[str, list[list]] = {}
    for k, v in p.series.items():
        b, side = _base(k, compare)
        if b in keep:
            out[k] = v
        else:
            rest.setdefault(side, []).append(v)
    n_rest = len(names) - len(keep)
    for side, vs in rest.items():
        width = max(len(v) for v in vs)
        cols = [[v[i] for v in vs if i < len(v) and v[i] is not None] for i in range(width)]
        if p.kind == "stack":
            agg = [sum(c) if c else None for c in cols]
            label = f"others ({n_rest}, sum)"
        else:
            agg = [sum(c) / len(c) if c else None for c in cols]
            label = f"others ({n_rest}, mean)"
        out[label + side] = agg
    return out


def _colours(labels: list[str], compare: bool) -> dict[str, tuple]:
    import matplotlib

    bases: list[str] = []
    for k in labels:
        b, _ = _base(k, compare)
        if b not in bases:
            bases.append(b)
    # tab10 without its grey (kept for "others"), then tab20's lighter shades without grey
    tab10, tab20 = matplotlib.colormaps["tab10"], matplotlib.colormaps["tab20"]
    palette = [tab10(i) for i in range(10) if i != 7] + [tab20(i) for i in range(1, 20, 2) if i != 15]
    grey = (0.55, 0.55, 0.55, 1.0)
    named = [b for b in bases if not b.startswith("others (")]
    col = {b: palette[i % len(palette)] for i, b in enumerate(named)}
    return {k: col.get(_base(k, compare)[0], grey) for k in labels}


def _clock(x: list[float], start: str | None) -> list | None:
    if not start:
        return None
    try:
        t0 = datetime.strptime(start, "%Y/%m/%d %H:%M:%S")
    except ValueError:
        return None
    return [t0 + timedelta(seconds=s) for s in x]


def svg(p: Plot, dashed_suffix: str | None = None, start: str | None = None) -> str:
    """The plot as an SVG element (deterministic bytes for the same plot)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    compare = dashed_suffix is not None
    series = limit_series(p, compare)
    labels = list(series)
    colours = _colours(labels, compare)
    vals = [[float("nan") if v is None else v for v in series[k]] for k in labels]
    n = min([len(p.x)] + [len(v) for v in vals]) if vals else 0
    is_b = {k: dashed_suffix is not None and k.endswith(dashed_suffix) for k in labels}
    with matplotlib.rc_context({"svg.hashsalt": "zvmlab", "svg.fonttype": "none", "font.size": 9,
                                "text.parse_math": False}):  # "$" in a userid is text, not math
        fig, ax = plt.subplots(figsize=(7.6, 3.2))
        x: list = list(p.x[:n])
        clock = _clock(x, start) if p.kind != "bar" and p.xlabel == "seconds" else None
        if clock is not None:
            x = clock
        top = _draw(ax, p, x, labels, vals, n, colours, is_b)
        ax.set_ylim(0, top * 1.12 if top > 0 else 1.0)  # headroom above the highest value
        _label(fig, ax, p, clock, labels)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
        plt.close(fig)
    s = buf.getvalue()
    return s[s.find("<svg"):]


def _draw(ax, p: Plot, x: list, labels: list[str], vals: list[list[float]], n: int, colours: dict,
          is_b: dict) -> float:
    """The series as a stack, bars or lines (B's of a comparison dashed or hatched); returns the
    highest value drawn."""
    if p.kind == "stack" and vals:
        ys = [[0.0 if math.isnan(a) else a for a in v[:n]] for v in vals]
        ax.stackplot(x, *ys, labels=labels, colors=[colours[k] for k in labels], alpha=.85)
        return max((sum(col) for col in zip(*ys)), default=0.0)
    if p.kind == "bar" and vals:
        w = 0.8 / len(vals)
        for i, (k, v) in enumerate(zip(labels, vals)):
            ax.bar([xx + (i - (len(vals) - 1) / 2) * w for xx in x], v[:n], w, label=k, color=colours[k],
                   hatch="//" if is_b[k] else None, edgecolor="white" if not is_b[k] else None)
        ax.set_xticks(x, (p.categories or [])[:n] or None)
        if n > 8:
            ax.tick_params(axis="x", labelrotation=45)
    else:
        for k, v in zip(labels, vals):
            ax.plot(x, v[:n], "--" if is_b[k] else "-", marker="o" if n <= 30 else None, markersize=3,
                    label=k, color=colours[k])
    return max((a for v in vals for a in v[:n] if not math.isnan(a)), default=0.0)


def _label(fig, ax, p: Plot, clock: list | None, labels: list[str]) -> None:
    """Title, axis labels (a clock axis as time of day), grid and legend."""
    import matplotlib.dates as mdates

    ax.set_title(p.title)
    ax.set_ylabel(p.ylabel)
    if clock is not None:
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M:%S"))
        ax.set_xlabel(f"time of day ({clock[0]:%Y-%m-%d})" if clock else "time of day")
        fig.autofmt_xdate(rotation=30)
    else:
        ax.set_xlabel(p.xlabel)
    ax.grid(True, alpha=.3)
    if len(labels) > 1:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  ncol=2 if len(labels) > 14 else 1)
