"""zvmlab sweep: a scenario at every point of a grid of parameter values."""

from __future__ import annotations

import time

import click
from rich.table import Table

from ..output import console, err_console, print_json, progress, safe
from ._lab_options import SEED, executor_options


@click.command("sweep")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--param", "-p", "params", multiple=True, required=True,
              help="NAME=V1,V2,... (repeatable; the grid is the cross product), e.g. processors=4,8,16,32,64, "
                   "srm.dspslice=1,5,10, guest.WEB.count=8,16, level=zvm-6.3,zvm-6.4.")
@click.option("--level", help="CP level for every point (overrides the scenario's).")
@click.option("--seed", type=SEED, help="First seed (overrides [run] seed).")
@click.option("--duration", help='Simulated time of every point (overrides [run] duration), e.g. "60s".')
@click.option("--user", "users", multiple=True, metavar="USERID",
              help="Show this guest's CPU % as a column (repeatable; default: the 3 busiest guests).")
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=1, show_default=True,
              help="Runs per point (seeds SEED..SEED+N-1); the table shows means and standard deviations.")
@executor_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sweep(file: str, params: tuple[str, ...], level: str | None, seed: int | None, duration: str | None,
          users: tuple[str, ...], repeat: int, executor_spec: str, jobs: int | None, store_path: str,
          as_json: bool) -> None:
    """Run FILE at every combination of the --param values: ETR, ITR, T/V, busy, response time and CPU
    per guest at each point.

    Parameters name values of the scenario: processors, smt, level, seed, duration, interval,
    switches.NAME, a model parameter (zvmlab params), guest.USERID.KEY (count, vcpus, share,
    storage, quickdsp), guest.USERID.workload.KEY, or system.KEY / run.KEY / storage.KEY. A name
    the scenario does not have is an error before anything runs.
    """
    from ..lab import executor as ex
    from ..lab import sweep as sw
    from ..lab.store import Store

    # every point is checked before the executor starts, and so is --user
    _, _, specs = sw.plan(file, list(params), repeat, level, seed, duration)
    if users:
        from .. import scenario

        texts = {(s.text, s.name) for s in specs}
        _check_users(users, sorted({u for t in texts for u in scenario.loads(*t).userids()}))
    executor = ex.make(executor_spec, jobs)
    t0 = time.perf_counter()
    try:
        with Store.open(store_path) as store:
            try:
                with progress("sweep", True) as update:
                    res, (made, reused) = sw.run(file, list(params), executor, store, repeat, level, seed, update,
                                                 duration=duration)
            except KeyboardInterrupt:
                err_console.print(f"interrupted: finished runs are kept in {safe(store_path)}; "
                                  "run the same command again to resume")
                raise
    finally:
        executor.close()
    err_console.print(f"{made} runs made, {reused} reused from the store, {time.perf_counter() - t0:.1f} s wall "
                      f"({executor.description})")
    if as_json:
        print_json(res)
        return
    names = list(res["params"])
    t = Table(title=f"Sweep of {safe(file)}" + (f" ({repeat} seeds per point: mean ± sd)" if repeat > 1 else ""),
              title_justify="left")
    show_level = "level" not in names
    cols = guest_columns(res["points"], users)
    for n in names + (["Level"] if show_level else []) + ["ETR", "ITR", "T/V", "Busy %", "Resp ms", "p90 ms"] + \
            [f"{safe(u)} CPU %" for u in cols]:
        t.add_column(n, justify="left" if n in names or n == "Level" else "right")

    def f(row, m, fmt):
        s = format(row[m], fmt)
        return s + (f" ± {format(row[m + '_sd'], fmt)}" if row.get(m + "_sd") is not None else "")

    for r in res["points"]:
        t.add_row(*[safe(r["point"][n]) for n in names], *([r["level"]] if show_level else []), f(r, "etr", ",.1f"), f(r, "itr", ",.1f"),
                  f(r, "tv_ratio", ".3f"), f(r, "busy_pct", ".1f"), f(r, "resp_mean_ms", ".3f"),
                  f(r, "resp_p90_ms", ".3f"), *[f"{r['cpu_pct'].get(u, 0.0):.1f}" for u in cols])
    console.print(t)
    console.print("  Resp ms, p90 ms: transaction response time, mean and 90th percentile; "
                  "CPU %: percent of one processor")


def guest_columns(points: list[dict], wanted: tuple[str, ...], n: int = 3) -> list[str]:
    """The guests whose CPU the table shows: those asked for, else the ``n`` busiest at the first point."""
    have = sorted({u for p in points for u in p.get("cpu_pct", {})})
    if wanted:
        _check_users(wanted, have)
        return [u.upper() for u in wanted]
    first = points[0].get("cpu_pct", {}) if points else {}
    return sorted(first, key=lambda u: (-first[u], u))[:n]


def _check_users(wanted: tuple[str, ...], have: list[str]) -> None:
    """--user names guests the scenario has."""
    from ..errors import InputError

    bad = [u for u in wanted if u.upper() not in have]
    if bad:
        raise InputError(f"the scenario has no guest {bad[0]!r}", field="--user",
                         fix=f"guests: {', '.join(have[:20])}{' ...' if len(have) > 20 else ''}")
