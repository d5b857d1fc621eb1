"""Scaling runs and the CAF expectation curve (seed 001's method).

A scaling experiment runs one scenario at several processor counts, scaling the workload with
the processors (each guest group's ``count`` in proportion, as the seeds' suites add clients
and servers with cores), and compares ITR with the expectation formed by scaling the smallest
run by the machine's MP CAF coefficients: ITR_expected(N) = ITR(N0) x N c(N) / (N0 c(N0)).

CAF coefficients come from STSI on a real machine; the seeds give one point (z13, N = 4:
0.890, row B11). The curve here assumes a geometric decline per doubling of N through that point,
c(N) = c4 ** (log2 N / 2), the parameter `lab.caf_4way` in the parameter table.
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import engine, scenario
from . import scaling_why as why


def caf(n: int, c4: float | None = None) -> float:
    if c4 is None:
        c4 = next(p["default"] for p in engine.params() if p["name"] == "lab.caf_4way")
    return c4 ** (math.log2(n) / 2) if n > 1 else 1.0


def scaled(sc: scenario.Scenario, cores: int, base_cores: int, scale_count: bool) -> scenario.Scenario:
    guests = sc.guests
    if scale_count:
        guests = []
        for g in sc.guests:
            n = max(1, round(g.count * cores / base_cores))
            if n > scenario.MAX_COUNT:
                from ..errors import InputError

                raise InputError(f"at {cores} cores guest {g.userid} would have {n} guests, above the "
                                 f"{scenario.MAX_COUNT} a group may have", file=sc.path, field="--scale-guests",
                                 fix="fewer or smaller --cores, or leave out --scale-guests")
            if n > 1 and len(g.userid) + len(str(n - 1)) > 8:
                from ..errors import InputError

                raise InputError(f"at {cores} cores guest {g.userid} would need {n} userids of more than 8 characters",
                                 file=sc.path, field="guest.userid", fix="shorten the userid prefix")
            guests.append(replace(g, count=n))
    return replace(sc, processors=cores, guests=guests)


def run(sc: scenario.Scenario, cores: list[int], scale_count: bool = True, progress=None,
        knee: float = why.KNEE) -> dict:
    base = sc.processors
    rows = []
    for k, n in enumerate(cores):
        s = scaled(sc, n, base, scale_count)
        r = engine.simulate(s.engine_config())
        rows.append({"cores": n, "guests": len(s.userids()), "etr": r["etr"], "itr": r["itr"],
                     "tv_ratio": r["tv_ratio"], "avg_processor_busy_pct": r["avg_processor_busy_pct"],
                     "why": why.breakdown(r)})
        if progress:
            progress(k + 1, len(cores))
    n0 = rows[0]["cores"]
    itr0 = rows[0]["itr"]
    for r in rows:
        n = r["cores"]
        r["caf"] = caf(n)
        # the smallest run is its own expectation, exactly (no rounding in n caf(n) / n0 caf(n0))
        r["itr_caf_expected"] = itr0 if n == n0 else itr0 * n * caf(n) / (n0 * caf(n0))
        r["itr_linear"] = itr0 * n / n0
        # no expectation without a first ITR (no transactions): null in JSON, not NaN
        r["itr_vs_caf"] = r["itr"] / r["itr_caf_expected"] if r["itr_caf_expected"] else None
    why.explain(rows)
    return {"scenario": sc.path, "level": sc.level, "scale_count": scale_count, "rows": rows,
            "knee": why.knee(rows, knee)}


def run_modes(sc: scenario.Scenario, cores: list[int], modes: list[str], scale_count: bool = True,
              progress=None, knee: float = why.KNEE) -> dict:
    """One scaling series per SMT mode (SMT modes only up to 32 cores), each with its own CAF
    expectation from its smallest run. ``rows`` is the first series, ``series`` all."""
    plans = [(m, [n for n in cores if m == "off" or n <= scenario.MAX_SMT_CORES]) for m in modes]
    total = sum(len(ns) for _, ns in plans)
    done = 0
    series = []
    for m, ns in plans:
        if not ns:
            continue

        def step(k: int, _n: int) -> None:
            if progress:
                progress(done + k, total)

        r = run(replace(sc, smt=m), ns, scale_count, step, knee)
        done += len(ns)
        series.append({"smt": m, "rows": r["rows"], "knee": r["knee"]})
    return {"scenario": sc.path, "level": sc.level, "scale_count": scale_count,
            "rows": series[0]["rows"] if series else [], "knee": series[0]["knee"] if series else None,
            "series": series}


def plot(result: dict, path: str, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False  # "$" in a userid or title is text, not math
    import matplotlib.pyplot as plt

    series = result.get("series") or [{"smt": None, "rows": result["rows"]}]
    why_rows = [r for r in series[0]["rows"] if r.get("why")]
    fig, axes = plt.subplots(1, 3 if why_rows else 2, figsize=(14 if why_rows else 10, 3.8))
    a1, a2 = axes[0], axes[1]
    tv_all: list[float] = []
    for k, ser in enumerate(series):
        rows = ser["rows"]
        xs = [r["cores"] for r in rows]
        tag = f" SMT {ser['smt']}" if ser["smt"] else ""
        c = f"C{k}"
        a1.plot(xs, [r["itr"] for r in rows], "o-", color=c, label=f"ITR ({result['level']}){tag}")
        a1.plot(xs, [r["itr_caf_expected"] for r in rows], "s--", color=c, alpha=0.6, label=f"CAF expectation{tag}")
        a1.plot(xs, [r["etr"] for r in rows], "^:", color=c, alpha=0.6, label=f"ETR{tag}")
        if k == 0:
            a1.plot(xs, [r["itr_linear"] for r in rows], ":", color="grey", label="linear")
        tv = [r["tv_ratio"] for r in rows]
        tv_all += tv
        a2.plot(xs, tv, "o-", color=c, label=f"T/V{tag}")
    a1.set_xlabel("cores")
    a1.set_ylabel("transactions / s")
    a1.legend(fontsize=7)
    a1.grid(alpha=0.3)
    a2.ticklabel_format(useOffset=False)
    a2.set_ylim(1.0, max(1.1, max(tv_all) * 1.05))
    if len(series) > 1:
        a2.legend(fontsize=7)
    a2.set_xlabel("cores")
    a2.set_ylabel("T/V")
    a2.grid(alpha=0.3)
    if why_rows:
        _why_bars(axes[2], why_rows, series[0]["smt"])
    fig.suptitle(title or result["scenario"], fontsize=10)
    fig.tight_layout()
    from ..output import save_figure

    save_figure(fig, path)
    plt.close(fig)


def _why_bars(ax, rows: list[dict], smt: str | None) -> None:
    """Processor time per transaction at each core count, stacked by cause (scaling_why): the
    work at the first run's CPI, the CPI stretch over it, and lock spin."""
    labels = [str(r["cores"]) for r in rows]
    c0 = rows[0]["why"]["cpi"]
    keep = [c0 / r["why"]["cpi"] if r["why"]["cpi"] > 0 else 1.0 for r in rows]
    work = ("guest_us_per_tx", "cp_us_per_tx", "smt_us_per_tx")
    stacks = [(f"guest (at CPI {c0:.2f})", [r["why"]["guest_us_per_tx"] * k for r, k in zip(rows, keep)]),
              ("CP", [r["why"]["cp_us_per_tx"] * k for r, k in zip(rows, keep)]),
              ("SMT", [r["why"]["smt_us_per_tx"] * k for r, k in zip(rows, keep)]),
              ("CPI stretch", [sum(r["why"][w] for w in work) * (1 - k) for r, k in zip(rows, keep)]),
              ("lock spin", [r["why"]["spin_us_per_tx"] for r in rows])]
    bottom = [0.0] * len(rows)
    for name, vals in stacks:
        if not any(v > 0 for v in vals):
            continue
        ax.bar(labels, vals, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xlabel("cores" + (f" (SMT {smt})" if smt else ""))
    ax.set_ylabel("processor us per transaction")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, axis="y")
