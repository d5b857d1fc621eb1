"""zvmlab params: the parameter table (every model constant, its unit and its source)."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from .. import engine
from ..output import console, print_json


@click.command("params")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def params(as_json: bool) -> None:
    """List the model parameters with value, range, unit and source. Override them in a scenario's
    [params] (a value outside its range is refused)."""
    ps = engine.params()
    if as_json:
        print_json(ps)
        return
    t = Table(title="Model parameters", title_justify="left", show_lines=False)
    for c in ("Name", "Value", "Range", "Unit", "Source"):
        t.add_column(c, overflow="fold")
    for p in ps:
        t.add_row(p["name"], f"{p['default']:g}", f"{p['min']:g}-{p['max']:g}", escape(p["unit"]), escape(p["source"]))
    console.print(t)
