"""zvmlab validate: check a scenario file without running it."""

from __future__ import annotations

import click

from .. import scenario
from ..output import console, print_json
from ..scenario import format_duration


@click.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the normalized engine configuration as JSON.")
def validate(files: tuple[str, ...], as_json: bool) -> None:
    """Check scenario FILES; print what each describes. Exit status 2 on the first bad one."""
    out = []
    for f in files:
        sc = scenario.load(f)
        if as_json:
            out.append({"file": f, "config": sc.engine_config()})
            continue
        n = len(sc.userids())
        console.print(f"[green]ok[/green] {f}: level {sc.level}, {sc.processors} processors, smt {sc.smt}, "
                      f"{format_duration(sc.duration_ns)} (interval {format_duration(sc.interval_ns)}), "
                      f"seed {sc.seed}, {n} guest{'s' if n != 1 else ''}, {len(sc.actions)} actions")
    if as_json:
        print_json(out if len(out) > 1 else out[0])
