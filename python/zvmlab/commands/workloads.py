"""zvmlab workloads: the workload library (the seeds' named workloads and their scenario files)."""

from __future__ import annotations

import click
from rich.table import Table

from ..lab import workloads as lib
from ..output import console, print_json


@click.command("workloads")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def workloads(name: str | None, as_json: bool) -> None:
    """List the workload library: each named workload of IBM's reports, the seed and
    configuration it comes from, the scenario file that runs it and the replicate rows that use
    it. With NAME, show one workload (then `zvmlab run` its scenario)."""
    ws = [lib.find(name)] if name else lib.load()
    if as_json:
        print_json(ws[0].to_json() if name else [w.to_json() for w in ws])
        return
    t = Table(title="Workload library (scenarios/workloads/library.toml)", title_justify="left")
    for c in ("Workload", "Seed", "Configuration", "Scenario", "Rows"):
        t.add_column(c, overflow="fold")
    for w in ws:
        scen = str(w.to_json()["scenario"]) if w.scenario else f"{w.status}: {w.reason}"
        t.add_row(f"{w.name}\n{w.title}", w.seed, w.config, scen, " ".join(w.rows))
    console.print(t)
