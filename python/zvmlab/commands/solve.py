"""zvmlab solve: the correct answer for a share scenario (seed 000's Solver)."""

from __future__ import annotations

import click
from rich.table import Table

from .. import scenario
from ..output import console, print_json, safe


@click.command("solve")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--at", "at", default=None, help='Use the shares in effect at this time into the run, e.g. "5m".')
@click.option("--target", "target", metavar="USERID=PCT%",
              help="Instead: the smallest RELATIVE and ABSOLUTE share that gives USERID this CPU % (of one "
                   "processor) when it is busy, the other users as in FILE; e.g. --target DB=50%.")
@click.option("--json", "as_json", is_flag=True, help='Print {"users": {"USER0": 25.0, ...}} (percent of one processor).')
def solve(file: str, at: str | None, target: str | None, as_json: bool) -> None:
    """Weighted max-min fair answer: each user's CPU % given capacity, demand, shares and limits."""
    from ..lab import comparator

    sc = scenario.load(file)
    t = scenario.parse_duration(at, where="--at", allow_zero=True) if at else 0
    shares = comparator.shares_at(sc, t)
    if target is not None:
        _target(sc, shares, target, as_json)
        return
    users = comparator.solve(sc, shares, t)
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


def _target(sc, shares: dict, spec: str, as_json: bool) -> None:
    from ..lab import target as tg

    uid, pct = tg.parse(spec)
    r = tg.share_for(sc, uid, pct, shares)
    if as_json:
        print_json({"target": r.to_json()})
        return
    console.print(f"{uid} busy, the other users as in {sc.path} ({sc.processors} processors = "
                  f"{sc.processors * 100} %): the Solver's answer")
    if r.relative is not None:
        console.print(f"  SET SHARE {uid} RELATIVE {r.relative}   gives {r.relative_gets_pct:.2f} %")
    else:
        console.print(f"  no RELATIVE share gives {pct:g} % (at most {r.best_pct:.2f} %)")
    if r.absolute is not None:
        console.print(f"  SET SHARE {uid} ABSOLUTE {r.absolute:g}%   gives {r.absolute_gets_pct:.2f} %")
    else:
        console.print(f"  no ABSOLUTE share gives {pct:g} % (at most {r.best_pct:.2f} %)")
    console.print("  (the smallest such share; check it in the simulator: the share in FILE, then `zvmlab run`)")
