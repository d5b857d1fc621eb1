"""zvmlab bisect: which mechanism switch between two levels causes a change in a metric."""

from __future__ import annotations

import math

import click
from rich.table import Table

from .. import admission, engine, scenario
from ..errors import InputError
from ..output import console, print_json, progress
from ._lab_options import SEED


def _measure(sc: scenario.Scenario, level: str, switches: dict[str, str], metric: str) -> float:
    from ..lab.replicate import _lookup

    s = sc.with_overrides(level=level, switches=switches)
    run = engine.simulate(s.engine_config())
    if metric.startswith("check."):
        from ..lab import comparator

        run["check"] = comparator.compare(s, run, "sim", level).to_json()
    v = _lookup(run, metric)
    if math.isnan(v):
        raise InputError(f"the run has no value {metric!r}", field="--metric",
                         fix="e.g. etr, itr, tv_ratio, avg_processor_busy_pct, users.USER0.cpu_pct, "
                             "check.max_abs_error_pct")
    return v


@click.command("bisect")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--base", "base_level", required=True, help="The base level, e.g. zvm-6.3.")
@click.option("--compare", "compare_level", required=True, help="The comparison level, e.g. zvm-6.4.")
@click.option("--metric", default="itr", show_default=True,
              help="A value of the run: etr, itr, tv_ratio, users.USER0.cpu_pct, check.max_abs_error_pct, ...")
@click.option("--seed", type=SEED, help="Random seed (overrides [run] seed).")
@click.option("--duration", help='Simulated time (overrides [run] duration).')
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def bisect(file: str, base_level: str, compare_level: str, metric: str, seed: int | None, duration: str | None,
           as_json: bool) -> None:
    """Attribute the change in METRIC between two levels to their mechanism switches.

    Runs the base and the comparison level, then each differing switch alone (base with that one
    switch turned to the comparison's value, and comparison with it turned back), and the path
    that turns the switches on one at a time. A switch's effect is the metric's change when it
    alone is turned on, and when it alone is turned off.
    """
    sc = scenario.load(file).with_overrides(seed=seed, duration=duration, level=base_level, level_field="--base")
    sc_c = sc.with_overrides(level=compare_level, level_field="--compare")
    for s in (sc, sc_c):  # a run that would not fit in memory is refused before the first starts
        admission.admit(s)
    sw_b, sw_c = engine.switches(sc.level), engine.switches(sc_c.level)
    diff = [k for k in sw_b if sw_b[k] != sw_c.get(k)]
    runs = 2 + 2 * len(diff) + max(0, len(diff) - 1)
    with progress("bisect", not as_json) as update:
        base, comp, rows, path = _measure_all(sc, sc_c, sw_b, sw_c, diff, metric, lambda k: update(k, runs))
    total = comp - base
    culprit = max(rows, key=lambda r: abs(r["effect_on"]) + abs(r["effect_off"]))["switch"] if rows else None
    out = {"metric": metric, "base_level": sc.level, "compare_level": sc_c.level, "base": base, "compare": comp,
           "change": total, "switches": rows, "path": path, "culprit": culprit}
    if as_json:
        print_json(out)
        return
    _print_bisect(out)


def _measure_all(sc, sc_c, sw_b: dict, sw_c: dict, diff: list[str], metric: str, update) -> tuple:
    """The base and comparison runs, each differing switch turned on in the base and off in the
    comparison, and the path that turns them on one at a time."""
    done = 0

    def m(level, sw):
        nonlocal done
        v = _measure(sc, level, sw, metric)
        done += 1
        update(done)
        return v

    base = m(sc.level, {})
    comp = m(sc_c.level, {})
    rows = []
    for k in diff:
        on = m(sc.level, {k: sw_c[k]})
        off = m(sc_c.level, {k: sw_b[k]})
        rows.append({"switch": k, "base_value": sw_b[k], "compare_value": sw_c[k],
                     "turned_on_in_base": on, "effect_on": on - base,
                     "turned_off_in_compare": off, "effect_off": comp - off})
    path = [{"switches_on": [], "value": base}]
    for i in range(1, len(diff)):
        sw = {k: sw_c[k] for k in diff[:i]}
        path.append({"switches_on": diff[:i], "value": m(sc.level, sw)})
    if diff:
        path.append({"switches_on": diff, "value": comp})
    return base, comp, rows, path


def _print_bisect(out: dict) -> None:
    """The change, each differing switch's effect both ways, the path and the largest effect."""
    bl, cl = out["base_level"], out["compare_level"]
    console.print(f"[bold]{out['metric']}[/bold]: {bl} {out['base']:.4g} → {cl} {out['compare']:.4g} "
                  f"(change {out['change']:+.4g})")
    if not out["switches"]:
        console.print("the two levels have the same mechanism switches: nothing to bisect")
        return
    t = Table(title="Mechanism switches that differ", title_justify="left")
    for c in ("Switch", f"{bl}", f"{cl}", "Effect turned on in base", "Effect turned off in compare"):
        t.add_column(c, justify="right" if c.startswith("Effect") else "left")
    for r in out["switches"]:
        t.add_row(r["switch"], r["base_value"], r["compare_value"], f"{r['effect_on']:+.4g}", f"{r['effect_off']:+.4g}")
    console.print(t)
    console.print("path: " + " → ".join(f"{'+'.join(p['switches_on']) or 'base'} {p['value']:.4g}"
                                        for p in out["path"]))
    console.print(f"largest effect: [bold]{out['culprit']}[/bold]")
