"""Plotly figures of the web view (drawn in the browser by the plotly.js the package ships)."""

from __future__ import annotations

import json
from typing import Any

METRICS = {"etr": "ETR (transactions/s)", "itr": "ITR (transactions/s)", "tv_ratio": "T/V",
           "busy_pct": "processor busy (%)", "resp_mean_ms": "response time, mean (ms)",
           "resp_p90_ms": "response time, p90 (ms)"}


def _fig(traces: list, title: str, xtitle: str, ytitle: str) -> dict[str, Any]:
    import plotly.graph_objects as go

    fig = go.Figure(traces)
    fig.update_layout(title=title, xaxis_title=xtitle, yaxis_title=ytitle, yaxis_rangemode="tozero",
                      legend={"x": 1.02, "y": 1, "xanchor": "left"}, margin={"r": 160},
                      template="plotly_white", height=420)
    return json.loads(fig.to_json())


def user_cpu(summary: dict, top: int = 9) -> dict[str, Any]:
    """CPU % of one processor per interval for the busiest users (the rest as 'others', summed)."""
    import plotly.graph_objects as go

    ivs = summary.get("intervals", [])
    x = [iv.get("end_s") for iv in ivs]
    users = [u["userid"] for u in sorted(summary.get("users", []), key=lambda u: -u.get("cpu_pct", 0.0))]
    traces = [go.Scatter(x=x, y=[iv["users"].get(u) for iv in ivs], name=u, mode="lines+markers")
              for u in users[:top]]
    if len(users) > top:
        rest = users[top:]
        traces.append(go.Scatter(x=x, y=[sum(iv["users"].get(u, 0.0) for u in rest) for iv in ivs],
                                 name=f"others ({len(rest)}, sum)", mode="lines", line={"color": "grey"}))
    return _fig(traces, "CPU by user and interval", "seconds", "% of one processor")


def metric_across(rows: list[dict], metric: str, xname: str) -> dict[str, Any]:
    """``metric`` against the sweep parameter (or the suite's cells), one line per level, means over seeds."""
    import plotly.graph_objects as go

    by_level: dict[str, dict[Any, list[float]]] = {}
    for r in rows:
        v = r.get(metric)
        if v is None:
            continue
        by_level.setdefault(str(r["level"]), {}).setdefault(r["x"], []).append(float(v))
    traces = []
    for level, pts in sorted(by_level.items()):
        xs = sorted(pts, key=_order)
        traces.append(go.Scatter(x=xs, y=[sum(pts[k]) / len(pts[k]) for k in xs], name=level,
                                 mode="lines+markers"))
    return _fig(traces, f"{METRICS.get(metric, metric)} by {xname}", xname, METRICS.get(metric, metric))


def _order(v: Any) -> tuple:
    return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))
