"""The Comparator of seed 000's Solver / Runner / Comparator method.

The Solver gives the correct answer for a share scenario; a Runner (the simulator, or real Linux
cgroups) gives what happened; the Comparator reports the error per user per monitor interval.

Expected values follow the shares in effect: a timed SET SHARE changes the answer from the next
interval on. Excluded from the error statistics (stated in every result as ``excluded``):
- the first interval of the run (warm-up: users start from rest, deadlines are not settled);
- an interval in which a SET SHARE took effect (it mixes two correct answers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import cpupools
from ..scenario import Scenario
from ..scenario import Share as ScenarioShare
from . import solver as _solver


def solver_users(sc: Scenario, shares: dict[str, ScenarioShare] | None = None,
                 member: dict[str, str] | None = None) -> list:
    """The scenario's users as the Solver sees them (demand capped at the virtual CPUs), each in
    its CPU pool (``member``: userid -> pool, as ``cpupools.pools_at`` gives it)."""
    out = []
    for g in sc.guests:
        for uid in g.userids():
            sh = (shares or {}).get(uid, g.share)
            demand = g.vcpus * 100.0 * g.workload.demand_per_vcpu()
            out.append(_solver.UserSpec(
                userid=uid,
                demand_pct=demand,
                min_share=_solver.Share(sh.min.kind, sh.min.value),
                max_share=_solver.Share(sh.max.kind, sh.max.value) if sh.max is not None else None,
                limit=sh.limit,
                pool=(member or {}).get(uid),
            ))
    return out


def solve(sc: Scenario, shares: dict[str, ScenarioShare] | None = None, t_ns: int = 0) -> dict[str, float]:
    """The Solver's answer with the shares given and the CPU pools in effect at ``t_ns``."""
    member, limits = cpupools.pools_at(sc, t_ns)
    return dict(_solver.solve(sc.processors * 100.0, solver_users(sc, shares, member), pools=limits).users)


def shares_at(sc: Scenario, t_ns: int) -> dict[str, ScenarioShare]:
    """Shares in effect at simulated time ``t_ns`` (after every SET SHARE due by then)."""
    cur = {u: g.share for g in sc.guests for u in g.userids()}
    for a in sc.actions:
        if a.at_ns <= t_ns and a.share is not None:
            cur[a.userid] = a.share
    return cur


@dataclass
class Comparison:
    runner: str
    level: str | None
    users: dict
    intervals: list
    max_abs_error_pct: float | None  # None: every interval excluded, nothing compared
    mean_abs_error_pct: float | None
    excluded: list
    notes: list

    def to_json(self) -> dict:
        return {
            "runner": self.runner,
            "level": self.level,
            "max_abs_error_pct": self.max_abs_error_pct,
            "mean_abs_error_pct": self.mean_abs_error_pct,
            "users": self.users,
            "intervals": self.intervals,
            "excluded": self.excluded,
            "notes": self.notes,
        }


def compare(sc: Scenario, run: dict, runner: str, level: str | None = None, warmup: int = 1) -> Comparison:
    """Compare a run (a summary with ``intervals[].users``) against the Solver, interval by interval."""
    change_times = sorted({a.at_ns for a in sc.actions})
    verbs: dict[int, list[str]] = {}  # the commands' first two words at each instant
    for a in sc.actions:
        verbs.setdefault(a.at_ns, []).append(" ".join(a.command.split()[:2]).upper() or "a command")
    intervals = []
    errors: list[float] = []
    per_user: dict[str, list[tuple[float, float]]] = {}
    excluded = []
    for k, iv in enumerate(run["intervals"]):
        start_ns = round(iv["start_s"] * 1e9)
        end_ns = round(iv["end_s"] * 1e9)
        expected = solve(sc, shares_at(sc, end_ns), end_ns)
        reason = None
        if k < warmup:
            reason = "warm-up"
        else:
            hit = [t for t in change_times if start_ns < t <= end_ns or (t == start_ns and t > 0)]
            if hit:
                reason = ", ".join(dict.fromkeys(v for t in hit for v in verbs[t])) + " in this interval"
        users = {}
        for uid, obs in iv["users"].items():
            exp = expected.get(uid, math.nan)
            err = obs - exp
            users[uid] = {"observed": obs, "expected": exp, "error": err}
            if reason is None:
                errors.append(abs(err))
                per_user.setdefault(uid, []).append((obs, exp))
        if reason is not None:
            excluded.append({"end_s": iv["end_s"], "reason": reason})
        intervals.append({"end_s": iv["end_s"], "users": users, "excluded": reason})
    users_out = {}
    for uid, pairs in per_user.items():
        obs = sum(p[0] for p in pairs) / len(pairs)
        exp = sum(p[1] for p in pairs) / len(pairs)
        users_out[uid] = {"observed": obs, "expected": exp, "error": obs - exp,
                          "max_abs_error": max(abs(a - b) for a, b in pairs)}
    return Comparison(
        runner=runner,
        level=level,
        users=users_out,
        intervals=intervals,
        max_abs_error_pct=max(errors) if errors else None,
        mean_abs_error_pct=sum(errors) / len(errors) if errors else None,
        excluded=excluded,
        notes=list(run.get("notes", [])),
    )


def plot(sc: Scenario, comparisons: list[Comparison], path: str) -> None:
    """Seed 000's before/after chart: one panel for the Solver, one per run, same y scale."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False  # "$" in a userid or title is text, not math
    import matplotlib.pyplot as plt

    panels = [("Solver", None)] + [(f"{c.runner}" + (f" {c.level}" if c.level else ""), c) for c in comparisons]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True, squeeze=False)
    users = list(comparisons[0].intervals[0]["users"]) if comparisons and comparisons[0].intervals else []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ymax = 0.0
    for ax, (title, c) in zip(axes[0], panels):
        src = c if c is not None else comparisons[0]
        xs = list(range(1, len(src.intervals) + 1))
        for i, uid in enumerate(users):
            key = "expected" if c is None else "observed"
            ys = [iv["users"][uid][key] for iv in src.intervals]
            ymax = max(ymax, max(ys, default=0))
            ax.plot(xs, ys, marker="o", markersize=3, color=colors[i % len(colors)], label=uid)
        err = "nothing compared" if c is None or c.max_abs_error_pct is None else f"{c.max_abs_error_pct:.1f} pp"
        ax.set_title(title if c is None else f"{title}\nmax |error| {err}", fontsize=10)
        ax.set_xlabel("Monitor interval")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("CPU % (100 = one processor)")
    axes[0][0].set_ylim(0, ymax * 1.1 + 1)
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(sc.title or sc.path, fontsize=11)
    fig.tight_layout()
    from ..output import save_figure

    save_figure(fig, path)
    plt.close(fig)
