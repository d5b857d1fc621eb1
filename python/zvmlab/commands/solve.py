"""zvmlab solve: the correct answer for a share scenario (seed 000's Solver)."""

from __future__ import annotations

import click
from rich.table import Table

from .. import scenario
from ..output import console, print_json, safe


@click.command("solve")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--at", "at", default=None, help='Use the shares in effect at this time into the run, e.g. "5m".')
@click.option("--json", "as_json", is_flag=True, help='Print {"users": {"USER0": 25.0, ...}} (percent of one processor).')
def solve(file: str, at: str | None, as_json: bool) -> None:
    """Weighted max-min fair answer: each user's CPU % given capacity, demand, shares and limits."""
    from ..lab import comparator

    sc = scenario.load(file)
    t = scenario.parse_duration(at, where="--at", allow_zero=True) if at else 0
    shares = comparator.shares_at(sc, t)
    users = comparator.solve(sc, shares)
    if as_json:
        print_json({"users": users, "capacity_pct": sc.processors * 100.0})
        return
    t_ = Table(title=f"Solver: {safe(sc.title or file)} ({sc.processors} processors = {sc.processors * 100} %)",
               title_justify="left")
    for c in ("Userid", "Share", "Demand %", "Correct CPU %"):
        t_.add_column(c, justify="left" if c in ("Userid", "Share") else "right")
    for g in sc.guests:
        for uid in g.userids():
            d = g.vcpus * 100 * g.workload.demand_per_vcpu()
            t_.add_row(uid, str(shares[uid]), f"{d:.1f}", f"{users[uid]:.2f}")
    console.print(t_)
