"""zvmlab validate: check scenario files without running them."""

from __future__ import annotations

import sys

import click

from .. import admission, scenario
from ..errors import InputError
from ..output import console, plain, print_json, safe
from ..scenario import format_duration


@click.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the normalized engine configuration as JSON.")
@click.option("--max-memory", metavar="SIZE", help='Memory a run may need, e.g. "4G" (default: ZVMLAB_MAX_MEMORY, '
              "else the memory available here); a scenario estimated above it is bad.")
def validate(files: tuple[str, ...], as_json: bool, max_memory: str | None) -> None:
    """Check scenario FILES; print what each describes. Every file is checked; exit status 2 if
    any is bad (each bad one gets its message)."""
    out, bad = [], 0
    for f in files:
        try:
            sc = scenario.load(f)
            est = admission.admit(sc, max_memory, has_option=True)
        except InputError as e:
            bad += 1
            click.echo(f"zvmlab: error: {plain(e)}", err=True)
            continue
        if as_json:
            out.append({"file": f, "config": sc.engine_config(), "memory_estimate_bytes": est.bytes})
            continue
        n = len(sc.userids())
        console.print(f"[green]ok[/green] {safe(f)}: level {sc.level}, {sc.processors} processors, smt {sc.smt}, "
                      f"{format_duration(sc.duration_ns)} (interval {format_duration(sc.interval_ns)}), "
                      f"seed {sc.seed}, {n} guest{'s' if n != 1 else ''}, {len(sc.actions)} actions, "
                      f"memory about {admission.human(est.bytes)}")
    if as_json and out:
        print_json(out if len(files) > 1 else out[0])
    if bad:
        sys.stdout.flush()
        raise SystemExit(2)
