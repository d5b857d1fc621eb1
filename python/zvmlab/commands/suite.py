"""zvmlab suite: a regression suite at a base and a comparison level, ETRR and ITRR per scenario."""

from __future__ import annotations

import time

import click
from rich.table import Table

from ..errors import InputError
from ..output import console, err_console, print_json, progress, safe
from ._lab_options import executor_options


def _r(x: dict) -> str:
    if x["ratio"] is None:
        return "n/a"
    return f"{x['ratio']:.3f}"


def _ci(x: dict) -> str:
    if x["lo"] is None:
        return ""
    return f"{x['lo']:.3f}–{x['hi']:.3f}"


def _p(v) -> str:
    if v is None:
        return ""
    return "<0.001" if v < 0.001 else f"{v:.3f}"


_COLOR = {"better": "green", "worse": "red", "same": "default"}


def _verdict(x: dict, alpha: float) -> str:
    v = x.get("verdict")
    if v is None:
        return ""
    star = "*" if x.get("p_bh") is not None and x["p_bh"] <= alpha else ""
    return f"[{_COLOR[v]}]{v}{star}[/]"


@click.command("suite")
@click.argument("suite_name", metavar="SUITE")
@click.option("--base", "base_level", help="The base level, e.g. zvm-6.3 (required unless --list).")
@click.option("--compare", "compare_level", help="The comparison level, e.g. zvm-6.4 (required unless --list).")
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=3, show_default=True,
              help="Runs per scenario and level (seeds SEED..SEED+N-1, the same on both levels); 2+ for intervals.")
@executor_options
@click.option("--only", help="Cells to run: ids with * wildcards, comma-separated (e.g. 'virstor-*,*-64c-*').")
@click.option("--duration", help="Simulated time per run (overrides the suite's duration: new runs).")
@click.option("--list", "list_cells", is_flag=True, help="List the suite's cells and what they stand for; run nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (deterministic for the same seeds).")
def suite(suite_name: str, base_level: str | None, compare_level: str | None, repeat: int, executor_spec: str, jobs: int | None,
          store_path: str, only: str | None, duration: str | None, list_cells: bool, as_json: bool) -> None:
    """Run the regression suite SUITE (a name in scenarios/suites/ or a path) at two levels.

    Per scenario: ETRR and ITRR (comparison / base, ratio of geometric means over the seeds), a
    95 % Welch t-interval on the log ratio and Welch's t-test; then the suite summary: mean and
    standard deviation of the ratios, geometric mean, counts better / worse / same at the suite's
    threshold, and significant differences after Benjamini-Hochberg and Holm corrections.

    Every run is stored as it finishes: an interrupted suite resumes where it stopped when the
    same command is run again, and a finished run is never made twice.
    """
    from ..lab import executor as ex
    from ..lab import suite as st
    from ..lab.store import Store

    s = st.load(suite_name, duration=duration)
    cells = st.select(s, only)  # bad input is found before the store or a cluster is touched
    if list_cells:
        _list_cells(s, cells, as_json)
        return
    for opt, v in (("--base", base_level), ("--compare", compare_level)):
        if not v:
            raise InputError("missing", field=opt, fix="e.g. --base zvm-6.3 --compare zvm-6.4 (`zvmlab levels`)")
    base = st.check_level(base_level, "--base")
    compare = st.check_level(compare_level, "--compare")
    executor = ex.make(executor_spec, jobs)
    t0 = time.perf_counter()
    try:
        with Store.open(store_path) as store:
            if not as_json:
                err_console.print(f"suite {safe(s.name)}: {len(cells)} scenarios x 2 levels x {repeat} seeds "
                                  f"on {executor.description}; store {store_path}")
            res, (made, reused) = _run_keeping_finished(st, s, base, compare, repeat, executor, store, only,
                                                        store_path)
    finally:
        executor.close()
    wall = time.perf_counter() - t0
    err_console.print(f"{made} runs made, {reused} reused from the store, {wall:.1f} s wall ({executor.description})")
    if as_json:
        print_json(res)
        return
    _print(res, s)


