"""zvmlab twin: a scenario built from monitor data, and what-if runs of it."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from .. import engine, scenario
from ..errors import InputError
from ..monitor import twin as T
from ..output import console, err_console, print_json, write_file, write_stdout
from ..perfkit import load


def _scenario(tw: T.Twin, path: str, edits: list[str] | None = None) -> scenario.Scenario:
    """The twin as a checked scenario (`edits`: the --what-if edits that made it, to blame them and
    not the data). A twin the data makes impossible is refused, not written or printed."""
    try:
        return scenario.loads(tw.toml(), f"<twin of {tw.source}>")
    except InputError as e:
        if edits:
            raise InputError(f"the twin with --what-if {'; '.join(edits)} is not a valid scenario: {e}",
                             file=path, field="--what-if", fix="give each what-if a value in its range") from None
        raise InputError(f"the twin built from this data is not a valid scenario: {e}", file=path,
                         fix="check the monitor data (`zvmlab report` names what is out of bounds)") from None


def _run(tw: T.Twin, path: str, edits: list[str] | None = None) -> dict:
    return engine.simulate(_scenario(tw, path, edits).engine_config())


def _figures(s: dict) -> dict:
    return {"avg_processor_busy_pct": s["avg_processor_busy_pct"], "tv_ratio": s["tv_ratio"], "etr": s["etr"],
            "itr": s["itr"], "users": {u["userid"]: u["cpu_pct"] for u in s["users"]}}


def _show(base: dict, what: dict | None, edits: list[str]) -> None:
    t = Table(title="Twin" + (" and what-if: " + "; ".join(edits) if what else ""))
    t.add_column("Figure")
    t.add_column("Baseline", justify="right")
    if what:
        t.add_column("What-if", justify="right")
        t.add_column("Change", justify="right")
    rows = [("Avg processor busy %", "avg_processor_busy_pct"), ("T/V", "tv_ratio"), ("ETR /s", "etr"),
            ("ITR", "itr")]
    cells = [(label, base[k], what[k] if what else None) for label, k in rows]
    cells += [(f"{u} CPU %", v, what["users"].get(u) if what else None) for u, v in base["users"].items()]
    for label, a, b in cells:
        row = [label, f"{a:,.2f}"]
        if what:
            row += [f"{b:,.2f}", f"{100.0 * (b - a) / a:+.1f} %" if a else ""]
        t.add_row(*row)
    console.print(t)


@click.command("twin")
@click.argument("monfile", type=click.Path())
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Write the twin scenario here (TOML).")
@click.option("--what-if", "edits", multiple=True, metavar="KEY=VALUE",
              help='An edit of the twin, e.g. "processors=12", "smt=smt2", "level=zvm-6.3", '
                   '"share.USER1=RELATIVE 200", "vcpus.USER1=4"; repeatable. Runs the twin and the edited '
                   'twin and prints them side by side.')
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
def twin(monfile: str, out: str | None, edits: tuple[str, ...], as_json: bool) -> None:
    """Build a scenario from MONFILE (a monitor file or a run directory): the level, processors,
    SMT and each guest's virtual CPUs and CPU demand, with a comment naming the records each value
    came from. Without --what-if and --out, prints the scenario."""
    src = load(monfile)
    mixed = [c for c in src.checks if c.startswith(("two or more", "time runs backwards", "time jumps"))]
    if mixed:
        raise InputError(f"cannot model this data as one system: {mixed[0]}", file=src.path,
                         fix="split the file into one recording per system and level, each in time order")
    tw = T.build(src.data, src.m, Path(src.path).name)
    base_sc = _scenario(tw, src.path)
    what = T.apply(tw, list(edits)) if edits else None
    if tw.not_taken and not as_json:
        err_console.print(f"zvmlab: warning: {escape(src.path)}: the twin does not take "
                          + "; ".join(tw.not_taken) + " (see the comment at its top)", soft_wrap=True)
    if out:
        write_file(out, tw.toml())  # atomic: never half a scenario
    if not edits:
        if not out:
            write_stdout(tw.toml())
        return
    base = _figures(engine.simulate(base_sc.engine_config()))
    alt = _figures(_run(what, src.path, list(edits)))
    if as_json:
        print_json({"baseline": base, "what_if": alt, "edits": list(edits)})
    else:
        _show(base, alt, list(edits))
