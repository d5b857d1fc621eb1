"""zvmlab check: run a share scenario and compare every user in every interval with the Solver."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from .. import admission, engine, scenario
from ..errors import InputError
from ..output import check_file_target, console, print_json, progress, safe
from ._lab_options import SEED


def _run(sc: scenario.Scenario, runner: str) -> dict:
    if runner == "sim":
        with progress(f"{Path(sc.path).name} ({sc.level})") as update:
            return engine.simulate(sc.engine_config(), progress=update)
    from ..lab import cgroup_runner

    if sc.actions:
        raise InputError("the cgroup runner does not run timed SET SHARE actions yet", field="--runner cgroup",
                         fix="use --runner sim for scenarios with [[action]]")
    return cgroup_runner.run(sc, sc.duration_ns / 1e9, sc.interval_ns / 1e9)


@click.command("check")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--runner", type=click.Choice(["sim", "cgroup"]), default="sim", show_default=True,
              help="sim: the zvmlab engine; cgroup: real processes in Linux cgroups on this machine.")
@click.option("--level", "levels", multiple=True,
              help="CP level(s) to run with the sim runner; repeat for a before/after comparison.")
@click.option("--seed", type=SEED, help="Random seed (overrides [run] seed).")
@click.option("--duration", help='Run length (overrides [run] duration), e.g. "10m" (the cgroup runner runs in real time).')
@click.option("--interval", help='Monitor interval (overrides [run] interval), e.g. "1s".')
@click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True,
              help="Leading intervals excluded from the error statistics.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write the chart here (.png or .svg).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def check(file: str, runner: str, levels: tuple[str, ...], seed: int | None, duration: str | None,
          interval: str | None, warmup: int, plot_path: str | None, as_json: bool) -> None:
    """Run FILE and compare each user's CPU per interval with the Solver's correct answer."""
    from ..lab import comparator

    base = scenario.load(file).with_overrides(seed=seed, duration=duration)
    if interval:
        base.interval_ns = min(base.duration_ns, scenario.parse_duration(interval, where="--interval"))
    if plot_path and Path(plot_path).suffix.lower() not in (".png", ".svg"):
        raise InputError("unknown plot format", field="--plot", fix="name a .png or .svg file")
    if plot_path:
        check_file_target(plot_path, "--plot")  # before the runs, not after them
    if runner == "cgroup" and levels:
        raise InputError("--level applies to the sim runner only", field="--level", fix="drop --level with --runner cgroup")
    for lv in levels or (None,):  # a run that would not fit in memory is refused before the first starts
        try:
            admission.admit(base.with_overrides(level=lv) if lv else base)
        except InputError as e:
            if interval and e.field == "run.interval":
                e.field, e.line = "--interval", None
                e.fix = "use a longer --interval or a shorter --duration; or raise the limit with ZVMLAB_MAX_MEMORY"
            raise
    results = []
    for lv in levels or (base.level if runner == "sim" else None,):
        sc = base.with_overrides(level=lv) if lv else base
        run = _run(sc, runner)
        results.append(comparator.compare(sc, run, runner, sc.level if runner == "sim" else None, warmup=warmup))
    if plot_path:
        comparator.plot(base, results, plot_path)
    if as_json:
        out = results[0].to_json() if len(results) == 1 else {"runs": [r.to_json() for r in results]}
        out["solver"] = comparator.solve(base)
        print_json(out)
        return
    for r in results:
        users = list(r.intervals[0]["users"]) if r.intervals else []
        head = f"{r.runner}" + (f" {r.level}" if r.level else "")
        t = Table(title=f"{safe(base.title or file)}: {head} vs Solver (observed / expected CPU %, 100 = one processor)",
                  title_justify="left")
        t.add_column("End (s)", justify="right")
        for u in users:
            t.add_column(u, justify="right")
        t.add_column("", justify="left")
        for iv in r.intervals:
            cells = []
            for u in users:
                c = iv["users"][u]
                bad = abs(c["error"]) > 1.0 and not iv["excluded"]
                txt = f"{c['observed']:.1f} / {c['expected']:.1f}"
                cells.append(f"[red]{txt}[/red]" if bad else txt)
            t.add_row(f"{iv['end_s']:g}", *cells, iv["excluded"] or "")
        console.print(t)
        why = ', '.join(sorted({e['reason'] for e in r.excluded})) or 'none'
        if r.max_abs_error_pct is None:
            console.print(f"  nothing compared: every interval is excluded ({why})")
        else:
            console.print(f"  max |error| {r.max_abs_error_pct:.2f} pp, mean |error| {r.mean_abs_error_pct:.2f} pp "
                          f"(excluded: {why})")
        for n in r.notes:
            console.print(f"  note: {n}")
    if plot_path:
        console.print(f"  chart: {safe(plot_path)}")