def _list_cells(s, cells, as_json: bool) -> None:
    """--list: each cell, what it stands for and how it runs today."""
    if as_json:
        print_json({"suite": s.name, "cells": [{"id": c.id, "family": c.family, "axes": c.axes,
                                                 "intended": s.families[c.family].intended,
                                                 "today": s.families[c.family].today} for c in cells]})
        return
    t = Table(title=f"{safe(s.title)}: {len(cells)} cells", title_justify="left")
    for col in ("Cell", "Stands for", "Runs today as"):
        t.add_column(col, overflow="fold")
    for c in cells:
        f = s.families[c.family]
        t.add_row(c.id, f.intended, f.today)
    console.print(t)


def _run_keeping_finished(st, s, base, compare, repeat: int, executor, store, only, store_path: str):
    """Run the suite with a progress bar; on Ctrl-C say that finished runs are kept, then stop."""
    try:
        with progress(f"suite {s.name}", True) as update:
            return st.run(s, base, compare, repeat, executor, store, only=only, progress=update)
    except KeyboardInterrupt:
        try:
            n = f"{store.counts()['runs']} runs"
        except Exception:  # the store is whole (each run is one transaction); only the count failed
            n = "count unavailable"
        err_console.print(f"interrupted: finished runs are kept in {safe(store_path)} ({n}); "
                          "run the same command again to resume")
        raise


def _print(res: dict, s) -> None:
    alpha = s.alpha
    conf = f"{res['confidence']:.0%} CI"
    t = Table(title=f"{safe(res['title'])}\n{res['base']} → {res['compare']}, {res['repeat']} seed(s) per level, "
                    f"{res['duration']} per run", title_justify="left")
    for col, j in (("Scenario", "left"), ("ETRR", "right"), (conf, "right"), ("p", "right"), ("ITRR", "right"),
                   (conf + " ", "right"), ("p ", "right"), ("ETRR / ITRR", "left")):
        t.add_column(col, justify=j, overflow="fold")
    for r in res["scenarios"]:
        e, i = r["etrr"], r["itrr"]
        t.add_row(r["id"], _r(e), _ci(e), _p(e["p"]), _r(i), _ci(i), _p(i["p"]),
                  f"{_verdict(e, alpha)} / {_verdict(i, alpha)}")
    console.print(t)
    sm = Table(title=f"Suite summary: {res['cells']} scenarios; same = within ±{s.threshold:.0%}; "
                     f"BH, Holm = significantly better/worse at α = {alpha:g} after correction", title_justify="left")
    for col in ("Ratio", "Mean", "SD", "Geomean", "Min", "Max", "Better", "Worse", "Same", "BH", "Holm"):
        sm.add_column(col, justify="left" if col == "Ratio" else "right", no_wrap=True)
    f = lambda v: "" if v is None else f"{v:.3f}"  # noqa: E731
    for name in ("etrr", "itrr"):
        d = res["summary"][name]
        sm.add_row(name.upper(), f(d["mean"]), f(d["sd"]), f(d["geomean"]), f(d["min"]), f(d["max"]), str(d["better"]),
                   str(d["worse"]), str(d["same"]),
                   f"{d['significant_bh']['better']}/{d['significant_bh']['worse']}",
                   f"{d['significant_holm']['better']}/{d['significant_holm']['worse']}")
    console.print(sm)
    console.print("ETRR, ITRR: comparison / base, ratio of geometric means over the seeds; CI: Welch t-interval on the "
                  "log ratio; p: Welch's t-test on log metric; * = significant after Benjamini-Hochberg.")
    if res["repeat"] < 2:
        console.print("[yellow]one seed per level: no intervals or tests (use --repeat 2 or more)[/]")
